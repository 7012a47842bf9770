/**
 * Small helpers shared by the semantic reducers.
 */

/** A semantic reducer: control-stripped output lines in, reduced lines out, or null when unrecognised. */
export type Reducer = (lines: readonly string[]) => string[] | null;

const STACK_RE = /^\s*at\s+\S/;
const CARET_RE = /^\s*(?:\d+\s*)?\|?\s*[\^~]+[\^~\s-]*$/;

/** True for a JavaScript/Python-style stack frame line (`    at foo (file:1:2)`). */
export function isStackLine(line: string): boolean {
  return STACK_RE.test(line);
}

/** True for a caret/underline line under a code frame (`     ^`, `   |  ~~~`). */
export function isCaretLine(line: string): boolean {
  return CARET_RE.test(line) && /[\^~]/.test(line);
}

/** True for a numbered source line of a code frame (`  11 |   code`, `> 11 | code`, `    11|  code`). */
export function isCodeFrameLine(line: string): boolean {
  return /^\s*>?\s*\d+\s*\|/.test(line) || /^\s*\|/.test(line);
}

// Where an assertion's diff starts: its header (node's `+ actual - expected`, deno's `[Diff] Actual / Expected`,
// jest's `- Expected` / `+ Received`) or its first `+`/`-` line.
const DIFF_START_RE =
  /^\s*(?:\+ actual - expected|- expected \+ actual|\[Diff\] Actual \/ Expected|- Expected|\+ Received)\b/i;
const DIFF_LINE_RE = /^\s*[-+](?:\s|$)/;
// One side of an assertion (node's `actual: 2` / `expected: 3`, jest's `Expected: 3` / `Received: 2`).
const SIDE_RE = /^\s*(?:actual|expected|received)\s*:/i;
/** Lines of one assertion's diff (header, `+`/`-` lines and the context between them) a condensed block keeps. */
export const DIFF_MAX = 40;
// A message line that shows both sides of a comparison.
const BOTH_SIDES_RE = /\S\s+(?:!==?|===?)\s+\S/;
/** Lines of one side of an assertion (`expected:` and a YAML block under it) a condensed block keeps. */
const SIDE_MAX = 12;

/** Indentation of a line (leading spaces). */
function indentOf(line: string): number {
  return line.search(/\S|$/);
}

/**
 * Condense an error block (message, code frame, stack): keeps up to `max` message lines, the assertion's whole diff
 * (both sides, up to {@link DIFF_MAX} lines, context rows included), and the first stack frame; drops code frames,
 * caret lines, further frames and blank lines. An assertion's `actual:`/`expected:` lines (node prints them after the
 * stack; TAP as YAML blocks) are kept wherever they stand when there is no diff, or its diff was longer than kept.
 */
export function condenseBlock(block: readonly string[], max = 6): string[] {
  const out: string[] = [];
  const sideLines = new Set<number>();
  let plain = 0;
  let diff = 0;
  let inDiff = false;
  let sawStack = false;
  for (let i = 0; i < block.length; i++) {
    const line = block[i] ?? "";
    if (line.trim() === "") continue;
    if (SIDE_RE.test(line)) {
      // The side, and the YAML block under it (more indented) when it opens one, up to SIDE_MAX lines.
      inDiff = false;
      const indent = indentOf(line);
      let end = i + 1;
      if (/:\s*(?:[|>][-+]?)?$/.test(line)) {
        while (end < block.length && ((block[end] ?? "").trim() === "" || indentOf(block[end] ?? "") > indent)) end++;
      }
      for (const l of block.slice(i, end).filter((l) => l.trim() !== "").slice(0, SIDE_MAX)) {
        sideLines.add(out.length);
        out.push(l);
      }
      i = end - 1;
      continue;
    }
    if (isStackLine(line)) {
      if (!sawStack) out.push(line);
      sawStack = true;
      inDiff = false;
      continue;
    }
    if (sawStack) continue;
    if (!inDiff && (DIFF_START_RE.test(line) || DIFF_LINE_RE.test(line))) inDiff = true;
    if (inDiff) {
      // A caret under a diff line points at the first difference; the lines themselves are what matter.
      if (isCaretLine(line)) continue;
      if (diff++ < DIFF_MAX) out.push(line);
      continue;
    }
    if (isCaretLine(line) || isCodeFrameLine(line)) continue;
    const next = block[i + 1];
    if (next !== undefined && isCaretLine(next)) continue; // source line above a caret
    if (plain++ < max) out.push(line);
  }
  // A whole diff, or a message that names both (`2 !== 3`, `assert 2 == 3`), already shows both sides.
  const shown = (diff > 0 && diff <= DIFF_MAX) ||
    out.some((l, k) => !sideLines.has(k) && BOTH_SIDES_RE.test(l));
  return shown ? out.filter((_, k) => !sideLines.has(k)) : out;
}

/** Index of the first line at or after `from` matching `re`, or -1. */
export function findIndex(lines: readonly string[], re: RegExp, from = 0): number {
  for (let i = from; i < lines.length; i++) if (re.test(lines[i] ?? "")) return i;
  return -1;
}

/** Index of the last line matching `re`, or -1. */
export function findLastIndex(lines: readonly string[], re: RegExp): number {
  for (let i = lines.length - 1; i >= 0; i--) if (re.test(lines[i] ?? "")) return i;
  return -1;
}

/** Keep only the last occurrence of each line matching one of the patterns (live-updated summaries). */
export function lastOccurrences(lines: readonly string[], patterns: readonly RegExp[]): string[] {
  const lastIndex = new Map<number, number>();
  lines.forEach((line, i) => {
    const p = patterns.findIndex((re) => re.test(line));
    if (p >= 0) lastIndex.set(p, i);
  });
  return lines.filter((line, i) => {
    const p = patterns.findIndex((re) => re.test(line));
    return p < 0 || lastIndex.get(p) === i;
  });
}

/** Remove consecutive duplicate lines (keeps the first of each run). */
export function dedupeConsecutive(lines: readonly string[]): string[] {
  return lines.filter((line, i) => i === 0 || line !== lines[i - 1]);
}

/** `n noun` with a plural `s` when n !== 1. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
