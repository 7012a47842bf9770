/**
 * The durable byte log of a session: fixed-size segment files written by the output sink (see
 * platform/output_sink.ts). A cursor is an absolute byte offset since the session opened; it stays
 * valid when old segments are deleted, and a read from a deleted part says so (`truncated`).
 */
import { join } from "node:path";
import { segmentIndex, segmentName } from "../../platform/mod.ts";

/** Where the log starts and ends, in absolute bytes. */
export interface LogExtent {
  /** First byte still on disk. */
  start: number;
  /** One past the last byte written. */
  end: number;
  /** Segment indexes present, ascending. */
  segments: number[];
}

/** Reads the segment directory. A missing directory is an empty log. */
export async function logExtent(dir: string, segmentBytes: number): Promise<LogExtent> {
  const indexes: number[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const i = segmentIndex(entry.name);
      if (i !== null) indexes.push(i);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  indexes.sort((a, b) => a - b);
  if (indexes.length === 0) return { start: 0, end: 0, segments: [] };
  const last = indexes[indexes.length - 1]!;
  let lastSize = 0;
  try {
    lastSize = (await Deno.stat(join(dir, segmentName(last)))).size;
  } catch {
    lastSize = 0;
  }
  return { start: indexes[0]! * segmentBytes, end: last * segmentBytes + lastSize, segments: indexes };
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
  /** The requested start had already been deleted by rotation; `from` is the first byte kept. */
  truncated: boolean;
}

/** Reads up to `maxBytes` from absolute offset `from` (clamped into the log). */
export async function readLog(dir: string, segmentBytes: number, from: number, maxBytes: number): Promise<LogSlice> {
  const ext = await logExtent(dir, segmentBytes);
  const truncated = from < ext.start;
  const start = Math.min(Math.max(from, ext.start), ext.end);
  const stop = Math.min(ext.end, start + maxBytes);
  const out = new Uint8Array(stop - start);
  let at = start;
  while (at < stop) {
    const index = Math.floor(at / segmentBytes);
    const offset = at - index * segmentBytes;
    const want = Math.min(stop - at, segmentBytes - offset);
    let got = 0;
    try {
      const file = await Deno.open(join(dir, segmentName(index)), { read: true });
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
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    if (got < want) {
      // The segment vanished or is shorter than its size said (pruned under us): stop here.
      return { bytes: out.subarray(0, at - start + got), from: start, to: at + got, end: ext.end, truncated };
    }
    at += want;
  }
  return { bytes: out, from: start, to: stop, end: ext.end, truncated };
}

/** Deletes the oldest segments so at most `keep` remain. The newest is never deleted. */
export async function pruneLog(dir: string, segmentBytes: number, keep: number): Promise<number> {
  const ext = await logExtent(dir, segmentBytes);
  const excess = ext.segments.length - Math.max(1, keep);
  let removed = 0;
  for (const index of ext.segments.slice(0, Math.max(0, excess))) {
    await Deno.remove(join(dir, segmentName(index))).catch(() => {});
    removed++;
  }
  return removed;
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
