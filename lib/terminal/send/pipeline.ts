/**
 * The send pipeline: text and keys into a session's pane, in order. A send is sanitised and size-checked, waits for
 * type-ahead (./type_ahead.ts), gathers the pane's facts (remembered from an earlier send while the pane process is
 * the same one, else asked of the multiplexer), plans (./plan.ts), takes the session's send lock
 * (./send_lock.ts), and types the plan with the record of the send (lib/terminal/files/last_send.ts). It owns what a
 * process remembers between sends: the pane facts, the log ends, the lines the shell may not have taken yet.
 */
import { log } from "../../../base/log.ts";
import {
  blockedInTerminalRead,
  foregroundBrief,
  foregroundProcess,
  processStartIdentity,
  readTerminalModes,
  sameProcessAlive,
  sameProcessStat,
} from "../../../platform/mod.ts";
import type { Multiplexer, MuxSession, PasteIfReady, ProcStat } from "../../../platform/mod.ts";
import { type HotFiles, readJsonFile, type StateLayout } from "../../../state/mod.ts";
import { SESSION_ID_PATTERN, type SessionMeta } from "../files/session_meta.ts";
import type { LastSend } from "../files/last_send.ts";
import { LogEnds, readLog } from "../files/output_log.ts";
import { resolveKey } from "./keys.ts";
import { type PaneFacts, type PlanOptions, planSend, type SendPlan } from "./plan.ts";
import { sanitizeInput } from "./sanitize.ts";
import { withSendLock } from "./send_lock.ts";
import { assertInputSize } from "./size.ts";
import { TypeAhead, type TypeAheadLook } from "./type_ahead.ts";
import { AppError } from "../../../base/errors.ts";

/** Input of {@link SendPipeline.send}. */
export interface SendInput {
  session_id: string;
  text: string;
  enter?: boolean | undefined;
  raw?: boolean | undefined;
  /** Append an end sentinel with a per-send nonce and the exit status; a string picks the dialect of a nested shell. */
  mark?: boolean | "posix" | "pwsh" | undefined;
}

/** Receipt of {@link SendPipeline.send}. */
export interface SendResult {
  session_id: string;
  /** `script`: multi-line text wrapped for the shell; `typed`: as is; `raw`: exact bytes. */
  mode: "script" | "typed" | "raw";
  bytes: number;
  enter: boolean;
  removed_controls: number;
  /** Log offset just before this send: read from here to see what it caused. */
  log_cursor: number;
  /** Whether an end sentinel was appended (pty_read wait:true then completes on it). */
  marked: boolean;
  /** A send lock left by a process that died was taken over: that earlier send may have been partly typed. */
  recovered_stale_lock: boolean;
}

/** Receipt of {@link SendPipeline.key}. */
export interface KeyResult {
  session_id: string;
  /** The canonical key name pressed. */
  key: string;
  /** As in {@link SendResult.recovered_stale_lock}. */
  recovered_stale_lock: boolean;
}

/** Dependencies of {@link SendPipeline}. */
export interface SendPipelineDeps {
  mux: Multiplexer;
  layout: StateLayout;
  /** The last sends' (and the read cursors') files (state/atomic.ts). */
  hotFiles: HotFiles;
  /**
   * The session's record and its live pane (a person's session gets a directory for its lock).
   * @throws {AppError} INVALID_ARGUMENT, SESSION_NOT_FOUND, SESSION_ENDED, TMUX_SERVER_GONE
   */
  requireLive(id: string, action: string): Promise<{ meta: SessionMeta | null; live: MuxSession }>;
  /** The session's record; null for unknown or human sessions. */
  meta(id: string): Promise<SessionMeta | null>;
  /** Restarts a stopped log writer (lib/terminal/log_supervisor.ts LogSupervisor.check); never throws. */
  logs: {
    check(
      meta: SessionMeta,
      options: { floor: number; piped?: boolean; onEnd?: (end: number) => void },
    ): Promise<unknown>;
  };
  /** Removes the typed text that dead senders left in scratch files (once per process). */
  sweepScratch(): Promise<number>;
}

/** Keys that interrupt what runs: a shell abandons the rest of the command line, so a pending sentinel never comes. */
const INTERRUPT_KEYS = new Set(["C-c", "C-\\"]);
/** Keys that submit the line being edited (see SendPipeline.key and ./type_ahead.ts). */
const ENTER_KEYS = new Set(["Enter", "KPEnter", "C-m", "C-j"]);
/** Keys after which the next wait looks only at what follows them (see SendPipeline.key). */
const LINE_ENDING_KEYS = new Set([...INTERRUPT_KEYS, "C-d", "C-z", ...ENTER_KEYS]);

/** After the multiplexer could not type in one round trip, how long sends ask tmux first without trying again. */
const ONE_TRIP_RETRY_MS = 10_000;

/** What a send remembers of a session's pane between sends: what does not change while the pane lives. */
interface KnownPane {
  /**
   * The session's meta, as read when the facts were taken. Written once per open, and an open (by any process)
   * makes a new pane process, which the identity tells apart: while the identity holds, so does the meta.
   */
  meta: SessionMeta;
  /** The pane process's start identity: the same pid with another one is another pane. */
  identity: string;
  live: MuxSession;
}

/** A plan with what typing it needs besides: the facts it came from and what the record of the send holds. */
interface Prepared {
  facts: PaneFacts;
  plan: SendPlan;
  /** The text answers a password prompt (echo off): it is not recorded as the last command. */
  secret: boolean;
  markProcess: { pid: number; start: string | null } | null;
}

/** See the module doc. */
export class SendPipeline {
  readonly #deps: SendPipelineDeps;
  /** Pane facts by session id, for sends in one tmux round trip (see #look). */
  readonly #panes = new Map<string, KnownPane>();
  /** The multiplexer said it cannot type in one round trip (the CLI transport): not tried again before this time. */
  #oneTripAfter = 0;
  /** Log ends for sends and keys, from one stat while a log's directory is unchanged. */
  readonly #logEnds = new LogEnds();
  /** Lines typed into a session's shell that it may not have taken yet (./type_ahead.ts). */
  readonly #typeAhead = new TypeAhead();

  constructor(deps: SendPipelineDeps) {
    this.#deps = deps;
  }

  /**
   * Types text into a session. `shellOnly`: only into a session pty_open opened; null when it is not one (nothing
   * was typed).
   * @throws {AppError} INVALID_ARGUMENT, SESSION_NOT_FOUND, SESSION_ENDED, INPUT_TOO_LARGE, SEND_LOCK_BUSY,
   *   SEND_LOCK_STALE, MARK_UNAVAILABLE
   */
  async send(input: SendInput, options: { shellOnly?: boolean } = {}): Promise<SendResult | null> {
    const id = input.session_id;
    const raw = input.raw ?? false;
    const enter = input.enter ?? true;
    const mark = input.mark ?? false;
    if (mark !== false && (raw || !enter)) {
      throw new AppError(
        "INVALID_ARGUMENT",
        "Cannot mark a send that is raw or has enter=false: the sentinel must run as a command",
        { data: { field: "mark" }, suggestion: "nothing was typed" },
      );
    }
    const { text, removed } = raw ? { text: input.text, removed: 0 } : sanitizeInput(input.text);
    const size = assertInputSize(text);
    await this.#deps.sweepScratch();
    // A pane remembered from an earlier send had its session directory (a closed one fails the lock's open).
    if (!this.#panes.has(id)) await this.#ensureLockDir(id, "send to");
    // A line just typed into the shell that it has not taken yet: wait for it first (./type_ahead.ts).
    await this.#typeAhead.settle(id, this.#typeAheadLook(id));
    // Decided before the lock, so it is held only to type. shellOnly: the caller skipped its own look at the
    // session because it was remembered as pty_open's.
    const planOptions = { text, raw, enter, mark, shellOnly: options.shellOnly ?? false };
    let prepared = await this.#prepare(id, planOptions, false);
    if (!prepared) return null;
    return await withSendLock(this.#deps.layout.sessionSendLock(id), { sessionId: id }, async (hold) => {
      // After a wait (or a dead sender's lock) the foreground may have changed: decide again.
      if (hold.waited || hold.recoveredStaleLock) prepared = await this.#prepare(id, planOptions, true);
      let typed: { cursor: number } | null = null;
      while (prepared && !typed) {
        typed = await this.#type(id, prepared, { raw, enter });
        // The remembered pane was gone, dead or without its log writer: nothing was typed; ask tmux, decide again.
        if (!typed) prepared = await this.#prepare(id, planOptions, true);
      }
      if (!prepared || !typed) return null;
      const { facts, plan } = prepared;
      const { cursor } = typed;
      if (enter && plan.atOwnShell && facts.meta?.integration === "osc133") {
        this.#typeAhead.submitted(id, cursor, facts.live.panePid);
      }
      if (hold.recoveredStaleLock) logStaleTakeover(id, hold.staleOwnerPid);
      return {
        session_id: id,
        mode: plan.mode,
        bytes: size,
        enter,
        removed_controls: removed,
        log_cursor: cursor,
        marked: plan.nonce !== null,
        recovered_stale_lock: hold.recoveredStaleLock,
      };
    });
  }

  /**
   * Presses one named key.
   * @throws {AppError} KEY_UNKNOWN, SESSION_NOT_FOUND, SESSION_ENDED, SEND_LOCK_*
   */
  async key(sessionId: string, key: string): Promise<KeyResult> {
    const { mux, layout } = this.#deps;
    const resolved = resolveKey(key);
    await this.#deps.sweepScratch();
    await this.#ensureLockDir(sessionId, "send a key to");
    // A lock left by a sender that died is taken over, so C-c, C-d and Escape always reach the pane.
    const hold = await withSendLock(layout.sessionSendLock(sessionId), { sessionId }, async (hold) => {
      // A key that ends or interrupts a line makes the next wait about what follows it (C-c at an idle
      // prompt: the shell's mark with 130, not the previous command's mark).
      const meta = LINE_ENDING_KEYS.has(resolved.name) ? await this.#deps.meta(sessionId) : null;
      const cursorNow = () => meta ? this.#logEnds.end(layout.sessionLogDir(sessionId), meta.segment_bytes) : null;
      let cursor: number | null = null;
      let sent = false;
      // One round trip where the multiplexer can check the pane in the key's own command; anything but "typed"
      // sent nothing, and the pane is asked for below (its error, or the key after all).
      if (mux.sendKeysIfAlive && performance.now() >= this.#oneTripAfter) {
        cursor = cursorNow();
        const r = await mux.sendKeysIfAlive(sessionId, [resolved.muxKey]);
        sent = r === "typed";
        if (r === "unavailable") this.#oneTripAfter = performance.now() + ONE_TRIP_RETRY_MS;
      }
      if (!sent) {
        await this.#deps.requireLive(sessionId, "send a key to");
        cursor = cursorNow();
        await mux.sendKeys(sessionId, [resolved.muxKey]);
      }
      if (cursor !== null) await this.#noteLineKey(sessionId, cursor, INTERRUPT_KEYS.has(resolved.name));
      // Enter at the session's own integrated shell submits the line typed before it (./type_ahead.ts), when the
      // pane is known from an earlier send (no extra tmux question for it).
      const shell = this.#panes.get(sessionId)?.live.panePid;
      if (
        cursor !== null && ENTER_KEYS.has(resolved.name) && shell !== undefined &&
        meta?.integration === "osc133" && foregroundBrief(shell)?.pid === shell
      ) {
        this.#typeAhead.submitted(sessionId, cursor, shell);
      }
      return hold;
    });
    if (hold.recoveredStaleLock) logStaleTakeover(sessionId, hold.staleOwnerPid);
    return { session_id: sessionId, key: resolved.name, recovered_stale_lock: hold.recoveredStaleLock };
  }

  /**
   * Whether session `id` is remembered (from an earlier send of this process) as one pty_open opened, which is
   * never an agent's. Not checked against the pane here: {@link send} with `shellOnly` checks it.
   */
  remembersShell(id: string): boolean {
    return this.#panes.get(id)?.meta?.kind === "shell";
  }

  /** A read saw the shell's mark or the sentinel after session `id`'s last send: its shell took that line. */
  lineTaken(id: string): void {
    this.#typeAhead.forget(id);
  }

  /** Forgets what this process remembers of session `id` (it is being closed). */
  forget(id: string): void {
    this.#typeAhead.forget(id);
    this.#deps.hotFiles.forget(this.#deps.layout.sessionLastCommand(id));
    this.#logEnds.forget(this.#deps.layout.sessionLogDir(id));
    this.#panes.delete(id);
  }

  /** The last send to a session, if any. */
  async lastSend(id: string): Promise<LastSend | null> {
    return await readJsonFile<LastSend>(this.#deps.layout.sessionLastCommand(id)).catch(() => null);
  }

  /**
   * The facts, the plan and the record's extras for one send; null when `shellOnly` found another kind of session.
   * `ask`: ask tmux for the pane (do not use remembered facts).
   */
  async #prepare(id: string, options: Omit<PlanOptions, "nonce">, ask: boolean): Promise<Prepared | null> {
    const nonce = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
    let facts = await this.#look(id, ask);
    for (;;) {
      const outcome = planSend(facts, { ...options, nonce });
      if (outcome.kind === "not_shell") return null;
      if (outcome.kind === "ask_again") facts = await this.#look(id, true);
      else if (outcome.kind === "needs_screen") {
        facts = { ...facts, screen: await this.#deps.mux.capture(id).catch(() => "") };
      } else {
        const { plan } = outcome;
        const markProcess = plan.markPid === null
          ? null
          : { pid: plan.markPid, start: processStartIdentity(plan.markPid) };
        return { facts, plan, secret: await this.#secretLine(facts, plan), markProcess };
      }
    }
  }

  /**
   * The session and its pane for a send. Facts remembered from an earlier send are used when they are still
   * this pane's (the pane process alive with the same start identity: one /proc read, whose stat also serves the
   * foreground look) and the multiplexer can check the rest in the paste's own round trip (pasteIfReady); else
   * tmux is asked. `ask`: always ask tmux.
   */
  async #look(id: string, ask: boolean): Promise<PaneFacts> {
    const mux = this.#deps.mux;
    const oneTrip = mux.pasteIfReady !== undefined && performance.now() >= this.#oneTripAfter;
    const known = this.#panes.get(id);
    if (known && !ask && oneTrip) {
      const paneStat = sameProcessStat(known.live.panePid, known.identity);
      // Where the kernel's stat is not read (not Linux), the same question to ps.
      if (paneStat || sameProcessAlive(known.live.panePid, known.identity)) {
        return withForeground({ meta: known.meta, live: known.live, remembered: true }, paneStat ?? undefined);
      }
    }
    this.#panes.delete(id);
    const { meta, live } = await this.#deps.requireLive(id, "send to");
    const identity = oneTrip && meta && live.piped !== false ? processStartIdentity(live.panePid) : null;
    if (meta && identity) this.#panes.set(id, { meta, identity, live });
    return withForeground({ meta, live, remembered: false });
  }

  /**
   * Whether the text answers a program reading a line with echo off (a password prompt): then it is never written to
   * disk. The modes are asked for (one stty) only when a plain read of the terminal waits (the read builtin,
   * getpass), or, where the kernel cannot say (no /proc), when a program other than the shell waits. The brief look
   * says whether a thread is in a read call at all; only then are its descriptors looked at.
   */
  async #secretLine(facts: PaneFacts, plan: SendPlan): Promise<boolean> {
    const panePid = facts.live.panePid;
    const fg = facts.foreground;
    const lineRead = fg
      ? fg.inRead === true && blockedInTerminalRead(foregroundProcess(panePid)?.inputWait ?? null)
      : !plan.atOwnShell;
    return lineRead && await readTerminalModes(panePid).then((m) => m !== null && m.canonical && !m.echo);
  }

  /**
   * Types a prepared send under the lock: the log writer check, the cursor, the text, and the record of the
   * send (written while tmux types, in place once the text was typed).
   * @returns the cursor before the send, or null when a plan from remembered pane facts found the pane not
   *   ready (nothing typed)
   */
  async #type(
    id: string,
    prepared: Prepared,
    how: { raw: boolean; enter: boolean },
  ): Promise<{ cursor: number } | null> {
    const { mux, layout, hotFiles } = this.#deps;
    const { facts, plan } = prepared;
    const { meta, live } = facts;
    // A stopped log writer is restarted before typing, so what this send causes is recorded (no extra tmux call;
    // a remembered pane's writer is checked by tmux in the paste's own round trip).
    let end: number | null = null;
    if (meta) await this.#checkLogWriter(meta, live.piped, (e) => (end = e), !facts.remembered);
    // The check's own look at the log gives the cursor when the writer was fine (else the log is looked at again).
    const cursor = meta ? end ?? this.#logEnds.end(layout.sessionLogDir(meta.id), meta.segment_bytes) : 0;
    const last: LastSend = {
      text: prepared.secret ? "" : plan.body.slice(0, 4096),
      at: new Date().toISOString(),
      cursor,
      nonce: plan.nonce,
      mark_dialect: plan.markDialect,
      mark_suffix: plan.suffix,
      mark_process: prepared.markProcess,
    };
    const options = { exact: how.raw, keysAfter: how.enter ? ["Enter"] : [] };
    const remembered = facts.remembered && mux.pasteIfReady !== undefined;
    const pasting: Promise<PasteIfReady> = remembered
      ? mux.pasteIfReady!(id, plan.payload, options)
      : mux.pasteText(id, plan.payload, options).then(() => "typed" as const);
    // The record is written while tmux types (the paste's line is on its way), and put in place once it typed.
    const record = hotFiles.stageJson(layout.sessionLastCommand(id), last);
    let r: PasteIfReady;
    try {
      r = await pasting;
    } catch (err) {
      record.abandon();
      this.#panes.delete(id);
      throw err;
    }
    if (r !== "typed") {
      // Nothing was typed: the caller plans again from what tmux says.
      record.abandon();
      this.#panes.delete(id);
      if (r === "unavailable") this.#oneTripAfter = performance.now() + ONE_TRIP_RETRY_MS;
      return null;
    }
    await record.publish();
    return { cursor };
  }

  /**
   * Restarts the session's log writer if it stopped (see LogSupervisor.check); never throws. `savedFloor`: also
   * bound the log's end by the cursors on disk (other processes' too); without it, by what this process saw.
   */
  async #checkLogWriter(
    meta: SessionMeta,
    piped: boolean | undefined,
    onEnd: (end: number) => void,
    savedFloor: boolean,
  ): Promise<void> {
    const id = meta.id;
    // Cursors handed out earlier bound the log's end from below: a lower end means its newest file was deleted.
    // The supervisor remembers the highest end it saw; a send to a remembered pane relies on that alone.
    const [saved, last] = savedFloor
      ? await Promise.all([
        readJsonFile<{ cursor: number }>(this.#deps.layout.sessionCursor(id)).catch(() => null),
        this.lastSend(id),
      ])
      : [null, null];
    const floor = Math.max(saved?.cursor ?? 0, last?.cursor ?? 0);
    await this.#deps.logs.check(meta, { floor, ...(piped === undefined ? {} : { piped }), onEnd });
  }

  /**
   * Records a line-ending key as the last send (its log cursor), unless a marked send's sentinel is
   * still pending: that sentinel may come after the key (an answer to a prompt), so it stays — except
   * after an interrupt, which abandons the command line the sentinel was part of.
   */
  async #noteLineKey(id: string, cursor: number, interrupt: boolean): Promise<void> {
    const previous = await this.lastSend(id);
    // An interrupt abandons the whole command line a shell was running, sentinel included.
    if (previous?.nonce && !interrupt) return;
    const last: LastSend = {
      text: "",
      at: new Date().toISOString(),
      cursor,
      nonce: null,
      mark_dialect: null,
      mark_suffix: null,
    };
    await this.#deps.hotFiles.putJson(this.#deps.layout.sessionLastCommand(id), last);
  }

  /** What a send waiting for the shell to take its previous line looks at (./type_ahead.ts). */
  #typeAheadLook(id: string): TypeAheadLook {
    // Read once per wait: the probes of one wait only look at the log again.
    let meta: Promise<SessionMeta | null> | null = null;
    return {
      foreground: (shell) => foregroundBrief(shell)?.pid ?? null,
      promptAfter: async (cursor) => {
        const m = await (meta ??= this.#deps.meta(id));
        if (!m) return true;
        const limit = 1 << 16;
        const slice = await readLog(this.#deps.layout.sessionLogDir(id), m.segment_bytes, {
          from: cursor,
          maxBytes: limit,
        });
        // More output than that after the line: the shell ran it.
        return slice.bytes.length >= limit || new TextDecoder().decode(slice.bytes).includes("\x1b]133;A");
      },
    };
  }

  /** The send lock lives in the session directory; a missing one means an unknown or human session. */
  async #ensureLockDir(id: string, action: string): Promise<void> {
    if (SESSION_ID_PATTERN.test(id) && existsSync(this.#deps.layout.sessionDir(id))) return;
    await this.#deps.requireLive(id, action);
  }
}

/**
 * `facts` with the kernel's foreground process (Linux): its stat `paneStat` when the caller just read it. Where there
 * is none, the multiplexer's current command stands for it (see ./plan.ts).
 */
function withForeground(facts: Omit<PaneFacts, "foreground">, paneStat?: ProcStat): PaneFacts {
  const fg = foregroundBrief(facts.live.panePid, paneStat);
  return { ...facts, foreground: fg ? { pid: fg.pid, name: fg.name, inRead: fg.inRead } : null };
}

/** Whether `path` exists (one synchronous stat: cheaper on the send path than a hop to the I/O thread pool). */
function existsSync(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A taken-over lock is worth a line in the log (codes and pids only, never text). */
export function logStaleTakeover(sessionId: string, pid: number | null): void {
  log("warn", "send lock of a dead process taken over", { session_id: sessionId, stale_owner_pid: pid });
}
