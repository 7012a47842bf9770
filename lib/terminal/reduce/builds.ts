/**
 * Reducers for compilers and builds: tsc, gcc/clang (also under make), cargo build/check.
 * Every error and warning keeps its file:line location and message; code frames, notes and
 * progress lines are dropped; identical messages in one file are merged into one line.
 */

import { type Reducer } from "./util.ts";

/** One diagnostic: location, severity word and message (code included, e.g. `error TS2322: ...`). */
interface Diagnostic {
  file: string;
  loc: string;
  head: string;
}

/** Merge diagnostics with the same file and message: first location plus `(×N, also at ...)`. */
function mergeDiagnostics(diags: readonly Diagnostic[], format: (d: Diagnostic) => string): string[] {
  const groups = new Map<string, Diagnostic[]>();
  for (const d of diags) {
    const key = `${d.file}\u0000${d.head}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [d]);
    else if (!group.some((g) => g.loc === d.loc)) group.push(d);
  }
  const out: string[] = [];
  for (const group of groups.values()) {
    const first = group[0];
    if (first === undefined) continue;
    const more = group.slice(1).map((d) => d.loc);
    const shown = more.slice(0, 8).join(", ");
    const extra = more.length > 8 ? `, +${more.length - 8} more` : "";
    out.push(more.length === 0 ? format(first) : `${format(first)} (×${group.length}, also at ${shown}${extra})`);
  }
  return out;
}

const TSC_PRETTY_RE = /^(\S.*?):(\d+:\d+) - (error|warning) (TS\d+: .*)$/;
const TSC_PLAIN_RE = /^(\S.*?)\((\d+,\d+)\): (error|warning) (TS\d+: .*)$/;

/** tsc: one line per distinct error (merged by file and message) and the `Found N errors` line. */
export function reduceTsc(lines: readonly string[]): string[] | null {
  const diags: Diagnostic[] = [];
  const extra = new Map<string, string>();
  const out: string[] = [];
  let found: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const m = TSC_PRETTY_RE.exec(line) ?? TSC_PLAIN_RE.exec(line);
    if (m !== null) {
      const d = { file: m[1] ?? "", loc: (m[2] ?? "").replace(",", ":"), head: `${m[3]} ${m[4]}` };
      diags.push(d);
      // Elaboration lines ("  Type 'x' is not assignable ...") directly under the message.
      const next = lines[i + 1] ?? "";
      if (/^\s{2,}\S/.test(next) && !/^\s*\d+\s/.test(next) && !extra.has(d.file + d.head)) {
        extra.set(d.file + d.head, next.trim());
      }
      continue;
    }
    if (/^Found \d+ errors?/.test(line)) found = line;
    else if (/^error TS\d+: /.test(line)) out.push(line);
  }
  if (diags.length === 0 && found === null && out.length === 0) return null;
  const merged = mergeDiagnostics(diags, (d) => `${d.file}:${d.loc} - ${d.head}`);
  const withExtra: string[] = [];
  for (const l of merged) {
    withExtra.push(l);
    const m = /^(\S.*?):\d+:\d+ - (error|warning) (TS\d+: .*?)(?: \(×\d+, also at .*\))?$/.exec(l);
    const elaboration = m === null ? undefined : extra.get(`${m[1]}${m[2]} ${m[3]}`);
    if (elaboration !== undefined) withExtra.push(`  ${elaboration}`);
  }
  return [...out, ...withExtra, ...(found !== null ? ["", found] : [])];
}

const CC_DIAG_RE = /^(\S[^:]*?):(\d+(?::\d+)?): (fatal error|error|warning): (.*)$/;
const LINKER_RE = /(undefined reference to|multiple definition of|cannot find -l|ld returned \d+ exit status)/;

/** gcc/clang/make: errors and warnings merged per file and message, linker errors, make's error lines. */
export function reduceGcc(lines: readonly string[]): string[] | null {
  const diags: Diagnostic[] = [];
  const tail: string[] = [];
  let errors = 0;
  let warnings = 0;
  for (const line of lines) {
    const m = CC_DIAG_RE.exec(line);
    if (m !== null) {
      diags.push({ file: m[1] ?? "", loc: m[2] ?? "", head: `${m[3]}: ${m[4]}` });
      if (m[3] === "warning") warnings++;
      else errors++;
      continue;
    }
    if (LINKER_RE.test(line)) {
      diags.push({ file: "(link)", loc: String(diags.length), head: line });
      errors++;
    } else if (/^g?make(\[\d+\])?: \*\*\* /.test(line) || /^g?make(\[\d+\])?: .*(not remade|Stop\.)/.test(line)) {
      tail.push(line);
    } else if (/^ninja: build stopped/.test(line) || /^FAILED: /.test(line)) tail.push(line);
    else if (/^# \S+$/.test(line)) tail.push(line); // go build package header
  }
  if (diags.length === 0 && tail.length === 0) return null;
  const merged = mergeDiagnostics(diags, (d) => d.file === "(link)" ? d.head : `${d.file}:${d.loc}: ${d.head}`);
  const summary = `${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`;
  return [...merged, "", ...tail, `(compiler diagnostics: ${summary})`];
}

const CARGO_HEAD_RE = /^(error|warning)(\[E\d+\])?: (.*)$/;
const CARGO_LOC_RE = /^\s*--> (\S+:\d+:\d+)$/;

/** Cargo/rustc diagnostics: `error[E0308]: msg --> file:line:col` plus the primary label; null if none. */
export function cargoDiagnostics(lines: readonly string[]): { lines: string[] } | null {
  const out: string[] = [];
  let found = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const head = CARGO_HEAD_RE.exec(line);
    if (head === null) continue;
    const loc = CARGO_LOC_RE.exec(lines[i + 1] ?? "");
    if (loc !== null) {
      found = true;
      let label = "";
      for (let j = i + 2; j < Math.min(lines.length, i + 16) && (lines[j] ?? "").trim() !== ""; j++) {
        const l = /^\s*\d*\s*\|[\s|]*\^+\s+(\S.*)$/.exec(lines[j] ?? "");
        if (l !== null) {
          label = l[1] ?? "";
          break;
        }
      }
      out.push(`${line} --> ${loc[1]}${label !== "" ? ` (${label})` : ""}`);
      i++;
    } else if (/^(error: could not compile|warning: .* generated \d+ warnings?|error: aborting)/.test(line)) {
      found = true;
      out.push(line);
    } else if (/^error: /.test(line) && !/^error: test failed/.test(line)) {
      found = true;
      out.push(line);
    }
  }
  return found ? { lines: out } : null;
}

/** cargo build/check/clippy: rustc diagnostics with location and label, and the final status lines. */
export function reduceCargoBuild(lines: readonly string[]): string[] | null {
  const diags = cargoDiagnostics(lines);
  const finished = lines.filter((l) => /^\s*Finished /.test(l)).map((l) => l.trim());
  if (diags === null && finished.length === 0) return null;
  return [...(diags?.lines ?? []), ...finished];
}

/** Build reducers by name. */
export const BUILD_REDUCERS: Record<string, Reducer> = {
  tsc: reduceTsc,
  gcc: reduceGcc,
  "cargo-build": reduceCargoBuild,
};
