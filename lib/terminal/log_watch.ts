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
import { Wake } from "../../base/wake.ts";

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

/**
 * Watches `dir` (if it exists); ticks `tickMs` after each `next()`. Changes are metered by a
 * {@link WakeMeter} (the watching itself is base/wake.ts's).
 */
export function watchLog(dir: string | null, tickMs: number, signal: AbortSignal): LogWaker {
  const wake = new Wake({ gate: new WakeMeter(performance.now()) });
  if (dir) wake.watch(dir);
  return {
    next: () => wake.next(tickMs, signal),
    [Symbol.dispose]: () => wake[Symbol.dispose](),
  };
}

/**
 * A {@link watchLog} started on first need: a wait its first look decides (the command had already ended) starts no
 * watch, which would cost a watcher thread made and joined for nothing. Whoever starts it looks once more before
 * waiting: a write between the last look and the start raised no event.
 */
export class LazyLogWaker implements Disposable {
  readonly #start: () => LogWaker;
  #waker: LogWaker | null = null;

  constructor(start: () => LogWaker) {
    this.#start = start;
  }

  /** Whether the watch runs. */
  get started(): boolean {
    return this.#waker !== null;
  }

  /** Starts the watch (once). */
  begin(): void {
    this.#waker ??= this.#start();
  }

  /** The next wake-up (starts the watch if it does not run yet). */
  next(): Promise<"change" | "tick" | "aborted"> {
    this.begin();
    return this.#waker!.next();
  }

  [Symbol.dispose](): void {
    this.#waker?.[Symbol.dispose]();
  }
}
