/**
 * Atomic, owner-only state files, over the one atomic writer (base/atomic.ts): a state file is written
 * to a temp file beside it, synced, then renamed over the target, so a reader never sees half a file
 * even if the writer is SIGKILLed. Failures are STATE_WRITE_FAILED here.
 */
import { basename, dirname, join } from "node:path";
import { AppError } from "../base/errors.ts";
import { atomicTempName, replaceFile } from "../base/atomic.ts";

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

/** What {@link HotFiles} keeps per hot file: two spare names beside it, and whether the next one holds an old copy. */
interface HotSlot {
  /** Two names beside the file, used in turn: the next commit writes into `names[next]` and sets the old file aside under the other. */
  names: [string, string];
  next: 0 | 1;
  /** `names[next]` holds the copy the previous commit set aside (else it is made new). */
  held: boolean;
  /** A change written into `names[next]` waits to be published or abandoned. */
  staged: boolean;
  /** Counts stagings: a publish or abandon of an older one (already ended) does nothing. */
  stagings: number;
}

/** A change of a hot JSON file written beside it: {@link HotFiles.stageJson}. */
export interface StagedJson {
  /** Puts the change in place. Never throws. */
  publish(): Promise<void>;
  /** Leaves the file as it was. */
  abandon(): void;
}

/** Shorter text than the copy being reused is padded with JSON whitespace, up to this many bytes (else truncated). */
const MAX_PAD_BYTES = 4096;
const SPACE = 0x20;

/**
 * Small hot state files (a read cursor, the last send) replaced on the path that waits without creating or
 * freeing an inode: creating and freeing inodes is what costs on some disks (about a millisecond each on
 * this project's CI disk, ten times a write). One instance per state root (the Terminal owns it).
 *
 * A commit writes the new text into a spare beside the file, links the file's current copy aside, then renames
 * the spare over the file: a reader sees the old file or the new one, whole, and nothing is freed (the old copy
 * is still linked). That old copy is the next commit's spare: it is written in place (shorter text padded with
 * whitespace, which JSON ignores), so in steady state two inodes take turns and none is made or freed. A copy
 * another process also linked aside (two processes committing the same file at once) has more than one link:
 * it is dropped and a fresh spare made. Not synced (like `sync: false`): for files that can be rebuilt. A process
 * killed midway leaves the file whole and at most its spares beside it (removed with the session directory, or by
 * the next process's first commit of that file once they are old: {@link removeStaleSpares}).
 */
export class HotFiles {
  readonly #slots = new Map<string, HotSlot>();

  /**
   * Replaces `path` with `text` (synchronously: a few small file calls, none of which makes or frees an inode
   * once the file was committed through this instance before).
   * @throws {AppError} STATE_WRITE_FAILED (the target is unchanged)
   */
  commit(path: string, text: string): void {
    this.#stage(path, text).publish();
  }

  /**
   * Writes `text` into the spare of `path` now and puts it in place later: `publish()` (a link and a rename) makes
   * it the file, `abandon()` leaves the file as it was. For a change that becomes true only once something else
   * finished (a send's record, once tmux typed the text): the writing overlaps that wait. One staged change per
   * file at a time (a second one meanwhile is refused).
   * @throws {AppError} STATE_WRITE_FAILED (the target is unchanged)
   */
  #stage(path: string, text: string): { publish(): void; abandon(): void } {
    let slot = this.#slots.get(path);
    if (!slot) {
      slot = { names: [atomicTempName(path), atomicTempName(path)], next: 0, held: false, staged: false, stagings: 0 };
      this.#slots.set(path, slot);
      removeStaleSpares(path);
    }
    if (slot.staged) throw writeFailed(new Error(`a change of ${path} is already staged`));
    const spare = slot.names[slot.next];
    const aside = slot.names[slot.next === 0 ? 1 : 0];
    const s = slot;
    const failed = (err: unknown): AppError => {
      // The spare may be half written: made again next time.
      s.held = false;
      s.staged = false;
      removeIfThere(spare);
      return writeFailed(err);
    };
    try {
      writeSpare(spare, s.held, encoder.encode(text));
    } catch (err) {
      throw failed(err);
    }
    s.staged = true;
    const mine = ++s.stagings;
    // The spare written is a copy of ours alone (its link count was checked): reusable even when abandoned.
    s.held = true;
    const current = () => s.staged && s.stagings === mine;
    return {
      publish: () => {
        if (!current()) return;
        try {
          const linked = linkAside(path, aside);
          Deno.renameSync(spare, path);
          s.held = linked;
          s.next = s.next === 0 ? 1 : 0;
          s.staged = false;
        } catch (err) {
          throw failed(err);
        }
      },
      abandon: () => {
        if (current()) s.staged = false;
      },
    };
  }

  /**
   * Replaces `path` with the JSON of `value` through {@link commit}, else (a commit refused: a full disk, a closed
   * session's directory) the usual atomic write without an fsync. Never throws: these files can be rebuilt.
   */
  async putJson(path: string, value: unknown): Promise<void> {
    await this.stageJson(path, value).publish();
  }

  /**
   * {@link putJson} in two steps (see #stage): the JSON of `value` is written now, and `publish()` puts it in place
   * (by the usual atomic write when the spare could not be written or put in place). Never throws.
   */
  stageJson(path: string, value: unknown): StagedJson {
    const text = jsonText(value);
    let staged: { publish(): void; abandon(): void } | null = null;
    try {
      staged = this.#stage(path, text);
    } catch {
      // published the usual way below
    }
    return {
      publish: async () => {
        try {
          if (staged) return staged.publish();
        } catch {
          // the usual way below
        }
        await writeJsonAtomic(path, value, { sync: false }).catch(() => {});
      },
      abandon: () => staged?.abandon(),
    };
  }

  /** Forgets `path` and removes its spares (a closed session's files). Never throws. */
  forget(path: string): void {
    const slot = this.#slots.get(path);
    if (!slot) return;
    this.#slots.delete(path);
    for (const name of slot.names) removeIfThere(name);
  }
}

/** A spare older than this beside a hot file was left by a process that ended (a live one rewrites its own). */
const STALE_SPARE_MS = 10 * 60_000;

/**
 * Removes the spares of `path` that processes which ended left beside it (`<file>.<12 hex>.tmp`, untouched for
 * {@link STALE_SPARE_MS}); once per file per process, on its first commit. A live process whose spare this removes
 * only makes a new one. Never throws.
 */
function removeStaleSpares(path: string): void {
  const dir = dirname(path);
  const base = basename(path);
  const pattern = /^\.[0-9a-f]{12}\.tmp$/;
  const now = Date.now();
  try {
    for (const entry of Deno.readDirSync(dir)) {
      if (!entry.isFile || !entry.name.startsWith(base) || !pattern.test(entry.name.slice(base.length))) continue;
      const file = join(dir, entry.name);
      try {
        const mtime = Deno.statSync(file).mtime?.getTime() ?? now;
        if (now - mtime >= STALE_SPARE_MS) Deno.removeSync(file);
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    // no directory: nothing to clear
  }
}

/** Writes `bytes` into spare `name` (see {@link openSpare}), padded or truncated as the reused copy needs. */
function writeSpare(name: string, held: boolean, bytes: Uint8Array): void {
  const { file, size } = openSpare(name, held);
  try {
    let data = bytes;
    if (size > bytes.length && size - bytes.length <= MAX_PAD_BYTES) {
      data = new Uint8Array(size).fill(SPACE);
      data.set(bytes);
    } else if (size > bytes.length) {
      file.truncateSync(0);
    }
    let off = 0;
    while (off < data.length) off += file.writeSync(data.subarray(off));
  } finally {
    file.close();
  }
}

/**
 * The spare to write and its size: the copy set aside before when it is there and linked only under our name
 * (nobody else can reach it), else a new empty owner-only file (an old one under that name is removed first).
 */
function openSpare(name: string, held: boolean): { file: Deno.FsFile; size: number } {
  if (held) {
    try {
      const file = Deno.openSync(name, { write: true });
      const info = file.statSync();
      // Windows reports no link count: there the copy is not reused.
      if (info.nlink === 1) return { file, size: info.size };
      file.close();
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  removeIfThere(name);
  return { file: Deno.openSync(name, { write: true, createNew: true, mode: 0o600 }), size: 0 };
}

function removeIfThere(name: string): void {
  try {
    Deno.removeSync(name);
  } catch {
    // not there
  }
}

/** Links the current copy of `path` aside (so the rename over it frees nothing); false when there is none. */
function linkAside(path: string, aside: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      Deno.linkSync(path, aside);
      return true;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      if (!(err instanceof Deno.errors.AlreadyExists) || attempt > 0) throw err;
      // A stale copy under that name (a commit that failed midway): replaced.
      Deno.removeSync(aside);
    }
  }
  return false;
}

/** Writes JSON atomically (see {@link writeFileAtomic}). */
export function writeJsonAtomic(path: string, value: unknown, options: AtomicOptions = {}): Promise<void> {
  return writeFileAtomic(path, jsonText(value), options);
}

/** JSON as {@link writeJsonAtomic} writes it (for {@link HotFiles.commit}). */
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
