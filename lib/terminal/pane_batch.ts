/**
 * One pane query at a time, however many waits ask: the per-session pane questions of waiting reads
 * (is the pane alive, what runs in it, is its log writer attached) are answered by one listing of
 * every pane when they come together. Each waiting `pty_read` asks once a tick; with 200 sessions
 * waiting that was 2,000 tmux commands a second, queued behind every send (issue 16 item 5).
 *
 * A question asked while nothing else is asked goes to the multiplexer as before (`paneInfo` /
 * `pipeActive` of that session), so a single session's latency does not change. A question asked
 * while another is in flight waits for the next listing, which starts only after it was asked: an
 * answer is never older than its question. Answers come from the first pane of each session in the
 * listing (`list-panes -a`), which is the session's pane for every session aiterm opened (one window,
 * one pane); use the multiplexer directly where a person's split window must be told apart.
 */
import type { Multiplexer, MuxSession } from "../../platform/mod.ts";

type Ask =
  | { kind: "pane"; resolve: (v: MuxSession | null) => void; reject: (e: unknown) => void }
  | { kind: "pipe"; resolve: (v: boolean | null) => void; reject: (e: unknown) => void };

/** See the module doc. One per multiplexer ({@link paneBatch}). */
export class PaneBatch {
  readonly #mux: Multiplexer;
  /** Queries (single or listing) in flight. */
  #busy = 0;
  /** Questions waiting for the next listing, by session name. */
  #next: Map<string, Ask[]> | null = null;
  /** Listings run (diagnostics and tests). */
  listings = 0;

  constructor(mux: Multiplexer) {
    this.#mux = mux;
  }

  /** {@link Multiplexer.paneInfo} of `name`, answered together with concurrent questions. */
  paneInfo(name: string): Promise<MuxSession | null> {
    if (this.#idle()) return this.#single(() => this.#mux.paneInfo(name));
    return new Promise((resolve, reject) => this.#enqueue(name, { kind: "pane", resolve, reject }));
  }

  /** {@link Multiplexer.pipeActive} of `name` (null: no live pane), answered together with concurrent questions. */
  pipeActive(name: string): Promise<boolean | null> {
    if (this.#idle()) return this.#single(() => this.#mux.pipeActive(name));
    return new Promise((resolve, reject) => this.#enqueue(name, { kind: "pipe", resolve, reject }));
  }

  #idle(): boolean {
    return this.#busy === 0 && this.#next === null;
  }

  async #single<T>(ask: () => Promise<T>): Promise<T> {
    this.#busy++;
    try {
      return await ask();
    } finally {
      this.#busy--;
      this.#flushIfIdle();
    }
  }

  #enqueue(name: string, ask: Ask): void {
    const next = this.#next ??= new Map();
    const list = next.get(name);
    if (list) list.push(ask);
    else next.set(name, [ask]);
    this.#flushIfIdle();
  }

  #flushIfIdle(): void {
    if (this.#busy === 0 && this.#next !== null) void this.#flush();
  }

  async #flush(): Promise<void> {
    const waiting = this.#next!;
    this.#next = null;
    this.#busy++;
    try {
      const asks = [...waiting.values()].flat();
      if (asks.length === 1) {
        // Nothing to share: the question the caller asked, exactly.
        const [name] = waiting.keys();
        await this.#answerOne(name!, asks[0]!);
        return;
      }
      let listed: Map<string, MuxSession>;
      try {
        listed = new Map((await this.#mux.listSessions()).map((s) => [s.name, s]));
        this.listings++;
      } catch {
        // The listing failed: each question gets its own query (and its own error, if any).
        await Promise.all([...waiting].flatMap(([name, list]) => list.map((a) => this.#answerOne(name, a))));
        return;
      }
      for (const [name, list] of waiting) {
        const s = listed.get(name) ?? null;
        for (const a of list) {
          if (a.kind === "pane") a.resolve(s);
          // Like pipeActive: no live pane is null; a pane the multiplexer gives no pipe state for is not a stopped writer.
          else a.resolve(s === null || s.paneDead ? null : s.piped !== false);
        }
      }
    } finally {
      this.#busy--;
      this.#flushIfIdle();
    }
  }

  async #answerOne(name: string, a: Ask): Promise<void> {
    try {
      if (a.kind === "pane") a.resolve(await this.#mux.paneInfo(name));
      else a.resolve(await this.#mux.pipeActive(name));
    } catch (err) {
      a.reject(err);
    }
  }
}
