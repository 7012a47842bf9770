/**
 * Wakes a waiter the moment something it depends on is written: file-system watches (inotify,
 * FSEvents, ReadDirectoryChangesW through `Deno.watchFs`). A turn waiter watches the session
 * directory (the agent record and the session meta) and, through {@link FileWaker.follow}, the
 * transcript's directory, or its nearest existing ancestor while the harness has not created it yet;
 * a parent-delivery receiver watches its delivery record. A change seen while the waiter is busy
 * checking is kept and wakes the next `next()` at once, so no write between a check and the
 * following wait is lost.
 *
 * Watches are not everywhere: a filesystem may have no change events (some network mounts), or the
 * kernel may be out of inotify watches. Then `watchingTranscript` is false and the caller's bounded
 * timer is the only way to notice a change (a bounded poll, the documented fallback).
 */
import { basename, dirname } from "node:path";
import { type DirWatch, Wake, type WakeReason } from "../base/wake.ts";

/** Why {@link FileWaker.next} returned. */
export type { WakeReason };

/** The files of a session directory whose change a waiter must see (the record pins the transcript). */
const SESSION_FILES = new Set(["agent.json", "meta.json"]);

/** How many missing directory levels above the transcript's directory a waker climbs to find one to watch. */
const MAX_ANCESTOR_LEVELS = 6;

/** See the module doc. The watching and the kept change are base/wake.ts's; this adds what to watch. */
export class FileWaker implements Disposable {
  readonly #wake = new Wake();
  #session: DirWatch | null;
  #transcript: DirWatch | null = null;
  /** The transcript the current watch is for (its own directory, or an ancestor while that is missing). */
  #target: string | null = null;

  /**
   * Starts watching `dir` (when it exists) for changes of the files named `names` (default: a session
   * directory's agent record and meta).
   */
  constructor(dir: string, names: Iterable<string> = SESSION_FILES) {
    this.#session = this.#wake.watch(dir, new Set(names));
  }

  /** True when the transcript's own directory is watched (a harness write wakes the waiter). */
  get watchingTranscript(): boolean {
    return this.#transcript !== null && this.#transcript.live && this.#target !== null &&
      this.#transcript.dir === dirname(this.#target);
  }

  /** True when the directory given to the constructor is watched. */
  get watchingSession(): boolean {
    return this.#session?.live === true;
  }

  /**
   * Points the transcript watch at `path` (null: not located yet). Returns true when a new watch was
   * started: the caller must look once more before waiting, because a write that landed between its
   * last look and this watch raised no event.
   */
  async follow(path: string | null): Promise<boolean> {
    if (this.#wake.closed || path === null) return false;
    const dir = await nearestExistingDir(dirname(path));
    if (dir === null) return false;
    const own = dir === dirname(path);
    const cur = this.#transcript;
    if (cur && cur.live && cur.dir === dir && this.#target === path) return false;
    cur?.close();
    this.#transcript = this.#wake.watch(dir, own ? new Set([basename(path)]) : null);
    this.#target = path;
    return this.#transcript !== null;
  }

  /** Resolves on the next change (or one already seen since the last call), after `tickMs`, or on abort. */
  next(tickMs: number, signal?: AbortSignal): Promise<WakeReason> {
    return this.#wake.next(tickMs, signal);
  }

  /** Stops every watch; a pending `next()` resolves "aborted". */
  [Symbol.dispose](): void {
    this.#wake[Symbol.dispose]();
    this.#session = this.#transcript = null;
  }
}

/** `dir`, or the nearest of its ancestors (up to {@link MAX_ANCESTOR_LEVELS} levels) that is a directory. */
async function nearestExistingDir(dir: string): Promise<string | null> {
  let cur = dir;
  for (let level = 0; level <= MAX_ANCESTOR_LEVELS; level++) {
    const st = await Deno.stat(cur).catch(() => null);
    if (st?.isDirectory) return cur;
    const up = dirname(cur);
    if (up === cur) return null;
    cur = up;
  }
  return null;
}
