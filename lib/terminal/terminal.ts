/**
 * The terminal service: the one way the layers above (lib/mcp, lib/agent) reach a session. A facade that wires the
 * parts together and hands each call to the part that does it:
 * - ./sessions.ts: open, open a program, the name claim, close, list, prune, the questions about one session;
 * - ./send/: the send pipeline (text and keys into a pane, the send lock, the record of the last send);
 * - ./read.ts and ./observe.ts: reads, waits and looks, over the parts in {@link TerminalParts};
 * - ./log_supervisor.ts: the log writers' liveness and retention.
 * The multiplexer does the terminal work and the state layout says where files live; neither is handed out.
 */
import type { Config } from "../../base/config.ts";
import { log } from "../../base/log.ts";
import { HotFiles, type StateLayout } from "../../state/mod.ts";
import { sweepScratch } from "../../platform/mod.ts";
import type { Multiplexer, MuxSession } from "../../platform/mod.ts";
import type { LastSend } from "./files/last_send.ts";
import type { SessionMeta } from "./files/session_meta.ts";
import { LogSupervisor } from "./log_supervisor.ts";
import { PaneBatch } from "./pane_batch.ts";
import { ReadBuffers } from "./read_page.ts";
import { ReadGate } from "./read_gate.ts";
import type { TerminalParts } from "./parts.ts";
import { type ReadInput, type ReadOptions, type ReadResult, readSession } from "./read.ts";
import { type ObserveResult, observeSession } from "./observe.ts";
import { type OpenInput, type OpenResult, type SessionRow, Sessions } from "./sessions.ts";
import { type KeyResult, type SendInput, SendPipeline, type SendResult, withSendLock } from "./send/mod.ts";

/** Dependencies of {@link Terminal}. */
export interface TerminalDeps {
  mux: Multiplexer;
  layout: StateLayout;
  /** The server's environment (source of `env_vars` values and PATH). */
  env: Record<string, string>;
  /** Default cwd for new sessions. */
  defaultCwd: string;
  /** The program's settings (base/config.ts): shell-ready timeout, log segment size and count, … */
  config: Config;
}

/** See the module doc. */
export class Terminal {
  readonly #mux: Multiplexer;
  readonly #layout: StateLayout;
  readonly #sessions: Sessions;
  readonly #sends: SendPipeline;
  readonly #logs: LogSupervisor;
  /** What the readers use (./parts.ts). */
  readonly #parts: TerminalParts;
  #swept: Promise<number> | null = null;
  /** The program's settings, read once by its root (the agent layer reads its startup bound from it). */
  readonly config: Config;
  /** The state root this service keeps its files under (runtime errors and delivery records live there too). */
  readonly stateRoot: string;

  constructor(deps: TerminalDeps) {
    const { mux, layout } = deps;
    this.#mux = mux;
    this.#layout = layout;
    this.config = deps.config;
    this.stateRoot = layout.root;
    const hotFiles = new HotFiles();
    const panes = new PaneBatch(mux);
    this.#logs = new LogSupervisor({ mux, layout, panes });
    this.#sessions = new Sessions({
      mux,
      layout,
      env: deps.env,
      defaultCwd: deps.defaultCwd,
      config: deps.config,
      forget: (id) => {
        this.#sends.forget(id);
        hotFiles.forget(layout.sessionCursor(id));
      },
    });
    this.#sends = new SendPipeline({
      mux,
      layout,
      hotFiles,
      requireLive: (id, action) => this.#sessions.requireLive(id, action),
      meta: (id) => this.#sessions.meta(id),
      logs: this.#logs,
      sweepScratch: () => this.sweepScratch(),
    });
    this.#parts = {
      mux,
      layout,
      logs: this.#logs,
      panes,
      readBuffers: new ReadBuffers(),
      readGate: new ReadGate(),
      hotFiles,
      meta: (id) => this.#sessions.meta(id),
      describe: (id) => this.#sessions.describe(id),
      prune: (meta) => this.#sessions.prune(meta),
      throwIfServerGone: (id, action) => this.#sessions.throwIfServerGone(id, action),
      lastSend: (id) => this.#sends.lastSend(id),
      lineTaken: (id) => this.#sends.lineTaken(id),
    };
  }

  /** Read-only facts about the multiplexer for diagnostics (nothing here types or changes a session). */
  get backend(): Pick<Multiplexer, "kind" | "probeVersion" | "ensureAvailable" | "serverRunning" | "listSessions"> {
    return this.#mux;
  }

  // ── The server's life: log supervision from start to shutdown. ──

  /** Keeps every session's log within its cap and restarts stopped writers while this process runs. */
  superviseLogs(onRestart: () => void): void {
    this.#logs.onRestart = onRestart;
    this.#logs.start();
  }

  /** How many live sessions' log writers are down (null when it cannot be told). */
  logWritersDown(): Promise<number | null> {
    return this.#logs.writersDown();
  }

  /** Stops the log supervision and the multiplexer's long-lived client, if any (a process ending, a test). */
  async shutdown(): Promise<void> {
    await this.#logs.stop();
    await (this.#mux as { close?: () => Promise<void> }).close?.();
  }

  // ── Sessions (./sessions.ts). ──

  /**
   * Opens a new persistent session.
   * @throws {AppError} INVALID_ARGUMENT, SESSION_EXISTS, SHELL_NOT_FOUND, CWD_NOT_FOUND, CWD_UNUSABLE, TMUX_*
   */
  open(input: OpenInput): Promise<OpenResult> {
    return this.#sessions.open(input);
  }

  /**
   * Opens a session that runs a program directly (an agent CLI) instead of a shell; see Sessions.openProgram.
   * @throws {AppError} SESSION_EXISTS, INVALID_ARGUMENT, TMUX_*
   */
  openProgram(input: Parameters<Sessions["openProgram"]>[0]): ReturnType<Sessions["openProgram"]> {
    return this.#sessions.openProgram(input);
  }

  /** Checks a name is free without claiming it (for validation before any session exists). */
  nameAvailable(name: string): Promise<boolean> {
    return this.#sessions.nameAvailable(name);
  }

  /** Closes a session and removes its files. Idempotent. */
  close(id: string): Promise<{ session_id: string; outcome: "closed" | "already_closed" }> {
    return this.#sessions.close(id);
  }

  /** Every session on the private server plus ended sessions whose logs remain. */
  list(): Promise<SessionRow[]> {
    return this.#sessions.list();
  }

  /** Whether aiterm set each asked variable for each session (presence only, never values). */
  listEnvironment(rows: SessionRow[], keys: string[]): Promise<Record<string, Record<string, boolean>>> {
    return this.#sessions.listEnvironment(rows, keys);
  }

  /**
   * Refuses a generation that is not the session's current one. Absent `generation` is not checked.
   * @throws {AppError} SESSION_STALE
   */
  checkGeneration(id: string, generation: string | null | undefined): Promise<void> {
    return this.#sessions.checkGeneration(id, generation);
  }

  /** The meta of a session aiterm opened; null for unknown or human sessions. */
  meta(id: string): Promise<SessionMeta | null> {
    return this.#sessions.meta(id);
  }

  /** The meta of a session aiterm opened, with whether it is still running. */
  describe(id: string): Promise<{ meta: SessionMeta | null; live: MuxSession | null }> {
    return this.#sessions.describe(id);
  }

  /**
   * Throws TMUX_SERVER_GONE when a session's pane is missing because the whole server is not running.
   * @throws {AppError} TMUX_SERVER_GONE
   */
  throwIfServerGone(id: string, action: string): Promise<void> {
    return this.#sessions.throwIfServerGone(id, action);
  }

  /** The directory holding a session's files (its owner's records live there too, and go with it on close). */
  sessionDir(id: string): string {
    return this.#layout.sessionDir(id);
  }

  /** The command a human runs to attach to a session. */
  attachCommand(id: string): string {
    return this.#sessions.attachCommand(id);
  }

  // ── Sends and keys (./send/). ──

  /**
   * Types text into a session.
   * @throws {AppError} SESSION_NOT_FOUND, SESSION_ENDED, INPUT_TOO_LARGE, SEND_LOCK_BUSY, SEND_LOCK_STALE,
   *   MARK_UNAVAILABLE
   */
  async send(input: SendInput): Promise<SendResult> {
    return (await this.#sends.send(input))!;
  }

  /**
   * {@link send}, only into a session pty_open opened: null (nothing typed) when session `input.session_id` is
   * another kind (an agent's, opened under the same name meanwhile). For a caller that skipped its own look at
   * the session because {@link remembersShell} said so.
   */
  sendIfShell(input: SendInput): Promise<SendResult | null> {
    return this.#sends.send(input, { shellOnly: true });
  }

  /**
   * Whether session `id` is remembered (from an earlier send of this process) as one pty_open opened, which is
   * never an agent's. Not checked against the pane here: {@link sendIfShell} checks it.
   */
  remembersShell(id: string): boolean {
    return this.#sends.remembersShell(id);
  }

  /**
   * Presses one named key.
   * @throws {AppError} KEY_UNKNOWN, SESSION_NOT_FOUND, SESSION_ENDED, SEND_LOCK_*
   */
  key(sessionId: string, key: string): Promise<KeyResult> {
    return this.#sends.key(sessionId, key);
  }

  /** The last send to a session, if any. */
  lastSend(id: string): Promise<LastSend | null> {
    return this.#sends.lastSend(id);
  }

  /**
   * Runs `fn` under the session's send lock (shared with pty_send and pty_key). A lock left by a
   * process that died is not taken over here (SEND_LOCK_STALE): agent turns are typed in steps, so
   * a caller first looks at the screen and presses a key (pty_key takes it over, and says so).
   */
  withLock<T>(id: string, fn: () => Promise<T>): Promise<T> {
    return withSendLock(this.#layout.sessionSendLock(id), { sessionId: id, takeover: false }, () => fn());
  }

  /**
   * Removes the scratch files (typed text) that processes which died mid-send left behind; files of
   * live processes stay. Runs once per Terminal: at server start-up, else before the first send or key.
   */
  sweepScratch(): Promise<number> {
    this.#swept ??= sweepScratch(this.#layout.scratchDir).catch((err) => {
      log("warn", "scratch sweep failed", { error: String(err) });
      return 0;
    });
    return this.#swept;
  }

  // ── Program input for the layers above (lib/agent): the only way they reach a pane. ──

  /** The session's pane as the multiplexer reports it now; null when there is none. */
  pane(id: string): Promise<MuxSession | null> {
    return this.#mux.paneInfo(id);
  }

  /** The session's screen as text, with `scrollback` lines of history when asked; null when it cannot be read. */
  async screen(id: string, options: { scrollback?: number } = {}): Promise<string | null> {
    return await this.#mux.capture(id, options).catch(() => null);
  }

  /**
   * Types into the program in the pane exactly as given: `paste` as one paste (bracketed when asked), or
   * tmux-named `keys`. No sanitising and no send lock: lib/agent/typing.ts, the agent layer's one typing
   * chokepoint, sanitises caller text and holds the session's lock (see Terminal.withLock).
   */
  async typeExact(id: string, input: { paste: string; bracketed: boolean } | { keys: string[] }): Promise<void> {
    if ("keys" in input) await this.#mux.sendKeys(id, input.keys);
    else await this.#mux.pasteText(id, input.paste, input.bracketed ? { bracketed: true } : {});
  }

  // ── Reads (./read.ts, ./observe.ts). ──

  /**
   * Reads a session: new output, a page, the screen, or a wait for the command to finish (see ./read.ts).
   * @throws {AppError} SESSION_NOT_FOUND, INVALID_ARGUMENT, READ_IN_PROGRESS
   */
  read(input: ReadInput, options: ReadOptions = {}): Promise<ReadResult> {
    return readSession(this.#parts, input, options);
  }

  /**
   * Observes a session without consuming its output (see ./observe.ts).
   * @throws {AppError} SESSION_NOT_FOUND, INVALID_ARGUMENT
   */
  observe(id: string, cursor?: string | null): Promise<ObserveResult> {
    return observeSession(this.#parts, id, cursor);
  }
}
