/**
 * The durable byte log of a session: fixed-size segment files written by the output sink (see
 * platform/output_sink.ts). A cursor is an absolute byte offset since the session opened; it stays
 * valid when old segments are deleted, and a read from a deleted part says so (`truncated`).
 *
 * A writer restarted after the first one died writes under its own prefix from a base past every
 * existing segment, so the log can have gaps: bytes no file holds (lost while no writer ran, or a
 * segment deleted by someone else). A read that starts in a gap continues at the next byte on disk
 * and reports the gap; cursors never move backwards.
 */
import { join } from "node:path";
import { parseGapMarkerName, parseSegmentName } from "../../../platform/mod.ts";

/** Where the log starts and ends, in absolute bytes. */
export interface LogExtent {
  /** First byte still on disk. */
  start: number;
  /** One past the last byte written (or the base of a restarted writer that has not written yet). */
  end: number;
  /** Segment indexes present, ascending. */
  segments: number[];
}

/** Everything in a segment directory, with each file assigned to the writer generation that owns it. */
export interface LogLayout extends LogExtent {
  /** The file holding each of `segments` (same order). */
  files: string[];
  /** Bases of restarted writers (from `gap.<base>` markers and file names), ascending; 0 is not listed. */
  bases: number[];
  /** `gap.<base>` marker files present. */
  markers: string[];
  /**
   * Files an older writer wrote at or past a newer writer's base (a dying writer draining its pipe after a restart):
   * superseded, never read, removed by pruning.
   */
  strays: string[];
  /** Size of the last segment. */
  lastSize: number;
}

/**
 * Reads the segment directory and assigns files to writer generations. A missing directory is an empty log.
 * The directory listing and the one stat are synchronous: retention keeps the directory to a few entries,
 * and sends and reads ask for this on every call (a hop to the I/O thread pool costs more than the work).
 */
// deno-lint-ignore require-await
export async function scanLog(dir: string, segmentBytes: number): Promise<LogLayout> {
  return scanLogSync(dir, segmentBytes);
}

function scanLogSync(dir: string, segmentBytes: number): LogLayout {
  const found: { base: number; index: number; name: string }[] = [];
  const markers: string[] = [];
  const baseSet = new Set<number>();
  try {
    for (const entry of Deno.readDirSync(dir)) {
      const seg = parseSegmentName(entry.name);
      if (seg) {
        found.push({ ...seg, name: entry.name });
        if (seg.base > 0) baseSet.add(seg.base);
        continue;
      }
      const marker = parseGapMarkerName(entry.name);
      if (marker !== null) {
        markers.push(entry.name);
        baseSet.add(marker);
      }
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  const bases = [...baseSet].sort((a, b) => a - b);
  // A file belongs to its writer only below the next writer's base.
  const nextBase = (b: number) => bases.find((x) => x > b) ?? Infinity;
  const valid = found.filter((f) => f.index < nextBase(f.base)).sort((a, b) => a.index - b.index);
  const strays = found.filter((f) => f.index >= nextBase(f.base)).map((f) => f.name);
  const segments = valid.map((f) => f.index);
  const files = valid.map((f) => f.name);
  const newestBase = bases[bases.length - 1] ?? 0;
  const layout = { segments, files, bases, markers: markers.sort(), strays, lastSize: 0 };
  if (valid.length === 0) {
    // Nothing on disk: a restarted writer's base still holds the cursor (never back to 0).
    return { ...layout, start: newestBase * segmentBytes, end: newestBase * segmentBytes };
  }
  const last = valid[valid.length - 1]!;
  let lastSize = 0;
  try {
    lastSize = Deno.statSync(join(dir, last.name)).size;
  } catch {
    lastSize = 0;
  }
  const end = Math.max(last.index * segmentBytes + lastSize, newestBase * segmentBytes);
  return { ...layout, lastSize, start: valid[0]!.index * segmentBytes, end };
}

/** What {@link LogEnds} keeps of a segment directory it listed. */
interface ListedLog {
  segmentBytes: number;
  ino: number | null;
  /** The directory's mtime before it was listed (ms). */
  mtime: number;
  /** The last segment's file and index (null: none), and the newest writer's base offset. */
  last: string | null;
  lastIndex: number;
  floor: number;
}

/**
 * A directory whose mtime is at least this much older than the moment it was listed had no entry added or removed
 * since (file times come from a clock that runs a tick behind; a tick is at most 10 ms).
 */
const SETTLED_DIR_MS = 50;

/**
 * The end of a session's log, as {@link logExtent} gives it, for the send path: while the segment directory is
 * unchanged since this instance listed it (same inode and mtime, and that mtime was settled when it was listed), the
 * end is the last segment's size from one stat, with no listing. Any file made or removed there (a rotation, a
 * restarted writer's segment or gap marker, pruning) changes the directory's mtime, and it is listed again.
 */
export class LogEnds {
  readonly #dirs = new Map<string, ListedLog>();

  /** The end of the log in `dir` (one past the last byte written). */
  end(dir: string, segmentBytes: number): number {
    let info: Deno.FileInfo | null = null;
    try {
      info = Deno.statSync(dir);
    } catch {
      // no directory: listed below (an empty log)
    }
    const mtime = info?.mtime?.getTime() ?? null;
    const known = this.#dirs.get(dir);
    if (known && info && known.segmentBytes === segmentBytes && known.ino === info.ino && known.mtime === mtime) {
      if (known.last === null) return known.floor;
      try {
        return Math.max(known.lastIndex * segmentBytes + Deno.statSync(join(dir, known.last)).size, known.floor);
      } catch {
        // gone meanwhile: listed again below
      }
    }
    const listedAt = Date.now();
    const layout = scanLogSync(dir, segmentBytes);
    this.#dirs.delete(dir);
    if (info && info.ino !== null && mtime !== null && listedAt - mtime >= SETTLED_DIR_MS) {
      // Sessions closed leave entries: a long-lived server starts over now and then (a miss only lists again).
      if (this.#dirs.size >= 4096) this.#dirs.clear();
      const n = layout.segments.length;
      this.#dirs.set(dir, {
        segmentBytes,
        ino: info.ino,
        mtime,
        last: n > 0 ? layout.files[n - 1]! : null,
        lastIndex: n > 0 ? layout.segments[n - 1]! : 0,
        floor: (layout.bases[layout.bases.length - 1] ?? 0) * segmentBytes,
      });
    }
    return layout.end;
  }

  /** Forgets `dir` (a closed session's log). */
  forget(dir: string): void {
    this.#dirs.delete(dir);
  }
}

/** Reads the segment directory. A missing directory is an empty log. */
export async function logExtent(dir: string, segmentBytes: number): Promise<LogExtent> {
  const { start, end, segments } = await scanLog(dir, segmentBytes);
  return { start, end, segments };
}

/** Bytes no file holds, met by a read: lost while no writer ran, or deleted under a live session. */
export interface LogGap {
  /** First missing byte. */
  from: number;
  /** First byte after the gap. */
  to: number;
  /** `LOG_WRITER_RESTARTED`: a new writer started at `to`; `LOG_SEGMENT_MISSING`: a segment was deleted. */
  code: "LOG_WRITER_RESTARTED" | "LOG_SEGMENT_MISSING";
}

/** Where a read that starts at `at` (inside the log, in no file) continues; null when nothing is after it. */
function afterGap(layout: LogLayout, segmentBytes: number, at: number): LogGap | null {
  const index = Math.floor(at / segmentBytes);
  const next = layout.segments.find((i) => i > index);
  const to = next !== undefined ? next * segmentBytes : layout.end;
  if (to <= at) return null;
  const base = next ?? Math.floor(layout.end / segmentBytes);
  const restarted = layout.bases.some((b) => b > index && b <= base);
  return { from: at, to, code: restarted ? "LOG_WRITER_RESTARTED" : "LOG_SEGMENT_MISSING" };
}

/** A slice of the log. */
export interface LogSlice {
  bytes: Uint8Array;
  /** Absolute offset of bytes[0]. */
  from: number;
  /** Offset just past the returned bytes. */
  to: number;
  /** The end of the log when it was read. */
  end: number;
  /** The requested start had already been deleted by rotation, or was in a gap; `from` is the first byte kept. */
  truncated: boolean;
  /** Gaps skipped before `from`, or met right after `to` (a slice never spans one: it ends where a gap begins). */
  gaps: LogGap[];
}

/** What {@link readLog} reads. */
export interface LogRead {
  /** Absolute offset to start at (clamped into the log). */
  from: number;
  /** The most bytes to return. */
  maxBytes: number;
  /** Reused for the bytes when large enough (the slice then views it: use it before the next read into it). */
  buffer?: Uint8Array | undefined;
}

/**
 * Reads up to `maxBytes` from absolute offset `from` (clamped into the log). A start inside a gap moves to the next
 * byte on disk (`truncated`, and the gap in `gaps`); a gap after the start ends the slice there (also `truncated`
 * with the gap in `gaps`, and `to` before `end`: the next read continues after it).
 */
export async function readLog(dir: string, segmentBytes: number, read: LogRead): Promise<LogSlice> {
  const { from, maxBytes, buffer } = read;
  const layout = await scanLog(dir, segmentBytes);
  let truncated = from < layout.start;
  let start = Math.min(Math.max(from, layout.start), layout.end);
  const gaps: LogGap[] = [];
  // Before the first byte on disk is retention's doing, unless a writer was restarted in between.
  if (truncated && layout.bases.some((b) => b > Math.floor(from / segmentBytes) && b * segmentBytes <= start)) {
    gaps.push({ from, to: start, code: "LOG_WRITER_RESTARTED" });
  }
  for (;;) {
    const stop = Math.min(layout.end, start + maxBytes);
    const span = await readSpan(dir, layout, segmentBytes, { start, stop, buffer });
    const gap = span.bytes.length === 0 && start < layout.end ? afterGap(layout, segmentBytes, start) : null;
    if (gap) {
      gaps.push(gap);
      truncated = true;
      start = gap.to;
      continue;
    }
    // Ended early at a gap (not at a segment retention removed meanwhile): say so now, the next read skips it.
    const ahead = span.to < stop && (await stillOnDisk(dir, layout, segmentBytes, span.to))
      ? afterGap(layout, segmentBytes, span.to)
      : null;
    if (ahead) {
      gaps.push(ahead);
      truncated = true;
    }
    return { ...span, from: start, end: layout.end, truncated, gaps };
  }
}

/** Whether the segment holding byte `at` still exists (or never did: a missing index is a gap, not retention). */
async function stillOnDisk(dir: string, layout: LogLayout, segmentBytes: number, at: number): Promise<boolean> {
  const k = layout.segments.indexOf(Math.floor(at / segmentBytes));
  if (k < 0) return true;
  return await Deno.stat(join(dir, layout.files[k]!)).then(() => true, () => false);
}

/** Spans up to this size are read with synchronous calls (see readSpan). */
const SYNC_READ_BYTES = 256 * 1024;

/** Reads `[start, stop)` from the segment files; stops early where a file is missing or short. */
async function readSpan(
  dir: string,
  layout: LogLayout,
  segmentBytes: number,
  span: { start: number; stop: number; buffer: Uint8Array | undefined },
): Promise<{ bytes: Uint8Array; to: number }> {
  const { start, stop, buffer } = span;
  const size = Math.max(0, stop - start);
  // A reused buffer spares a fresh allocation per read (freed memory is returned to the OS late, if ever).
  const out = buffer && buffer.length >= size ? buffer.subarray(0, size) : new Uint8Array(size);
  let at = start;
  while (at < stop) {
    const index = Math.floor(at / segmentBytes);
    const offset = at - index * segmentBytes;
    const want = Math.min(stop - at, segmentBytes - offset);
    const k = layout.segments.indexOf(index);
    let got = 0;
    try {
      if (k < 0) throw new Deno.errors.NotFound();
      const path = join(dir, layout.files[k]!);
      // A small span (a command's output) is read synchronously: a few system calls on the page cache cost less
      // than their hops to the I/O thread pool; a large one is read without holding up other calls.
      if (want <= SYNC_READ_BYTES) {
        const file = Deno.openSync(path, { read: true });
        try {
          file.seekSync(offset, Deno.SeekMode.Start);
          while (got < want) {
            const n = file.readSync(out.subarray(at - start + got, at - start + want));
            if (n === null) break;
            got += n;
          }
        } finally {
          file.close();
        }
      } else {
        const file = await Deno.open(path, { read: true });
        try {
          await file.seek(offset, Deno.SeekMode.Start);
          while (got < want) {
            const n = await file.read(out.subarray(at - start + got, at - start + want));
            if (n === null) break;
            got += n;
          }
        } finally {
          file.close();
        }
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    if (got < want) {
      // The segment vanished, is short (its writer died) or is missing (a gap): stop here.
      return { bytes: out.subarray(0, at - start + got), to: at + got };
    }
    at += want;
  }
  return { bytes: out, to: stop };
}

/** The most `gap.<base>` markers kept (older ones only name the cause of gaps long read). */
const MAX_MARKERS = 64;

/**
 * Applies retention to a segment directory: deletes superseded files, empty segments a dead writer left before a
 * restart, then the oldest segments so at most `keep` remain, and markers no kept byte needs. The newest segment
 * (the one the writer is filling) is never deleted. Idempotent and safe to run from several processes at once: each
 * decides from its own listing, a file already gone is not an error, and a segment created meanwhile is newer than
 * anything it deletes. Returns how many segments it deleted.
 */
export async function pruneLog(dir: string, segmentBytes: number, keep: number): Promise<number> {
  const layout = await scanLog(dir, segmentBytes);
  const remove = (name: string) => Deno.remove(join(dir, name)).then(() => true, () => false);
  for (const name of layout.strays) await remove(name);
  let removed = 0;
  const kept: number[] = [];
  for (let k = 0; k < layout.segments.length; k++) {
    const name = layout.files[k]!;
    const isLast = k === layout.segments.length - 1;
    const nextName = layout.files[k + 1];
    // A writer's last file followed by another writer's file was left by a writer that died; empty, it holds nothing.
    if (!isLast && nextName && generationOf(nextName) !== generationOf(name)) {
      const size = await sizeOf(dir, name);
      if (size === null) continue; // another process removed it: it is neither kept nor ours to count
      if (size === 0) {
        if (await remove(name)) removed++;
        continue;
      }
    }
    kept.push(k);
  }
  const excess = kept.length - Math.max(1, keep);
  for (const k of kept.slice(0, Math.max(0, excess))) {
    if (await remove(layout.files[k]!)) removed++;
  }
  const firstKept = layout.segments[kept[Math.max(0, excess)] ?? 0] ?? 0;
  const markers = layout.markers.map((name) => ({ name, base: parseGapMarkerName(name)! }))
    .sort((a, b) => a.base - b.base);
  for (const [i, m] of markers.entries()) {
    const newest = i === markers.length - 1;
    if (!newest && (m.base < firstKept || markers.length - i > MAX_MARKERS)) await remove(m.name);
  }
  return removed;
}

function generationOf(fileName: string): number {
  return parseSegmentName(fileName)?.base ?? 0;
}

async function sizeOf(dir: string, name: string): Promise<number | null> {
  try {
    return (await Deno.stat(join(dir, name))).size;
  } catch {
    return null;
  }
}

/** Length of the longest prefix of `bytes` that ends on a complete UTF-8 character. */
export function completeUtf8Prefix(bytes: Uint8Array): number {
  let i = bytes.length;
  // Look back at most 3 bytes for the lead byte of a possibly incomplete sequence.
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const b = bytes[bytes.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (need > back) i = bytes.length - back;
    break;
  }
  return i;
}

/** Number of leading continuation bytes (a read that starts mid-character skips them). */
export function leadingContinuationBytes(bytes: Uint8Array): number {
  let n = 0;
  while (n < bytes.length && n < 3 && (bytes[n]! & 0xc0) === 0x80) n++;
  return n;
}
