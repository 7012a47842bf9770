/**
 * The one bounded wait of aiterm's product code: look (a probe), and until the look says done, sleep
 * with backoff — or less, when a watched file or directory changes — then look again, until a deadline
 * or an abort. Every wait says how it ended; nothing loops on `Date.now()` by hand.
 *
 * - {@link waitUntil} returns the outcome (done, timed out or aborted, with the last observation), for a
 *   caller whose timeout is a result or has its own error code.
 * - {@link waitFor} returns the value or throws WAIT_TIMEOUT carrying the last observation.
 * - {@link sleep} is the one pause (abortable), for a caller that must let time pass (a TUI redraw).
 */
import { AppError } from "./errors.ts";
import { Wake, type WakeReason } from "./wake.ts";

/** Options for {@link waitUntil} and {@link waitFor}. */
export interface WaitOptions<T> {
  /** The whole budget from the call (a probe that runs past it still finishes; then the wait ends). */
  timeoutMs: number;
  /** Done when this says so (default: the observation is truthy). */
  until?: (observation: T) => boolean;
  /**
   * Look again at once, without a pause and without lengthening the next one, when this says so of an
   * observation that is not done (something changed that is worth an immediate look); the probe is told
   * "change". The budget and the signal still end the wait.
   */
  again?: (observation: T) => boolean;
  /** The first pause between looks (default 10 ms). */
  intervalMs?: number;
  /**
   * The longest pause between looks; the pause doubles from `intervalMs` up to it (default `intervalMs`).
   * A function is asked before each pause (a ceiling that depends on what the probe saw).
   */
  maxIntervalMs?: number | (() => number);
  /** Lengthen each pause by up to its own length at random, so processes contending for one thing drift apart. */
  jitter?: boolean;
  /** Files or directories whose change ends a pause early (not recursive; a missing one is not watched). */
  watch?: readonly string[];
  /** The caller's own wake-up source for the pauses, instead of `watch` (it stays the caller's to dispose). */
  wake?: Waker;
  /** Ends the wait with "aborted" (waitFor throws the signal's reason). */
  signal?: AbortSignal | undefined;
  /** What is waited for, in WAIT_TIMEOUT's message ("the pane to be ready"). */
  what?: string;
}

/** A wake-up source: resolves on a change, after `ms`, or on abort (base/wake.ts's Wake, lib/agent's FileWaker). */
export interface Waker {
  next(ms: number, signal?: AbortSignal): Promise<WakeReason>;
}

/** How a wait ended. */
export type WaitOutcome<T> =
  | { status: "done"; value: T; last: T; elapsedMs: number }
  | { status: "timeout" | "aborted"; last: T | undefined; elapsedMs: number };

/**
 * Probes until `until` accepts an observation, the budget runs out, or the signal aborts. The probe runs
 * at least once, once more at the deadline when the pauses end there, and once after an abort that ends
 * a pause (what it sees then still counts). It is told what ended the pause before it ("first" at first).
 */
export async function waitUntil<T>(
  probe: (woke: "first" | WakeReason) => T | Promise<T>,
  options: WaitOptions<T>,
): Promise<WaitOutcome<T>> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const until = options.until ?? ((v: T) => Boolean(v));
  const first = Math.max(0, options.intervalMs ?? 10);
  const ceiling = () => {
    const max = options.maxIntervalMs;
    return Math.max(first, (typeof max === "function" ? max() : max) ?? first);
  };
  const signal = options.signal;
  let own: Wake | null = null;
  if (!options.wake && options.watch && options.watch.length > 0) {
    own = new Wake();
    for (const path of options.watch) own.watch(path);
  }
  const wake = options.wake ?? own;
  let last: T | undefined = undefined;
  let woke: "first" | WakeReason = "first";
  try {
    for (let pause = first;;) {
      last = await probe(woke);
      if (until(last)) return { status: "done", value: last, last, elapsedMs: elapsed() };
      const left = options.timeoutMs - elapsed();
      if (left <= 0) return { status: "timeout", last, elapsedMs: elapsed() };
      if (signal?.aborted) return { status: "aborted", last, elapsedMs: elapsed() };
      if (options.again?.(last)) {
        woke = "change";
        continue;
      }
      const nap = Math.min(options.jitter ? pause + Math.random() * pause : pause, left);
      woke = wake ? await wake.next(nap, signal) : await sleepOrAbort(nap, signal);
      pause = Math.min(ceiling(), pause * 2 || ceiling());
    }
  } finally {
    own?.[Symbol.dispose]();
  }
}

/**
 * Probes until done and returns the accepted observation.
 * @throws {AppError} WAIT_TIMEOUT with `data.last` (the last observation), `data.timeout_ms`, `data.what`
 * @throws the signal's reason when it aborts
 */
export async function waitFor<T>(probe: () => T | Promise<T>, options: WaitOptions<T>): Promise<T> {
  const out = await waitUntil(probe, options);
  if (out.status === "done") return out.value;
  if (out.status === "aborted") throw options.signal?.reason ?? new DOMException("The wait was aborted", "AbortError");
  throw waitTimeout(options.what ?? "a condition", options.timeoutMs, out.last);
}

/** The WAIT_TIMEOUT error {@link waitFor} throws. */
export function waitTimeout(what: string, timeoutMs: number, last: unknown): AppError {
  return new AppError("WAIT_TIMEOUT", `Gave up waiting for ${what} after ${timeoutMs} ms`, {
    data: { what, timeout_ms: timeoutMs, last },
  });
}

/** Pauses `ms` (resolves early, without throwing, when the signal aborts). */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  await sleepOrAbort(ms, signal);
}

function sleepOrAbort(ms: number, signal: AbortSignal | undefined): Promise<"tick" | "aborted"> {
  if (signal?.aborted) return Promise.resolve("aborted");
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve("aborted");
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve("tick");
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
