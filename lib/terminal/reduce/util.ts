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

/**
 * Condense an error block (message, code frame, stack): keeps the message lines and the first stack
 * frame, drops code frames, caret lines, further frames and blank lines; at most `max` lines.
 */
export function condenseBlock(block: readonly string[], max = 6): string[] {
  const out: string[] = [];
  let sawStack = false;
  for (let i = 0; i < block.length && out.length < max; i++) {
    const line = block[i] ?? "";
    if (line.trim() === "") continue;
    if (isStackLine(line)) {
      if (!sawStack) out.push(line);
      sawStack = true;
      continue;
    }
    if (sawStack) continue;
    if (isCaretLine(line) || isCodeFrameLine(line)) continue;
    const next = block[i + 1];
    if (next !== undefined && isCaretLine(next)) continue; // source line above a caret
    out.push(line);
  }
  return out;
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
