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
import { Wake } from "./wake.ts";

/** Options for {@link waitUntil} and {@link waitFor}. */
export interface WaitOptions<T> {
  /** The whole budget from the call (a probe that runs past it still finishes; then the wait ends). */
  timeoutMs: number;
  /** Done when this says so (default: the observation is truthy). */
  until?: (observation: T) => boolean;
  /** The first pause between looks (default 10 ms). */
  intervalMs?: number;
  /** The longest pause between looks; the pause doubles from `intervalMs` up to it (default `intervalMs`). */
  maxIntervalMs?: number;
  /** Lengthen each pause by up to its own length at random, so processes contending for one thing drift apart. */
  jitter?: boolean;
  /** Files or directories whose change ends a pause early (not recursive; a missing one is not watched). */
  watch?: readonly string[];
  /** Ends the wait with "aborted" (waitFor throws the signal's reason). */
  signal?: AbortSignal | undefined;
  /** What is waited for, in WAIT_TIMEOUT's message ("the pane to be ready"). */
  what?: string;
}

/** How a wait ended. */
export type WaitOutcome<T> =
  | { status: "done"; value: T; last: T; elapsedMs: number }
  | { status: "timeout" | "aborted"; last: T | undefined; elapsedMs: number };

/**
 * Probes until `until` accepts an observation, the budget runs out, or the signal aborts. The probe runs
 * at least once, and once more at the deadline when the pauses end there.
 */
export async function waitUntil<T>(probe: () => T | Promise<T>, options: WaitOptions<T>): Promise<WaitOutcome<T>> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const until = options.until ?? ((v: T) => Boolean(v));
  const first = Math.max(0, options.intervalMs ?? 10);
  const ceiling = Math.max(first, options.maxIntervalMs ?? first);
  const signal = options.signal;
  let wake: Wake | null = null;
  if (options.watch && options.watch.length > 0) {
    wake = new Wake();
    for (const path of options.watch) wake.watch(path);
  }
  let last: T | undefined = undefined;
  try {
    for (let pause = first;; pause = Math.min(ceiling, pause * 2 || ceiling)) {
      if (signal?.aborted) return { status: "aborted", last, elapsedMs: elapsed() };
      last = await probe();
      if (until(last)) return { status: "done", value: last, last, elapsedMs: elapsed() };
      const left = options.timeoutMs - elapsed();
      if (left <= 0) return { status: "timeout", last, elapsedMs: elapsed() };
      const woke = wake
        ? await wake.next(Math.min(pause, left), signal)
        : await sleepOrAbort(Math.min(pause, left), signal);
      if (woke === "aborted") return { status: "aborted", last, elapsedMs: elapsed() };
    }
  } finally {
    wake?.[Symbol.dispose]();
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
