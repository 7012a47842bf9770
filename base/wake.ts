/**
 * A wake-up latch fed by file-system watches (inotify, FSEvents, ReadDirectoryChangesW through
 * `Deno.watchFs`): the one place aiterm turns "a file changed" into "look again now". The wait helper
 * ({@link ../base/wait.ts}), the turn waiter's file waker and the output log's waker all sit on it.
 *
 * A change seen while nobody waits is kept and wakes the next {@link Wake.next} at once, so no write
 * between a caller's check and its following wait is lost. A watch that cannot start (missing
 * directory, no inotify watches left, a filesystem without change events) is simply absent: the
 * caller's tick is then the only way to notice a change, a bounded poll.
 */
import { basename } from "node:path";

/** Why {@link Wake.next} returned. */
export type WakeReason = "change" | "tick" | "aborted";

/** Meters change wake-ups (a token bucket): how long a change at `now` must wait, and that one was delivered. */
export interface WakeGate {
  delay(now: number): number;
  spend(): void;
}

/** One directory watch started by {@link Wake.watch}. */
export interface DirWatch {
  /** The directory watched. */
  readonly dir: string;
  /** False once the watch ended (closed, or the directory went away). */
  readonly live: boolean;
  /** Stops the watch; never throws. */
  close(): void;
}

/** Options for {@link Wake}. */
export interface WakeOptions {
  /** Meters change wake-ups (default: every change wakes at once). */
  gate?: WakeGate;
}

/** See the module doc. */
export class Wake implements Disposable {
  #dirty = false;
  #pending: ((reason: WakeReason) => void) | null = null;
  #closed = false;
  #gate: WakeGate | null;
  #deferred: ReturnType<typeof setTimeout> | undefined;
  #watches = new Set<DirWatch>();

  constructor(options: WakeOptions = {}) {
    this.#gate = options.gate ?? null;
  }

  /** True once disposed. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Watches `dir` (not recursively); an event naming one of `names` (any event when null) wakes. When
   * the watch ends by itself (the directory was removed) that wakes too: the directory changed.
   * @returns the watch, or null when none could be started
   */
  watch(dir: string, names: ReadonlySet<string> | null = null): DirWatch | null {
    if (this.#closed) return null;
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs(dir, { recursive: false });
    } catch {
      return null;
    }
    let live = true;
    const handle: DirWatch = {
      dir,
      get live() {
        return live;
      },
      close: () => {
        live = false;
        this.#watches.delete(handle);
        try {
          watcher.close();
        } catch {
          // already closed
        }
      },
    };
    this.#watches.add(handle);
    (async () => {
      try {
        for await (const ev of watcher) {
          if (!names || ev.paths.some((p) => names.has(basename(p)))) this.fire();
        }
      } catch {
        // closed, or the directory went away
      } finally {
        if (live) {
          live = false;
          this.#watches.delete(handle);
          if (!this.#closed) this.fire();
        }
      }
    })();
    return handle;
  }

  /** Wakes the pending {@link next} with "change", or remembers the change for the next one. */
  fire(): void {
    if (this.#closed) return;
    if (!this.#pending) {
      this.#dirty = true;
      return;
    }
    if (this.#gate) {
      const wait = this.#gate.delay(performance.now());
      if (wait > 0) {
        this.#deferred ??= setTimeout(() => {
          this.#deferred = undefined;
          this.fire();
        }, wait);
        return;
      }
      this.#gate.spend();
    }
    this.#pending("change");
  }

  /** Resolves on the next change (or one kept since the last call), after `tickMs`, or on abort/dispose. */
  next(tickMs: number, signal?: AbortSignal): Promise<WakeReason> {
    if (this.#closed || signal?.aborted) return Promise.resolve("aborted");
    return new Promise<WakeReason>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined = undefined;
      const onAbort = () => settle("aborted");
      const settle = (reason: WakeReason) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (this.#pending === settle) this.#pending = null;
        resolve(reason);
      };
      this.#pending = settle;
      timer = setTimeout(() => settle("tick"), Math.max(0, tickMs));
      signal?.addEventListener("abort", onAbort, { once: true });
      if (this.#dirty) {
        this.#dirty = false;
        this.fire();
      }
    });
  }

  /** Stops every watch; a pending {@link next} resolves "aborted". */
  [Symbol.dispose](): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#deferred);
    for (const w of [...this.#watches]) w.close();
    this.#pending?.("aborted");
  }
}
