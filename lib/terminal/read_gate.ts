/**
 * One consuming read of a session at a time, in this process (issue 28, ADR 0032). A read that moves the session's
 * cursor holds the session's gate from before it reads the cursor until its answer has reached the client (or did
 * not: then the cursor stays). A second such read meanwhile waits its turn and then reads the rest, so two waits on
 * one session (a call a client moved to the background and the model's next one) never return the same output, and
 * a call the client cancelled consumes nothing.
 */

/** A held gate: release it exactly once. */
export interface GateTicket {
  release(): void;
}

/** How a turn is waited for. */
export interface GateWait {
  /** The longest to wait for the turn, in ms (0: only if it is free now). */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Called about once a second while waiting (the caller's progress notifications). */
  tick?: (waitedMs: number) => void;
}

/** The per-session gates of one process. */
export class ReadGate {
  readonly #tails = new Map<string, Promise<void>>();
  readonly #busy = new Set<string>();

  /** Whether a read of `id` holds its gate or waits for it. */
  busy(id: string): boolean {
    return this.#busy.has(id);
  }

  /** Takes the gate of `id` in turn; null when the wait ran out or was aborted first (nothing is held then). */
  async enter(id: string, wait: GateWait): Promise<GateTicket | null> {
    const before = this.#tails.get(id);
    let open!: () => void;
    const mine = new Promise<void>((resolve) => (open = resolve));
    const tail = before ? before.then(() => mine) : mine;
    this.#tails.set(id, tail);
    this.#busy.add(id);
    void tail.then(() => {
      if (this.#tails.get(id) === tail) {
        this.#tails.delete(id);
        this.#busy.delete(id);
      }
    });
    let released = false;
    const ticket: GateTicket = {
      release() {
        if (released) return;
        released = true;
        open();
      },
    };
    if (!before) return ticket;
    if (await turnCame(before, wait)) return ticket;
    // Gave up: the readers after this one still wait for those before it.
    ticket.release();
    return null;
  }
}

/** Resolves true when `turn` settles within the wait, false when the wait runs out or is aborted. */
function turnCame(turn: Promise<void>, wait: GateWait): Promise<boolean> {
  if (wait.signal?.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const started = performance.now();
    let done = false;
    const finish = (came: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(ticker);
      wait.signal?.removeEventListener("abort", onAbort);
      resolve(came);
    };
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(false), Math.max(0, wait.timeoutMs));
    const ticker = setInterval(() => wait.tick?.(Math.round(performance.now() - started)), 1000);
    wait.signal?.addEventListener("abort", onAbort, { once: true });
    void turn.then(() => finish(true));
  });
}
