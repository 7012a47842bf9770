/**
 * Pages of a session's log that fit in one tool result. A page is read as one bounded byte range
 * (never a whole segment or log), rendered by the caller's view, and cut shorter until the JSON of
 * its text fits {@link MAX_PAGE_TEXT_BYTES}; `next_cursor` (or the next line) continues exactly
 * where it stopped. Line numbers are found by scanning newlines in bounded chunks.
 */
import { jsonStringBytes } from "../../base/json_size.ts";
import { completeUtf8Prefix, leadingContinuationBytes, type LogSlice, readLog } from "./files/output_log.ts";

/**
 * The most bytes the JSON of one read's `text` may take: the 1 MiB result limit (lib/mcp/result.ts)
 * less room for the other fields and the short text block.
 */
export const MAX_PAGE_TEXT_BYTES = 992 * 1024;
/** A log byte takes at most 6 JSON bytes (`\u001b`), so a window this small always fits `budget` as plain text. */
function minWindow(budget: number): number {
  return Math.max(1, Math.floor((budget - 2) / 6));
}
/** Chunk size of the newline scan that finds a line's offset. */
const SCAN_CHUNK = 1 << 20;
const NL = 0x0a;
const decoder = new TextDecoder();
const EMPTY = new Uint8Array(0);

const SPARE_MAX = 2;
/** Buffers at least this large are worth keeping for the next page. */
const SPARE_MIN_BYTES = 256 * 1024;

/**
 * Read buffers handed from one page to the next (one pool per Terminal). A fresh multi-MiB buffer per read
 * is garbage the allocator returns to the OS late, if ever; a read holds a buffer only until its text is
 * decoded. A cache, not state: losing it changes nothing but memory. No buffer is made ahead of a read:
 * without a spare, the read allocates exactly the bytes it finds (a few hundred after a short command),
 * so 200 reads finishing at once do not each take a MiB (issue 16 item 5); a large one is kept as a spare.
 */
export class ReadBuffers {
  readonly #spare: Uint8Array[] = [];

  /** A kept buffer of at least `size` bytes, if there is one (it is the caller's until given back). */
  take(size: number): Uint8Array | undefined {
    const i = this.#spare.findIndex((b) => b.length >= size);
    return i >= 0 ? this.#spare.splice(i, 1)[0]! : undefined;
  }

  /** Keeps `buffer` for a later read when it is large and there is room. */
  giveBack(buffer: Uint8Array): void {
    if (this.#spare.length < SPARE_MAX && buffer.length >= SPARE_MIN_BYTES) this.#spare.push(buffer);
  }
}

/** Reads into a spare buffer (if one is big enough), runs `use` on the slice, then keeps the buffer for the next read. */
async function withSlice<T>(
  read: { dir: string; segmentBytes: number; from: number; maxBytes: number; buffers?: ReadBuffers | undefined },
  use: (slice: LogSlice) => T,
): Promise<T> {
  const buffer = read.buffers?.take(read.maxBytes);
  let fresh: Uint8Array | undefined;
  try {
    const slice = await readLog(read.dir, read.segmentBytes, { from: read.from, maxBytes: read.maxBytes, buffer });
    if (!buffer) fresh = new Uint8Array(slice.bytes.buffer, 0, slice.bytes.buffer.byteLength);
    return use(slice);
  } finally {
    const keep = buffer ?? fresh;
    if (keep) read.buffers?.giveBack(keep);
  }
}

/** The slice without its bytes (they live in a reused buffer). */
function detached(slice: LogSlice): LogSlice {
  return { ...slice, bytes: EMPTY };
}

/** What a view makes of a page's text. */
export interface Rendered {
  text: string;
  meta: string | null;
  reducer: string | null;
}

/** Input of {@link readBytePage}. */
export interface BytePageSpec {
  dir: string;
  segmentBytes: number;
  /** Absolute offset to start at (clamped into the log). */
  from: number;
  /** Log bytes to look at, at most. */
  maxBytes: number;
  /** The start may be mid-character: skip leading UTF-8 continuation bytes. */
  alignStart: boolean;
  /** A page that stops before the end of the log ends after its last newline. */
  wholeLines: boolean;
  /** JSON bytes the rendered text may take (default {@link MAX_PAGE_TEXT_BYTES}). */
  budget?: number;
  /** Buffers kept between reads (absent: each read allocates its own). */
  buffers?: ReadBuffers;
  render(text: string, textStart: number): Rendered;
}

/** A rendered page of the log. */
export interface BytePage extends Rendered {
  slice: LogSlice;
  /** Absolute offset of the first byte rendered. */
  textStart: number;
  /** Absolute offset just past the last byte rendered. */
  nextCursor: number;
}

/** Reads one byte range and renders the longest prefix of it whose text fits the budget. */
export async function readBytePage(spec: BytePageSpec): Promise<BytePage> {
  return await withSlice(spec, (slice) => bytePage(spec, slice));
}

function bytePage(spec: BytePageSpec, slice: LogSlice): BytePage {
  const budget = spec.budget ?? MAX_PAGE_TEXT_BYTES;
  const skip = spec.alignStart || slice.truncated ? leadingContinuationBytes(slice.bytes) : 0;
  const bytes = slice.bytes.subarray(skip);
  const textStart = slice.from + skip;
  const reachesEnd = slice.to >= slice.end;
  let limit = bytes.length;
  for (;;) {
    const keep = prefixLength(bytes, limit, spec.wholeLines && !(reachesEnd && limit === bytes.length));
    const rendered = spec.render(decoder.decode(bytes.subarray(0, keep)), textStart);
    const size = jsonStringBytes(rendered.text);
    if (size <= budget || keep <= minWindow(budget)) {
      return { ...rendered, slice: detached(slice), textStart, nextCursor: textStart + keep };
    }
    limit = Math.max(minWindow(budget), Math.min(keep - 1, Math.floor(keep * (budget / size) * 0.98)));
  }
}

/** Bytes of `bytes[0, limit)` to keep: whole characters, and whole lines when asked (unless there is no newline). */
function prefixLength(bytes: Uint8Array, limit: number, wholeLines: boolean): number {
  let keep = charPrefix(bytes, limit);
  if (wholeLines && keep > 0) {
    const nl = bytes.lastIndexOf(NL, keep - 1);
    if (nl >= 0) keep = nl + 1;
  }
  return keep;
}

/** Whole characters of `bytes[0, limit)`, but at least the first character (a page always moves on). */
function charPrefix(bytes: Uint8Array, limit: number): number {
  const keep = completeUtf8Prefix(bytes.subarray(0, limit));
  if (keep > 0 || bytes.length === 0) return keep;
  return Math.max(1, completeUtf8Prefix(bytes.subarray(0, Math.min(4, bytes.length))));
}

/** Where line `line` (1-based) starts, counting lines from `base`. */
export interface LineOffset {
  /** Absolute offset of the line's first byte; the end of the log when there are fewer lines. */
  offset: number;
  /** The log has that line. */
  found: boolean;
  /** Lines seen before the end, when the log ended first. */
  lines: number;
  /** `base` had been rotated out (counting started at the first byte kept). */
  truncated: boolean;
}

/** Which line {@link findLine} looks for. */
export interface LineWanted {
  /** Absolute offset where line 1 starts. */
  base: number;
  /** The line's number, from 1. */
  line: number;
  /** Where the scan borrows its buffer (absent: a fresh one). */
  buffers?: ReadBuffers | undefined;
}

/** Finds a line by scanning newlines in bounded chunks (memory stays one chunk). */
export async function findLine(dir: string, segmentBytes: number, wanted: LineWanted): Promise<LineOffset> {
  const { base, line, buffers } = wanted;
  // Line 1 starts at the base itself (a read from there clamps it into the log and says truncated).
  if (line <= 1) return { offset: base, found: true, lines: 0, truncated: false };
  // A scan reads many chunks: one buffer for all of them.
  const buffer = buffers?.take(SCAN_CHUNK) ?? new Uint8Array(SCAN_CHUNK);
  try {
    return await countLines(dir, segmentBytes, { base, newlines: line - 1, buffer });
  } finally {
    buffers?.giveBack(buffer);
  }
}

/** Scans from `base` past `newlines` newlines, reading into `buffer`. */
async function countLines(
  dir: string,
  segmentBytes: number,
  scan: { base: number; newlines: number; buffer: Uint8Array },
): Promise<LineOffset> {
  const { buffer } = scan;
  let need = scan.newlines;
  let at = scan.base;
  let truncated = false;
  let seen = 0;
  for (;;) {
    const slice = await readLog(dir, segmentBytes, { from: at, maxBytes: SCAN_CHUNK, buffer });
    truncated ||= slice.truncated;
    let i = 0;
    while (need > 0) {
      const nl = slice.bytes.indexOf(NL, i);
      if (nl < 0) break;
      need--;
      seen++;
      i = nl + 1;
    }
    if (need === 0) return { offset: slice.from + i, found: true, lines: seen, truncated };
    if (slice.to >= slice.end || slice.bytes.length === 0) {
      const partial = slice.from + i < slice.to ? 1 : 0;
      return { offset: slice.end, found: false, lines: seen + partial, truncated };
    }
    at = slice.to;
  }
}

/** Input of {@link readLinePage}. */
export interface LinePageSpec {
  dir: string;
  segmentBytes: number;
  /** Absolute offset of the first byte of the first line wanted. */
  from: number;
  /** How many lines are wanted (null: to the end of the log). */
  count: number | null;
  /** JSON bytes the text may take (default {@link MAX_PAGE_TEXT_BYTES}). */
  budget?: number;
  /** Buffers kept between reads (absent: each read allocates its own). */
  buffers?: ReadBuffers;
  /** Turns whole log lines (decoded, newline-terminated except perhaps the last) into display lines, one for one. */
  render(text: string): string[];
}

/** A page of whole log lines. */
export interface LinePage {
  lines: string[];
  slice: LogSlice;
  textStart: number;
  /** Absolute offset just past the last byte shown. */
  nextCursor: number;
  /** Complete lines shown (a cut long line is not counted). */
  complete: number;
  /** The last line shown is longer than a page and was cut at `nextCursor`. */
  cutLine: boolean;
}

/** Reads up to `count` whole lines from `from`, as many as fit the budget (a line longer than a page is cut). */
export async function readLinePage(spec: LinePageSpec): Promise<LinePage> {
  return await withSlice({ ...spec, maxBytes: MAX_PAGE_TEXT_BYTES }, (slice) => linePage(spec, slice));
}

function linePage(spec: LinePageSpec, slice: LogSlice): LinePage {
  const budget = spec.budget ?? MAX_PAGE_TEXT_BYTES;
  const skip = leadingContinuationBytes(slice.bytes);
  const bytes = slice.bytes.subarray(skip);
  const textStart = slice.from + skip;
  const reachesEnd = slice.to >= slice.end;
  let ends = lineEnds(bytes, spec.count);
  let shrunk = false;
  let cutAt: number | null = null;
  for (;;) {
    const last = ends[ends.length - 1];
    let keep: number;
    let complete = ends.length;
    if (cutAt !== null) {
      keep = charPrefix(bytes, cutAt);
      complete = 0;
    } else if (shrunk || (spec.count !== null && ends.length >= spec.count)) keep = last!;
    else if (reachesEnd) {
      keep = bytes.length;
      if (keep > (last ?? 0)) complete++; // the log's last line has no newline yet
    } else keep = last ?? charPrefix(bytes, bytes.length);
    const cutLine = keep > 0 && complete === 0 && !reachesEnd || cutAt !== null;
    const text = decoder.decode(bytes.subarray(0, keep));
    const lines = keep === 0 ? [] : spec.render(text);
    if (text.endsWith("\n")) lines.pop();
    const size = jsonStringBytes(lines.join("\n"));
    if (size <= budget || keep <= minWindow(budget)) {
      return { lines, slice: detached(slice), textStart, nextCursor: textStart + keep, complete, cutLine };
    }
    if (ends.length > 1 && cutAt === null) {
      ends = ends.slice(0, Math.min(ends.length - 1, Math.max(1, Math.floor(ends.length * (budget / size) * 0.98))));
      shrunk = true;
    } else {
      // One line alone is over the budget: show its start.
      cutAt = Math.max(minWindow(budget), Math.min(keep - 1, Math.floor(keep * (budget / size) * 0.98)));
    }
  }
}

/** Offsets just past each newline in `bytes`, at most `max` of them. */
function lineEnds(bytes: Uint8Array, max: number | null): number[] {
  const out: number[] = [];
  for (let i = bytes.indexOf(NL); i >= 0 && (max === null || out.length < max); i = bytes.indexOf(NL, i + 1)) {
    out.push(i + 1);
  }
  return out;
}

/** The newest lines of `text` that fit `budget` JSON bytes, and how many older lines were left out. */
export function fitTail(text: string, budget: number = MAX_PAGE_TEXT_BYTES): { text: string; dropped: number } {
  if (jsonStringBytes(text) <= budget) return { text, dropped: 0 };
  const lines = text.split("\n");
  let size = 2;
  let first = lines.length;
  while (first > 0) {
    const add = jsonStringBytes(lines[first - 1]!) - 2 + (first < lines.length ? 2 : 0);
    if (size + add > budget) break;
    size += add;
    first--;
  }
  return { text: lines.slice(first).join("\n"), dropped: first };
}
