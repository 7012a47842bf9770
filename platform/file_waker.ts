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

/** Why {@link FileWaker.next} returned. */
export type WakeReason = "change" | "tick" | "aborted";

/** The files of a session directory whose change a waiter must see (the record pins the transcript). */
const SESSION_FILES = new Set(["agent.json", "meta.json"]);

/** How many missing directory levels above the transcript's directory a waker climbs to find one to watch. */
const MAX_ANCESTOR_LEVELS = 6;

interface Slot {
  /** The directory watched. */
  dir: string;
  /** Only events naming one of these base names wake (null: any event in `dir`). */
  names: Set<string> | null;
  watcher: Deno.FsWatcher;
  /** False once the watcher's stream ended (the directory was removed): the next follow() makes a new one. */
  live: boolean;
}

/** See the module doc. */
export class FileWaker implements Disposable {
  #session: Slot | null;
  #transcript: Slot | null = null;
  /** The transcript the current watch is for (its own directory, or an ancestor while that is missing). */
  #target: string | null = null;
  #dirty = false;
  #pending: ((reason: WakeReason) => void) | null = null;
  #closed = false;

  /**
   * Starts watching `dir` (when it exists) for changes of the files named `names` (default: a session
   * directory's agent record and meta).
   */
  constructor(dir: string, names: Iterable<string> = SESSION_FILES) {
    this.#session = this.#watch(dir, new Set(names));
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
    if (this.#closed || path === null) return false;
    const dir = await nearestExistingDir(dirname(path));
    if (dir === null) return false;
    const own = dir === dirname(path);
    const cur = this.#transcript;
    if (cur && cur.live && cur.dir === dir && this.#target === path) return false;
    this.#drop(cur);
    this.#transcript = this.#watch(dir, own ? new Set([basename(path)]) : null);
    this.#target = path;
    return this.#transcript !== null;
  }

  /** Resolves on the next change (or one already seen since the last call), after `tickMs`, or on abort. */
  next(tickMs: number, signal?: AbortSignal): Promise<WakeReason> {
    if (this.#closed || signal?.aborted) return Promise.resolve("aborted");
    if (this.#dirty) {
      this.#dirty = false;
      return Promise.resolve("change");
    }
    return new Promise<WakeReason>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined = undefined;
      const onAbort = () => settle("aborted");
      const settle = (reason: WakeReason) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#pending = null;
        resolve(reason);
      };
      timer = setTimeout(() => settle("tick"), tickMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending = settle;
    });
  }

  /** Stops every watch; a pending `next()` resolves "aborted". */
  [Symbol.dispose](): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#drop(this.#session);
    this.#drop(this.#transcript);
    this.#session = this.#transcript = null;
    this.#pending?.("aborted");
  }

  #fire(): void {
    if (this.#pending) this.#pending("change");
    else this.#dirty = true;
  }

  #watch(dir: string, names: Set<string> | null): Slot | null {
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs(dir, { recursive: false });
    } catch {
      // Missing directory, no watches left, or a filesystem without change events: the caller's timer remains.
      return null;
    }
    const slot: Slot = { dir, names, watcher, live: true };
    (async () => {
      try {
        for await (const ev of watcher) {
          if (!names || ev.paths.some((p) => names.has(basename(p)))) this.#fire();
        }
      } catch {
        // closed, or the directory went away
      } finally {
        if (slot.live) {
          slot.live = false;
          // The directory itself changed (removed or replaced): worth a look.
          if (!this.#closed) this.#fire();
        }
      }
    })();
    return slot;
  }

  #drop(slot: Slot | null): void {
    if (!slot) return;
    slot.live = false;
    try {
      slot.watcher.close();
    } catch {
      // already closed
    }
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
