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
// C0 controls except BS (applied as a cursor move), TAB and LF (CR is handled separately), DEL and C1 controls.
// deno-lint-ignore no-control-regex
const CONTROL_RE = /[\x00-\x07\x0b-\x1f\x7f-\x9f]/g;

/**
 * The text as the terminal printed it ({@link printedText}), every line right-trimmed: what a model reads. Backspace
 * overstrike (`N\bN` bold and `_\bN` underline from man and nroff) reads as the plain letter.
 */
export function stripControl(text: string): string {
  return withoutEscapes(text)
    .split("\n")
    .map((line) => printedLine(line).trimEnd())
    .join("\n");
}

/**
 * The text as the terminal printed it, for matching `until`: control sequences removed, `\r` and backspace
 * overwrites applied, and trailing spaces kept (the space after a prompt such as `>>> ` or `Password: ` is real).
 */
export function printedText(text: string): string {
  return withoutEscapes(text).split("\n").map(printedLine).join("\n");
}

/** One line of {@link printedText}: `\r` and backspace overwrites applied, the other controls removed. */
function printedLine(line: string): string {
  return applyBackspaces(lastCarriageSegment(line).replace(CONTROL_RE, ""));
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
  /** Lines hidden behind fold markers. */
  hidden: number;
  /** Fold marker lines. */
  folds: number;
}

/** Lines of context kept before a line that reads as an error inside a folded part. */
export const ERROR_CONTEXT_BEFORE = 1;
/** Lines of context kept after a line that reads as an error inside a folded part. */
export const ERROR_CONTEXT_AFTER = 2;
/**
 * At most this many lines (error lines and their context) are kept inside a folded part: an output that is errors
 * from end to end (a grep for "error" over a tree) still folds. Past it, the fold markers say what is hidden.
 */
export const ERROR_KEEP_MAX = 300;

// What reads as an error: a keyword with a colon or bang after it (error:, Error:, TypeError:, error[E0308]:, fatal:,
// panic:, npm ERR!), tsc's `error TS2322`, apt's `E: `, a Python traceback, and the messages of a program that died or
// could not start or link.
const HARD_ERROR_RES: readonly RegExp[] = [
  /(?:error|exception)\s*(?:\[[^\]]*\])?\s*[:!]/i,
  /\berror\s+[A-Z]+\d+\b/, // tsc's `error TS2322`, C#'s `error CS0103`
  /\b(?:fatal|panic|critical)(?:\[[^\]]*\])?:/i,
  /\bERR!/,
  /^\s*(?:E|F):\s/,
  /^Traceback \(most recent call last\)/,
  /\b(?:Segmentation fault|core dumped|command not found|No such file or directory|Permission denied)\b/,
  /\b(?:undefined reference to|cannot find -l|ld returned \d+ exit status)/,
];
// What reads as a failure: the failure words of test runners and builds (their reducers report these their own way).
const FAILURE_RES: readonly RegExp[] = [
  /\b\d+ errors?\b/,
  /\b(?:FAIL|FAILED|FAILURE|ERROR|FATAL)\b/,
  /\b(?:failed|failure)\b/i,
  /^\s*(?:[✖✗✘×]|not ok \d+)\s/,
  /\bAborted\b/,
];
// ... unless it counts no errors (`0 errors`, `no failures`, `0 failed`).
const NO_ERROR_RE = /\b(?:0|no|zero)\s+(?:errors?|failures?|failed)\b/gi;

// A YAML key that only opens a block (TAP's `error: |-`) says nothing itself.
const YAML_BLOCK_KEY_RE = /^\s*[\w-]+:\s*[|>][-+]?$/;

function matchesAny(line: string, res: readonly RegExp[]): boolean {
  if (line.trim() === "" || line.length > LONG_LINE_LIMIT * 4 || YAML_BLOCK_KEY_RE.test(line)) return false;
  // A count of none is not an error, unless the line also reports one (`0 passed, 2 failed`).
  const t = line.replace(NO_ERROR_RE, "");
  return res.some((re) => re.test(t));
}

/** True for a line that reads as an error or a failure (kept wherever it stands when an output is folded). */
export function isErrorLine(line: string): boolean {
  return matchesAny(line, HARD_ERROR_RES) || matchesAny(line, FAILURE_RES);
}

/**
 * True for a line that reads as an error (not merely a test or build failure word): no semantic reducer may drop
 * one ({@link isErrorLine} is the wider rule the fold keeps).
 */
export function isHardErrorLine(line: string): boolean {
  return matchesAny(line, HARD_ERROR_RES);
}

/**
 * Keep the first FOLD_HEAD and last FOLD_TAIL lines of outputs longer than FOLD_THRESHOLD lines, and
 * every line between them that reads as an error ({@link isErrorLine}) with ERROR_CONTEXT_BEFORE and
 * ERROR_CONTEXT_AFTER lines around it; each hidden run becomes one marker line naming its 1-based
 * line range of the unfolded view.
 */
export function foldLines(lines: readonly string[]): FoldResult {
  if (lines.length <= FOLD_THRESHOLD) return { lines: [...lines], hidden: 0, folds: 0 };
  const tailFrom = lines.length - FOLD_TAIL;
  const keep = new Uint8Array(lines.length);
  keep.fill(1, 0, FOLD_HEAD);
  keep.fill(1, tailFrom);
  let kept = 0;
  for (let i = FOLD_HEAD; i < tailFrom && kept < ERROR_KEEP_MAX; i++) {
    if (!isErrorLine(lines[i] ?? "")) continue;
    const to = Math.min(tailFrom, i + ERROR_CONTEXT_AFTER + 1);
    for (let k = Math.max(FOLD_HEAD, i - ERROR_CONTEXT_BEFORE); k < to && kept < ERROR_KEEP_MAX; k++) {
      if (keep[k] === 0) kept++;
      keep[k] = 1;
    }
  }
  // A hidden run of one or two lines costs no more than its marker: show it.
  for (let i = FOLD_HEAD; i < tailFrom;) {
    if (keep[i] === 1) {
      i++;
      continue;
    }
    let j = i;
    while (j < tailFrom && keep[j] === 0) j++;
    if (j - i < 3) keep.fill(1, i, j);
    i = j;
  }
  const out: string[] = [];
  let hidden = 0;
  let folds = 0;
  for (let i = 0; i < lines.length;) {
    if (keep[i] === 1) {
      out.push(lines[i] ?? "");
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && keep[j] === 0) j++;
    out.push(foldMarker(i + 1, j));
    hidden += j - i;
    folds++;
    i = j;
  }
  return { lines: out, hidden, folds };
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
  if (!elide) return { lines: [...view], hidden: 0, folds: 0 };
  const folded = foldLines(view);
  return { ...folded, lines: folded.lines.map(foldLongLine) };
}
