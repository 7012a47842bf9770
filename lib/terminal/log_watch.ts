/**
 * Wakes a waiter when a session's log grows: a file-system watch on the segment directory (inotify
 * or FSEvents), plus a short safety tick for what a watch cannot see (the pane dying, a missed
 * event). Nothing here sleeps a fixed time on the path of a normal completion.
 *
 * A writer streaming output raises thousands of events a second; waking the reader for each one
 * costs a log scan each and fills memory with short-lived garbage (issue 14 item 12). So a change
 * that follows the previous wake-up within {@link MIN_WAKE_GAP_MS} is delivered when that gap has
 * passed: the first change after a quiet spell still wakes at once.
 */

/** The least time between two change wake-ups while output streams. */
export const MIN_WAKE_GAP_MS = 20;

/** A wake-up source; `next()` resolves on the next change or tick. */
export interface LogWaker extends Disposable {
  next(): Promise<"change" | "tick" | "aborted">;
}

/** Watches `dir` (if it exists); ticks every `tickMs`. */
export function watchLog(dir: string | null, tickMs: number, signal: AbortSignal): LogWaker {
  let pending: ((v: "change" | "tick" | "aborted") => void) | null = null;
  let dirty = false;
  let watcher: Deno.FsWatcher | null = null;
  let lastWake = -Infinity;
  let deferred: ReturnType<typeof setTimeout> | undefined;
  const fire = (v: "change" | "tick" | "aborted") => {
    if (v === "change" && pending) {
      const wait = lastWake + MIN_WAKE_GAP_MS - performance.now();
      if (wait > 0) {
        deferred ??= setTimeout(() => {
          deferred = undefined;
          fire("change");
        }, wait);
        return;
      }
    }
    if (pending) {
      if (v === "change") lastWake = performance.now();
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
