/**
 * Atomic, owner-only files. A state file is written to a temp file beside it, synced, then renamed
 * over the target, so a reader never sees half a file even if the writer is SIGKILLed.
 */
import { AppError } from "../errors.ts";

const encoder = new TextEncoder();

/** Options for atomic writes. */
export interface AtomicOptions {
  /** fsync before the rename (default true). Skip it for hot, rebuildable files (cursors, locks). */
  sync?: boolean;
}

function tempName(path: string): string {
  return `${path}.${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}.tmp`;
}

/**
 * Writes `data` to `path` atomically with mode 0600.
 * @throws {AppError} STATE_WRITE_FAILED
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicOptions = {},
): Promise<void> {
  const tmp = tempName(path);
  try {
    const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
    try {
      const bytes = typeof data === "string" ? encoder.encode(data) : data;
      let off = 0;
      while (off < bytes.length) off += await file.write(bytes.subarray(off));
      if (options.sync !== false) await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw new AppError("STATE_WRITE_FAILED", `Cannot write a state file: ${(err as Error).message}`, { cause: err });
  }
}

/** Writes JSON atomically (see {@link writeFileAtomic}). */
export function writeJsonAtomic(path: string, value: unknown, options: AtomicOptions = {}): Promise<void> {
  return writeFileAtomic(path, JSON.stringify(value, null, 2) + "\n", options);
}

/** Reads and parses a JSON file; null when it does not exist. Malformed JSON throws. */
export async function readJsonFile<T>(path: string): Promise<T | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  return JSON.parse(text) as T;
}

/**
 * Creates `path` with `value` only if it does not exist yet, with its full content visible at the
 * moment it appears (write a temp file, then hard-link it into place). Returns false when `path`
 * already existed.
 */
export async function createExclusiveJson(path: string, value: unknown): Promise<boolean> {
  const tmp = tempName(path);
  await writeFileAtomic(tmp, JSON.stringify(value) + "\n", { sync: false });
  try {
    await Deno.link(tmp, path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) return false;
    throw new AppError("STATE_WRITE_FAILED", `Cannot create a lock file: ${(err as Error).message}`, { cause: err });
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}
