/**
 * Wakes a waiter when a session's log grows: a file-system watch on the segment directory (inotify
 * or FSEvents), plus a short safety tick for what a watch cannot see (the pane dying, a missed
 * event). Nothing here sleeps a fixed time on the path of a normal completion.
 *
 * A writer streaming output raises thousands of events a second; waking the reader for each one
 * costs a log scan each and fills memory with short-lived garbage (issue 14 item 12). So change
 * wake-ups are metered by a token bucket: {@link WAKE_BURST} of them at once after a quiet spell
 * (a short command writes its echo, its output and its end mark within a few milliseconds, and each
 * must wake the reader at once), then one per {@link MIN_WAKE_GAP_MS} while output streams.
 */

/** The least time between two change wake-ups while output streams (after the burst). */
export const MIN_WAKE_GAP_MS = 20;
/** Change wake-ups delivered at once after a quiet spell before the gap applies. */
export const WAKE_BURST = 4;

/**
 * The token bucket that meters change wake-ups: {@link WAKE_BURST} at once, then one per
 * {@link MIN_WAKE_GAP_MS}. Time is passed in, so it is tested without a clock.
 */
export class WakeMeter {
  #tokens = WAKE_BURST;
  #at: number;

  constructor(now: number) {
    this.#at = now;
  }

  /** How long a change seen at `now` has to wait before it may wake the reader (0: wake now). */
  delay(now: number): number {
    this.#tokens = Math.min(WAKE_BURST, this.#tokens + (now - this.#at) / MIN_WAKE_GAP_MS);
    this.#at = now;
    return this.#tokens >= 1 ? 0 : (1 - this.#tokens) * MIN_WAKE_GAP_MS;
  }

  /** A change wake-up was delivered. */
  spend(): void {
    this.#tokens -= 1;
  }
}

/** A wake-up source; `next()` resolves on the next change or tick. */
export interface LogWaker extends Disposable {
  next(): Promise<"change" | "tick" | "aborted">;
}

/** Watches `dir` (if it exists); ticks every `tickMs`. */
export function watchLog(dir: string | null, tickMs: number, signal: AbortSignal): LogWaker {
  let pending: ((v: "change" | "tick" | "aborted") => void) | null = null;
  let dirty = false;
  let watcher: Deno.FsWatcher | null = null;
  const meter = new WakeMeter(performance.now());
  let deferred: ReturnType<typeof setTimeout> | undefined;
  const fire = (v: "change" | "tick" | "aborted") => {
    if (v === "change" && pending) {
      const wait = meter.delay(performance.now());
      if (wait > 0) {
        deferred ??= setTimeout(() => {
          deferred = undefined;
          fire("change");
        }, wait);
        return;
      }
    }
    if (pending) {
      if (v === "change") meter.spend();
      const p = pending;
      pending = null;
      p(v);
    } else if (v === "change") {
      dirty = true;
    }
  };
  if (dir) {
    try {
      watcher = Deno.watchFs(dir, { recursive: false });
      (async () => {
        try {
          for await (const _ of watcher!) fire("change");
        } catch {
          // watcher closed
        }
      })();
    } catch {
      watcher = null;
    }
  }
  const timer = setInterval(() => fire("tick"), tickMs);
  const onAbort = () => fire("aborted");
  signal.addEventListener("abort", onAbort);
  return {
    next() {
      if (signal.aborted) return Promise.resolve("aborted");
      return new Promise((resolve) => {
        pending = resolve;
        if (dirty) {
          // A change seen while the reader was busy: delivered now, or when the gap has passed.
          dirty = false;
          fire("change");
        }
      });
    },
    [Symbol.dispose]() {
      clearInterval(timer);
      clearTimeout(deferred);
      signal.removeEventListener("abort", onAbort);
      try {
        watcher?.close();
      } catch {
        // already closed
      }
      fire("aborted");
    },
  };
}
