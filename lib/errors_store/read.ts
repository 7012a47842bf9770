/**
 * Reading the aggregate without ever blocking: a FIFO, device, directory or symlink where the file
 * should be is refused from lstat before anything is opened, the opened handle must still be that
 * same regular file, the size is capped, and the whole read races a timer.
 */
import { waitUntil } from "../../base/wait.ts";

/** Largest aggregate accepted; the closed code list keeps the real file far below this. */
export const MAX_AGGREGATE_BYTES = 64 * 1024;

/** Outcome of {@link readRegularFile}. */
export type FileRead =
  | { kind: "absent" }
  | { kind: "text"; text: string }
  | { kind: "unreadable"; why: "not_regular" | "too_large" | "changed" | "timeout" | "error" };

const TIMEOUT = Symbol("timeout");

/**
 * Reads `path` only if it is a regular file, within `timeoutMs`. Never throws and never waits
 * longer than the timeout (a late open on a swapped-in FIFO finishes in the background and is
 * closed there).
 */
export async function readRegularFile(path: string, timeoutMs: number): Promise<FileRead> {
  // A writer may rename a new file into place between our lstat and open ("changed"): look again.
  const started = performance.now();
  let attempts = 0;
  const out = await waitUntil(() => readOnce(path, Math.max(1, timeoutMs - (performance.now() - started))), {
    timeoutMs,
    intervalMs: 0,
    until: (result) => result.kind !== "unreadable" || result.why !== "changed" || ++attempts > 8,
  });
  return out.status === "done" ? out.value : out.last!;
}

async function readOnce(path: string, timeoutMs: number): Promise<FileRead> {
  let st: Deno.FileInfo;
  try {
    st = await Deno.lstat(path);
  } catch (err) {
    return err instanceof Deno.errors.NotFound ? { kind: "absent" } : { kind: "unreadable", why: "error" };
  }
  if (!st.isFile || st.isSymlink) return { kind: "unreadable", why: "not_regular" };
  if (st.size > MAX_AGGREGATE_BYTES) return { kind: "unreadable", why: "too_large" };
  return await readOpened(path, st, timeoutMs);
}

/**
 * The open-and-read half of {@link readRegularFile}, raced against `timeoutMs`. `expected` (from
 * lstat) is compared with the opened handle; null skips that check (tests use it to reach the
 * timer with a FIFO).
 */
export async function readOpened(path: string, expected: Deno.FileInfo | null, timeoutMs: number): Promise<FileRead> {
  const work = (async (): Promise<FileRead> => {
    const file = await Deno.open(path, { read: true });
    try {
      const st = await file.stat();
      if (!st.isFile) return { kind: "unreadable", why: "not_regular" };
      if (expected && !sameFile(st, expected)) return { kind: "unreadable", why: "changed" };
      const chunks: Uint8Array[] = [];
      let total = 0;
      const buf = new Uint8Array(16 * 1024);
      for (;;) {
        const n = await file.read(buf);
        if (n === null) break;
        total += n;
        if (total > MAX_AGGREGATE_BYTES) return { kind: "unreadable", why: "too_large" };
        chunks.push(buf.slice(0, n));
      }
      const all = new Uint8Array(total);
      let off = 0;
      for (const c of chunks) {
        all.set(c, off);
        off += c.length;
      }
      return { kind: "text", text: new TextDecoder("utf-8", { fatal: true }).decode(all) };
    } finally {
      file.close();
    }
  })().catch((err): FileRead =>
    err instanceof Deno.errors.NotFound ? { kind: "absent" } : { kind: "unreadable", why: "error" }
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), timeoutMs);
  });
  try {
    const result = await Promise.race([work, timeout]);
    return result === TIMEOUT ? { kind: "unreadable", why: "timeout" } : result;
  } finally {
    clearTimeout(timer);
  }
}

function sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  if (a.dev !== null && b.dev !== null && a.dev !== b.dev) return false;
  if (a.ino !== null && b.ino !== null && a.ino !== b.ino) return false;
  return true;
}
