/**
 * Atomic, owner-only state files, over the one atomic writer (base/atomic.ts): a state file is written
 * to a temp file beside it, synced, then renamed over the target, so a reader never sees half a file
 * even if the writer is SIGKILLed. Failures are STATE_WRITE_FAILED here.
 */
import { AppError } from "../../base/errors.ts";
import { atomicTempName, replaceFile } from "../../base/atomic.ts";

const encoder = new TextEncoder();

/** Options for atomic writes. */
export interface AtomicOptions {
  /** fsync before the rename (default true). Skip it for hot, rebuildable files (cursors, locks). */
  sync?: boolean;
}

function writeFailed(err: unknown): AppError {
  return new AppError("STATE_WRITE_FAILED", `Cannot write a state file: ${(err as Error).message}`, { cause: err });
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
  try {
    await replaceFile(path, data, { sync: options.sync !== false });
  } catch (err) {
    throw writeFailed(err);
  }
}

/** A spare file ready to become a hot state file (see {@link HotFiles.prepare}). */
export interface HotSpare {
  /**
   * Writes `text` into the spare and renames it over the target (the old file is first linked aside, so the
   * rename frees nothing). Synchronous: a write into an empty file, a link and a rename.
   * @throws {AppError} STATE_WRITE_FAILED (the target is unchanged)
   */
  commit(text: string): void;
  /** Removes the unused spare. Never throws. */
  abort(): Promise<void>;
}

/**
 * Small hot state files (a read cursor, the last send) replaced without creating or freeing an inode on the
 * path that waits: creating and freeing inodes is what costs on some disks (about a millisecond each). One
 * instance per state root (the Terminal owns it): it remembers the copies its commits set aside, and the
 * next prepare of the same file removes them.
 */
export class HotFiles {
  /** Copies of hot files replaced by a commit, removed by the next prepare of the same file. */
  readonly #retired = new Map<string, string[]>();

  /**
   * The slow half of replacing `path`, for a caller that has something else to wait for meanwhile (a tmux
   * round trip, a wait for output): creates an empty owner-only spare beside `path`, and removes the copies
   * earlier commits set aside. {@link HotSpare.commit} then creates and frees nothing, and a reader still
   * sees the old file or the new one, whole. Not synced (like `sync: false`): for files that can be rebuilt.
   * @throws {AppError} STATE_WRITE_FAILED
   */
  async prepare(path: string): Promise<HotSpare> {
    const spare = atomicTempName(path);
    const old = this.#retired.get(path)?.splice(0) ?? [];
    try {
      await Promise.all([
        Deno.open(spare, { write: true, createNew: true, mode: 0o600 }).then((f) => f.close()),
        ...old.map((o) => Deno.remove(o).catch(() => {})),
      ]);
    } catch (err) {
      throw writeFailed(err);
    }
    const retired = this.#retired;
    return {
      commit(text: string) {
        const aside = `${spare}.old`;
        let linked = false;
        try {
          const file = Deno.openSync(spare, { write: true });
          try {
            const bytes = encoder.encode(text);
            let off = 0;
            while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
          } finally {
            file.close();
          }
          try {
            Deno.linkSync(path, aside);
            linked = true;
          } catch (err) {
            if (!(err instanceof Deno.errors.NotFound)) throw err;
          }
          Deno.renameSync(spare, path);
        } catch (err) {
          Deno.remove(spare).catch(() => {});
          throw writeFailed(err);
        } finally {
          if (linked) retired.set(path, [...(retired.get(path) ?? []), aside]);
        }
      },
      abort: () => Deno.remove(spare).catch(() => {}),
    };
  }
}

/** Writes JSON atomically (see {@link writeFileAtomic}). */
export function writeJsonAtomic(path: string, value: unknown, options: AtomicOptions = {}): Promise<void> {
  return writeFileAtomic(path, jsonText(value), options);
}

/** JSON as {@link writeJsonAtomic} writes it (for {@link HotSpare.commit}). */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/**
 * Reads and parses a JSON file; null when it does not exist. Malformed JSON throws. The read is
 * synchronous: state files are small local files, and one read costs less than a hop to the I/O
 * thread pool (which is what makes a loaded machine slow here).
 */
// deno-lint-ignore require-await
export async function readJsonFile<T>(path: string): Promise<T | null> {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
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
  const tmp = atomicTempName(path);
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
