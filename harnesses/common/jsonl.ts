/** JSONL and directory helpers shared by the harness adapters' transcript rules. */
import { join } from "node:path";

/** A JSON object record (anything else on a line is ignored). */
export type JsonRecord = Record<string, unknown>;

/**
 * Parses JSONL text into object records. Lines that do not parse are skipped, which makes a torn
 * (partially written) last line harmless: it is simply not there yet.
 */
export function parseJsonl(text: string): JsonRecord[] {
  const out: JsonRecord[] = [];
  for (const line of text.split("\n")) {
    const l = line.trim();
    if (l === "" || l[0] !== "{") continue;
    try {
      const v: unknown = JSON.parse(l);
      if (isRecord(v)) out.push(v);
    } catch {
      // torn or foreign line
    }
  }
  return out;
}

/** Parses a whole JSONL text with an incremental parser (how each harness's `parseTurns` is built). */
export function parseAllWith<T>(parser: { push(r: JsonRecord): void; turns(): T }, text: string): T {
  for (const r of parseJsonl(text)) parser.push(r);
  return parser.turns();
}

/** True for a plain JSON object. */
export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `v[key]` when it is an object, else null. */
export function rec(v: unknown, key: string): JsonRecord | null {
  if (!isRecord(v)) return null;
  const x = v[key];
  return isRecord(x) ? x : null;
}

/** `v[key]` when it is a string, else null. */
export function str(v: unknown, key: string): string | null {
  if (!isRecord(v)) return null;
  const x = v[key];
  return typeof x === "string" ? x : null;
}

/** Reads the first line of a file (up to `maxBytes`), or null when the file cannot be read. */
export async function readFirstLine(path: string, maxBytes = 4 * 1024 * 1024): Promise<string | null> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return null;
  }
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    const buf = new Uint8Array(64 * 1024);
    while (total < maxBytes) {
      const n = await file.read(buf);
      if (n === null) break;
      const part = buf.slice(0, n);
      const nl = part.indexOf(10);
      if (nl >= 0) {
        chunks.push(part.slice(0, nl));
        break;
      }
      chunks.push(part);
      total += n;
    }
    const all = new Uint8Array(chunks.reduce((s, c) => s + c.length, 0));
    let off = 0;
    for (const c of chunks) {
      all.set(c, off);
      off += c.length;
    }
    return new TextDecoder().decode(all);
  } catch {
    return null;
  } finally {
    file.close();
  }
}

/** A file with its last-modified time (ms epoch). */
export interface DatedFile {
  path: string;
  mtime: number;
}

/** `*.jsonl` files directly in `dir` (optionally filtered by name) modified at or after `since`. */
export async function jsonlFilesSince(dir: string, since: number, nameRe = /\.jsonl$/): Promise<DatedFile[]> {
  const out: DatedFile[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !nameRe.test(entry.name)) continue;
      const path = join(dir, entry.name);
      try {
        const mtime = (await Deno.stat(path)).mtime?.getTime() ?? 0;
        if (mtime >= since) out.push({ path, mtime });
      } catch {
        // vanished between listing and stat
      }
    }
  } catch {
    // directory absent: nothing written yet
  }
  return out;
}

/** Newest first, ties by path so the order is stable. */
export function newestFirst(files: DatedFile[]): string[] {
  return [...files].sort((a, b) => b.mtime - a.mtime || a.path.localeCompare(b.path)).map((f) => f.path);
}

/** The real path of `p`, or `p` itself when it cannot be resolved. */
export async function realPathOr(p: string): Promise<string> {
  try {
    return await Deno.realPath(p);
  } catch {
    return p;
  }
}
