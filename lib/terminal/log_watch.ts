/**
 * Wakes a waiter when a session's log grows: a file-system watch on the segment directory (inotify
 * or FSEvents), plus a short safety tick for what a watch cannot see (the pane dying, a missed
 * event). Nothing here sleeps a fixed time on the path of a normal completion.
 */

/** A wake-up source; `next()` resolves on the next change or tick. */
export interface LogWaker extends Disposable {
  next(): Promise<"change" | "tick" | "aborted">;
}

/** Watches `dir` (if it exists); ticks every `tickMs`. */
export function watchLog(dir: string | null, tickMs: number, signal: AbortSignal): LogWaker {
  let pending: ((v: "change" | "tick" | "aborted") => void) | null = null;
  let dirty = false;
  let watcher: Deno.FsWatcher | null = null;
  const fire = (v: "change" | "tick" | "aborted") => {
    if (pending) {
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
      if (dirty) {
        dirty = false;
        return Promise.resolve("change");
      }
      return new Promise((resolve) => (pending = resolve));
    },
    [Symbol.dispose]() {
      clearInterval(timer);
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
