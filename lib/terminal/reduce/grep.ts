/**
 * Reducer for grep/rg/git grep output (`path:line:text` or `path:text`): matches grouped by file,
 * capped per file, with counts of what was dropped. Many files are grouped by directory.
 */

import { plural } from "./util.ts";

/** Files listed one by one up to this count; above it the output is grouped per directory. */
const MAX_FILES_LISTED = 40;
/** Output budget in lines used to choose the per-file cap. */
const LINE_BUDGET = 50;

interface FileMatches {
  path: string;
  matches: string[];
}

const WITH_LINE_RE = /^([^:\s][^:]*?):(\d+)[:-](.*)$/;
const NO_LINE_RE = /^([^:\s][^:]*?):(.*)$/;

/** grep/rg: `N matches in M files`, then per file a count and the first matches (or per directory counts). */
export function reduceGrep(lines: readonly string[]): string[] | null {
  const content = lines.filter((l) => l.trim() !== "" && l !== "--");
  if (content.length === 0) return null;
  const files = new Map<string, FileMatches>();
  const errors: string[] = [];
  let parsed = 0;
  const withLineNumbers = content.filter((l) => WITH_LINE_RE.test(l)).length >= content.length * 0.8;
  for (const line of content) {
    if (/^(grep|rg): /.test(line) || /^Binary file .* matches$/.test(line)) {
      errors.push(line);
      continue;
    }
    const m = withLineNumbers ? WITH_LINE_RE.exec(line) : NO_LINE_RE.exec(line);
    if (m === null) continue;
    parsed++;
    const path = m[1] ?? "";
    const text = withLineNumbers ? `${m[2]}: ${(m[3] ?? "").trim()}` : (m[2] ?? "").trim();
    let f = files.get(path);
    if (f === undefined) {
      f = { path, matches: [] };
      files.set(path, f);
    }
    f.matches.push(text);
  }
  // Not grep-with-filenames output (e.g. a single file without -H, or not grep at all).
  if (parsed < (content.length - errors.length) * 0.8 || files.size === 0) return null;
  if (withLineNumbers && [...files.keys()].every((p) => /^\d+$/.test(p))) return null;
  const list = [...files.values()];
  const out = [`${plural(parsed, "match")} in ${plural(list.length, "file")}`.replace("matchs", "matches")];
  if (list.length <= MAX_FILES_LISTED) {
    const cap = Math.max(1, Math.min(5, Math.floor(LINE_BUDGET / list.length) - 1));
    for (const f of list) {
      out.push(`${f.path} (${plural(f.matches.length, "match")})`.replace("matchs", "matches"));
      for (const m of f.matches.slice(0, cap)) out.push(`  ${m}`);
      if (f.matches.length > cap) out.push(`  … +${f.matches.length - cap} more in this file`);
    }
  } else {
    const dirs = new Map<string, FileMatches[]>();
    for (const f of list) {
      const slash = f.path.lastIndexOf("/");
      const dir = slash >= 0 ? f.path.slice(0, slash + 1) : "./";
      dirs.set(dir, [...(dirs.get(dir) ?? []), f]);
    }
    for (const [dir, fs] of dirs) {
      const total = fs.reduce((n, f) => n + f.matches.length, 0);
      const names = fs.map((f) => `${f.path.slice(dir === "./" ? 0 : dir.length)} (${f.matches.length})`);
      out.push(`${dir} ${plural(total, "match")} in ${plural(fs.length, "file")}: ${names.join(", ")}`
        .replace("matchs", "matches"));
    }
    const first = list[0];
    if (first !== undefined) {
      out.push(`first matches (${first.path}):`, ...first.matches.slice(0, 3).map((m) => `  ${m}`));
    }
  }
  return [...out, ...errors.slice(0, 5), ...(errors.length > 5 ? [`… +${errors.length - 5} more errors`] : [])];
}
