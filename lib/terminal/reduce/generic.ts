/**
 * Generic, tool-agnostic reduction steps: control-sequence stripping, blank-line collapsing,
 * repeat compression, folding of long outputs and of long lines. Pure functions, no I/O.
 */

/** Lines kept before the fold marker when an output is folded. */
export const FOLD_HEAD = 30;
/** Lines kept after the fold marker when an output is folded. */
export const FOLD_TAIL = 20;
/** Outputs with more lines than this are folded (when eliding). */
export const FOLD_THRESHOLD = 60;
/** Lines longer than this many UTF-16 units are folded (when eliding). */
export const LONG_LINE_LIMIT = 2000;
/** UTF-16 units kept at the start of a folded long line. */
export const LONG_LINE_HEAD = 1200;
/** UTF-16 units kept at the end of a folded long line. */
export const LONG_LINE_TAIL = 600;
/** A run of at least this many identical non-empty lines is compressed to one line. */
export const REPEAT_MIN = 3;

// CHA to column 1 (ESC [ G, ESC [ 0 G, ESC [ 1 G) moves to the line start exactly like \r (npm spinners use it).
// deno-lint-ignore no-control-regex
const CHA_HOME_RE = /\x1b\[[01]?G/g;
// OSC: ESC ] ... terminated by BEL or ST (ESC \). Includes OSC 133 shell-integration marks.
// deno-lint-ignore no-control-regex
const OSC_RE = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;
// DCS (P), SOS (X), PM (^), APC (_): payload up to ST.
// deno-lint-ignore no-control-regex
const STRING_SEQ_RE = /\x1b[PX^_][\s\S]*?\x1b\\/g;
// CSI: ESC [ parameters intermediates final. Also the single-unit C1 CSI (U+009B).
// deno-lint-ignore no-control-regex
const CSI_RE = /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]/g;
// Any other escape: ESC, optional intermediates, one final byte (ESC 7, ESC (B, ESC =, ...).
// deno-lint-ignore no-control-regex
const ESC_OTHER_RE = /\x1b[\x20-\x2f]*[\x30-\x7e]?/g;
// C0 controls except TAB and LF (CR is handled separately), DEL and C1 controls.
// deno-lint-ignore no-control-regex
const CONTROL_RE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Strip terminal control sequences and apply carriage-return overwrites; right-trims every line. */
export function stripControl(text: string): string {
  return withoutEscapes(text)
    .split("\n")
    .map((line) => lastCarriageSegment(line).replace(CONTROL_RE, "").trimEnd())
    .join("\n");
}

/**
 * The text as the terminal printed it, for matching `until`: control sequences removed, `\r` and backspace
 * overwrites applied, and trailing spaces kept (the space after a prompt such as `>>> ` or `Password: ` is real).
 */
export function printedText(text: string): string {
  return withoutEscapes(text)
    .split("\n")
    .map((line) => applyBackspaces(lastCarriageSegment(line)).replace(CONTROL_RE, ""))
    .join("\n");
}

/** CRLF as LF, CHA-to-column-1 as CR, every escape sequence removed. */
function withoutEscapes(text: string): string {
  return text
    .replace(/\r+\n/g, "\n")
    .replace(CHA_HOME_RE, "\r")
    .replace(OSC_RE, "")
    .replace(STRING_SEQ_RE, "")
    .replace(CSI_RE, "")
    .replace(ESC_OTHER_RE, "");
}

/** A backspace moves the cursor left and what follows overwrites (a line editor's `x\b \b` erases x). */
function applyBackspaces(line: string): string {
  if (!line.includes("\b")) return line;
  const cells: string[] = [];
  let col = 0;
  for (const ch of line) {
    if (ch === "\b") {
      col = Math.max(0, col - 1);
      continue;
    }
    cells[col++] = ch;
  }
  // Spaces at or after the cursor are what an erasing ` \b` left: blank, not text.
  let end = cells.length;
  while (end > col && cells[end - 1] === " ") end--;
  return cells.slice(0, end).join("");
}

/** What a terminal shows of a line rewritten with \r: the last non-empty segment. */
function lastCarriageSegment(line: string): string {
  if (!line.includes("\r")) return line;
  const parts = line.split("\r");
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i];
    if (part !== undefined && part.length > 0) return part;
  }
  return "";
}

/** Estimated token count: ceil(UTF-16 length / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Split text into lines; an empty text has no lines and a final newline adds no line. */
export function toLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Collapse runs of blank lines to one and drop leading and trailing blank lines. */
export function collapseBlankLines(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const blank = line.trim() === "";
    if (blank && (out.length === 0 || out[out.length - 1] === "")) continue;
    out.push(blank ? "" : line);
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}

/** Marker appended to a line that stood for `count` identical consecutive lines: `text  (×count)`. */
export function repeatMarker(line: string, count: number): string {
  return `${line}  (×${count})`;
}

/** Compress runs of REPEAT_MIN or more identical non-empty lines into one line plus `  (×N)`. */
export function compressRepeats(lines: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    let j = i + 1;
    while (j < lines.length && lines[j] === line) j++;
    const run = j - i;
    if (line !== "" && run >= REPEAT_MIN) out.push(repeatMarker(line, run));
    else for (let k = i; k < j; k++) out.push(line);
    i = j;
  }
  return out;
}

/** The marker line that replaces hidden lines `from`..`to` (1-based, inclusive, in the unfolded view). */
export function foldMarker(from: number, to: number): string {
  const count = to - from + 1;
  return `… ${count} lines hidden (lines ${from}-${to} of the unfolded view); ` +
    `pty_read full=true for all, line_range="${from}:${to}" for these …`;
}

/** Result of folding a list of lines. */
export interface FoldResult {
  lines: string[];
  hidden: number;
}

/**
 * Keep the first FOLD_HEAD and last FOLD_TAIL lines of outputs longer than FOLD_THRESHOLD lines,
 * with one marker line in between naming the hidden 1-based line range of the unfolded view.
 */
export function foldLines(lines: readonly string[]): FoldResult {
  if (lines.length <= FOLD_THRESHOLD) return { lines: [...lines], hidden: 0 };
  const from = FOLD_HEAD + 1;
  const to = lines.length - FOLD_TAIL;
  return {
    lines: [...lines.slice(0, FOLD_HEAD), foldMarker(from, to), ...lines.slice(to)],
    hidden: to - from + 1,
  };
}

/** Fold one line longer than LONG_LINE_LIMIT UTF-16 units to head + marker + tail, keeping surrogate pairs whole. */
export function foldLongLine(line: string): string {
  if (line.length <= LONG_LINE_LIMIT) return line;
  let head = LONG_LINE_HEAD;
  if (isHighSurrogate(line.charCodeAt(head - 1))) head--;
  let tail = line.length - LONG_LINE_TAIL;
  if (isLowSurrogate(line.charCodeAt(tail))) tail++;
  const omitted = tail - head;
  return `${line.slice(0, head)} …[${omitted} chars omitted]… ${line.slice(tail)}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Blank collapse + repeat compression: the unfolded view of a list of lines. */
export function normalizeLines(lines: readonly string[]): string[] {
  return compressRepeats(collapseBlankLines(lines));
}

/** Apply folding (when `elide`) to an unfolded view: long outputs first, then long lines. */
export function elideLines(view: readonly string[], elide: boolean): FoldResult {
  if (!elide) return { lines: [...view], hidden: 0 };
  const folded = foldLines(view);
  return { lines: folded.lines.map(foldLongLine), hidden: folded.hidden };
}
