/**
 * The terminal service: open, send, key, close and list persistent sessions. It owns the order of
 * each operation and the session's files; the multiplexer does the terminal work and the state
 * layout says where files live.
 */
import { dirname, isAbsolute } from "node:path";
import { CHILD_VARS, type Config } from "../../base/config.ts";
import { AppError } from "../../base/errors.ts";
import { log } from "../../base/log.ts";
import { HotFiles, readJsonFile, StateLayout, writeFileAtomic } from "../state/mod.ts";
import {
  blockedInTerminalRead,
  dialectById,
  dialectForShell,
  findExecutable,
  foregroundBrief,
  foregroundProcess,
  integratedShell,
  outputSinkCommand,
  posixQuote,
  processStartIdentity,
  readTerminalModes,
  resolveProgram,
  sameProcessAlive,
  sameProcessStat,
  sweepScratch,
} from "../../platform/mod.ts";
import type { Multiplexer, MuxSession, PasteIfReady, ProcStat } from "../../platform/mod.ts";
import { assertInputSize } from "./chunks.ts";
import { resolveKey } from "./keys.ts";
import { decideMark } from "./mark_target.ts";
import { watchLog } from "./log_watch.ts";
import { LogSupervisor } from "./log_supervisor.ts";
import { LogEnds, logExtent, pruneLog, readLog } from "./output_log.ts";
import { sanitizeInput } from "./sanitize.ts";
import { NO_PAGER_ENV } from "./pager_env.ts";
import { readSendLock, withSendLock } from "./send_lock.ts";
import { PaneBatch } from "./pane_batch.ts";
import { TypeAhead, type TypeAheadLook } from "./type_ahead.ts";
import { ReadBuffers } from "./read_page.ts";
import { ReadGate } from "./read_gate.ts";
import type { LastSend } from "./last_send.ts";
import { newGeneration, readMeta, SESSION_ID_PATTERN, type SessionMeta, writeMeta } from "./session_meta.ts";

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

/** Input of {@link Terminal.open}. */
export interface OpenInput {
  name?: string | null | undefined;
  shell?: string | null | undefined;
  cwd?: string | null | undefined;
  env_vars?: string[] | undefined;
}

/** Receipt of {@link Terminal.open}. */
export interface OpenResult {
  session_id: string;
  shell: string;
  dialect: "posix" | "pwsh" | null;
  cwd: string;
  /** Names actually copied into the session. */
  env_vars: string[];
  /** Names asked for in `env_vars` that the server does not have: not set in the session (not an error). */
  env_vars_skipped: string[];
  attach_command: string;
  log_cursor: number;
  /** The shell printed its first prompt (integrated shells); null when aiterm cannot tell. */
  shell_ready: boolean | null;
  /** This generation of the session id (pass it back to be refused if the session was replaced). */
  generation: string;
}

/** Input of {@link Terminal.send}. */
export interface SendInput {
  session_id: string;
  text: string;
  enter?: boolean | undefined;
  raw?: boolean | undefined;
  /** Append an end sentinel with a per-send nonce and the exit status; a string picks the dialect of a nested shell. */
  mark?: boolean | "posix" | "pwsh" | undefined;
}

/** A send with `shellOnly` found a session pty_open did not open (nothing was typed): look at it again. */
export class NotShellSession extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} is not a session pty_open opened`);
    this.name = "NotShellSession";
  }
}

/** Receipt of {@link Terminal.send}. */
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

/** Keys that interrupt what runs: a shell abandons the rest of the command line, so a pending sentinel never comes. */
const INTERRUPT_KEYS = new Set(["C-c", "C-\\"]);
/** Keys that submit the line being edited (see Terminal.key and ./type_ahead.ts). */
const ENTER_KEYS = new Set(["Enter", "KPEnter", "C-m", "C-j"]);
/** Keys after which the next wait looks only at what follows them (see Terminal.key). */
const LINE_ENDING_KEYS = new Set([...INTERRUPT_KEYS, "C-d", "C-z", ...ENTER_KEYS]);

/** Receipt of {@link Terminal.key}. */
export interface KeyResult {
  session_id: string;
  /** The canonical key name pressed. */
  key: string;
  /** As in {@link SendResult.recovered_stale_lock}. */
  recovered_stale_lock: boolean;
}

/** What {@link Terminal.send} decided to type (before taking the lock, again after waiting for it). */
interface SendPlan {
  meta: SessionMeta | null;
  live: MuxSession;
  /** The text without trailing newlines (recorded as the last command). */
  body: string;
  mode: SendResult["mode"];
  nonce: string | null;
  markDialect: "posix" | "pwsh" | null;
  suffix: string | null;
  /** The foreground process a marked send is typed into (see LastSend.mark_process). */
  markProcess: { pid: number; start: string | null } | null;
  /** The text answers a password prompt (echo off): it is not recorded as the last command. */
  secret: boolean;
  /** What is typed (UTF-8). */
  payload: string;
  /** Planned from remembered pane facts (see Terminal.#paneFacts): typed with Multiplexer.pasteIfReady. */
  remembered: boolean;
  /** Typed at the session's own shell (not at a program it runs). */
  atOwnShell: boolean;
}

/** After the multiplexer could not type in one round trip, how long sends ask tmux first without trying again. */
const ONE_TRIP_RETRY_MS = 10_000;

/** What a send remembers of a session's pane between sends: what does not change while the pane lives. */
interface PaneFacts {
  /**
   * The session's meta, as read when the facts were taken. Written once per open, and an open (by any process)
   * makes a new pane process, which the identity tells apart: while the identity holds, so does the meta.
   */
  meta: SessionMeta;
  /** The pane process's start identity: the same pid with another one is another pane. */
  identity: string;
  live: MuxSession;
}

/** One row of {@link Terminal.list}. */
export interface SessionRow {
  session_id: string;
  state: "running" | "ended";
  origin: "ai" | "human";
  current_command: string | null;
  attached: boolean;
  width: number | null;
  height: number | null;
  created_at: string | null;
  generation: string | null;
}

/** The terminal service. */
export class Terminal {
  readonly #mux: Multiplexer;
  readonly #layout: StateLayout;
  readonly #env: Record<string, string>;
  readonly #defaultCwd: string;
  /** The program's settings, read once by its root (layers above reach agent knobs through it). */
  readonly config: Config;
  #swept: Promise<number> | null = null;
  /** Pane facts by session id, for sends in one tmux round trip (see #paneFacts). */
  readonly #panes = new Map<string, PaneFacts>();
  /** The multiplexer said it cannot type in one round trip (the CLI transport): not tried again before this time. */
  #oneTripAfter = 0;
  /** Log writer liveness and retention for every session (lib/terminal/log_supervisor.ts). */
  readonly logs: LogSupervisor;
  /** Pane questions to the multiplexer, batched across concurrent waits (lib/terminal/pane_batch.ts). */
  readonly panes: PaneBatch;
  /** Log read buffers kept between reads (lib/terminal/read_page.ts). */
  readonly readBuffers = new ReadBuffers();
  /** One consuming read per session at a time (lib/terminal/read_gate.ts). */
  readonly readGate = new ReadGate();
  /** The read cursors' and last sends' files, replaced without making or freeing an inode (lib/state/atomic.ts). */
  readonly hotFiles = new HotFiles();
  /** Log ends for sends and keys, from one stat while a log's directory is unchanged. */
  readonly #logEnds = new LogEnds();
  /** Lines typed into a session's shell that it may not have taken yet (./type_ahead.ts). */
  readonly #typeAhead = new TypeAhead();

  constructor(deps: TerminalDeps) {
    this.#mux = deps.mux;
    this.#layout = deps.layout;
    this.#env = deps.env;
    this.#defaultCwd = deps.defaultCwd;
    this.config = deps.config;
    this.panes = new PaneBatch(deps.mux);
    this.logs = new LogSupervisor({ mux: deps.mux, layout: deps.layout, panes: this.panes });
  }

  get mux(): Multiplexer {
    return this.#mux;
  }
  get layout(): StateLayout {
    return this.#layout;
  }

  /** Read-only facts about the multiplexer for diagnostics (nothing here types or changes a session). */
  get backend(): Pick<Multiplexer, "kind" | "probeVersion" | "ensureAvailable" | "serverRunning" | "listSessions"> {
    return this.#mux;
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

  /** The command a human runs to attach to a session. */
  attachCommand(id: string): string {
    return this.#mux.attachCommand(id).map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : posixQuote(a))).join(" ");
  }

  /**
   * Opens a new persistent session.
   * @throws {AppError} INVALID_ARGUMENT, SESSION_EXISTS, SHELL_NOT_FOUND, CWD_NOT_FOUND, CWD_UNUSABLE, TMUX_*
   */
  async open(input: OpenInput): Promise<OpenResult> {
    await this.#mux.ensureAvailable();
    this.#layout.ensure();
    const shellName = input.shell ?? (findExecutable("bash", this.#env.PATH) ? "bash" : "sh");
    // Refused before anything is claimed or started: a directory, a missing or non-executable file, a text
    // file without #! (it would run as a /bin/sh script and end) — nothing is left open.
    const resolved = resolveProgram(shellName, this.#env.PATH);
    if ("problem" in resolved) {
      throw new AppError("SHELL_NOT_FOUND", `Cannot open a session: shell "${shellName}" ${resolved.problem}`, {
        suggestion: "name a shell on PATH (bash, zsh, sh) or the absolute path of its binary; nothing was opened",
        data: { field: "shell" },
      });
    }
    const shellPath = resolved.path;
    const cwd = input.cwd ?? this.#defaultCwd;
    if (!isAbsolute(cwd)) {
      throw new AppError("INVALID_ARGUMENT", `Cannot open a session: cwd "${cwd}" is not an absolute path`, {
        data: { field: "cwd" },
      });
    }
    const cwdInfo = await Deno.stat(cwd).catch(() => null);
    if (!cwdInfo?.isDirectory) {
      throw new AppError("CWD_NOT_FOUND", `Cannot open a session: cwd "${cwd}" is not an existing directory`);
    }
    // A name the server does not have is skipped and reported (env_vars_skipped), not an error: the
    // session is still useful, and the caller learns which names were not copied.
    const envNames: string[] = [];
    const envSkipped: string[] = [];
    const env: Record<string, string> = {};
    for (const name of new Set(input.env_vars ?? [])) {
      const value = this.#env[name];
      if (value === undefined) {
        envSkipped.push(name);
        continue;
      }
      envNames.push(name);
      env[name] = value;
    }
    const id = await this.#claimName(input.name ?? null);
    env[CHILD_VARS.sessionId] = id;
    const dialect = dialectForShell(shellPath);
    const integration = integratedShell(shellPath, this.#layout.shellDir, this.#env);
    const meta = this.#newMeta({
      id,
      shell: shellName,
      shell_path: shellPath,
      dialect: dialect?.id ?? null,
      cwd,
      env_names: envNames,
      integration: integration ? "osc133" : null,
      kind: "shell",
    });
    await this.#start(meta, {
      argv: integration?.argv ?? shellArgv(shellPath, dialect?.id ?? null),
      // No pager unless the caller copies its pager variable with env_vars (see ./pager_env.ts).
      env: { ...NO_PAGER_ENV, ...(integration?.env ?? {}), ...env },
      keepOnExit: false,
    }, async () => {
      for (const [path, content] of Object.entries(integration?.files ?? {})) {
        await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
        await writeFileAtomic(path, content);
      }
    });
    const shellReady = integration ? await this.#waitFirstPrompt(meta) : null;
    log("info", "session opened", { session_id: id, dialect: meta.dialect, shell_ready: shellReady });
    return {
      session_id: id,
      shell: shellName,
      dialect: meta.dialect,
      // The directory the pane entered, as read from it (#start), not the argument.
      cwd: meta.cwd,
      env_vars: envNames,
      env_vars_skipped: envSkipped,
      attach_command: this.attachCommand(id),
      log_cursor: (await logExtent(this.#layout.sessionLogDir(id), meta.segment_bytes)).end,
      generation: meta.generation,
      shell_ready: shellReady,
    };
  }

  /** Waits (bounded) until an integrated shell prints its first prompt mark, so a first send is not typed ahead. */
  async #waitFirstPrompt(meta: SessionMeta): Promise<boolean> {
    const dir = this.#layout.sessionLogDir(meta.id);
    const limit = this.config.shellReadyTimeoutMs;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), limit);
    using waker = watchLog(dir, 100, ac.signal);
    try {
      for (;;) {
        const slice = await readLog(dir, meta.segment_bytes, 0, 1 << 20);
        if (new TextDecoder().decode(slice.bytes).includes("\x1b]133;A\x07")) return true;
        if (!(await this.#mux.paneInfo(meta.id))) return false;
        if ((await waker.next()) === "aborted") return false;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Opens a session that runs `argv` directly (an agent CLI) instead of a shell. The caller has
   * validated everything; `name` null means automatic naming.
   * @throws {AppError} SESSION_EXISTS, INVALID_ARGUMENT, TMUX_*
   */
  async openProgram(input: {
    name: string | null;
    cwd: string;
    /** Builds the argv/env once the id is known. */
    build: (id: string) => { argv: string[]; env: Record<string, string> };
    /** Runs before the program starts, with the claimed session id (writes the caller's own state). */
    prepare?: (id: string, sessionDir: string) => Promise<void>;
  }): Promise<{ session_id: string; attach_command: string; generation: string }> {
    await this.#mux.ensureAvailable();
    this.#layout.ensure();
    const id = await this.#claimName(input.name);
    const built = input.build(id);
    const meta = this.#newMeta({
      id,
      shell: built.argv[0]?.split("/").pop() ?? "",
      shell_path: built.argv[0] ?? "",
      dialect: null,
      cwd: input.cwd,
      env_names: [...Object.keys(built.env), CHILD_VARS.sessionId],
      integration: null,
      kind: "program",
    });
    // An agent CLI that exits leaves its last screen (why it exited) readable until pty_close.
    await this.#start(
      meta,
      { argv: built.argv, env: { ...built.env, [CHILD_VARS.sessionId]: id }, keepOnExit: true },
      () => input.prepare?.(id, this.#layout.sessionDir(id)) ?? Promise.resolve(),
    );
    log("info", "program session opened", { session_id: id });
    return { session_id: id, attach_command: this.attachCommand(id), generation: meta.generation };
  }

  /** A new session's meta: a fresh generation and this server's log settings. */
  #newMeta(
    fields: Pick<SessionMeta, "id" | "shell" | "shell_path" | "dialect" | "cwd" | "env_names" | "integration" | "kind">,
  ): SessionMeta {
    return {
      schema: "aiterm.session.v1",
      generation: newGeneration(),
      created_at: new Date().toISOString(),
      ...fields,
      segment_bytes: this.config.logSegmentBytes,
      keep_segments: this.config.logKeepSegments,
    };
  }

  /**
   * Writes the session's files, runs `prepare`, and starts the multiplexer session with its output
   * piped into the log, from this process's environment (whichever process started the multiplexer's
   * server). The pane's directory is read back from the pane: `meta.cwd` becomes it (symbolic links
   * resolved), and a pane anywhere else than the directory asked for is killed (CWD_UNUSABLE). On any
   * failure the claimed directory is removed, leaving nothing behind.
   */
  async #start(
    meta: SessionMeta,
    launch: { argv: string[]; env: Record<string, string>; keepOnExit: boolean },
    prepare: () => Promise<void>,
  ): Promise<void> {
    try {
      await Deno.mkdir(this.#layout.sessionLogDir(meta.id), { mode: 0o700 });
      await writeMeta(this.#layout.sessionMeta(meta.id), meta);
      await prepare();
      const started = await this.#mux.newSession({
        name: meta.id,
        cwd: meta.cwd,
        argv: launch.argv,
        baseEnv: this.#env,
        env: launch.env,
        privateDir: this.#layout.sessionDir(meta.id),
        width: 200,
        height: 50,
        outputSink: outputSinkCommand(this.#layout.sessionLogDir(meta.id), meta.segment_bytes),
        keepOnExit: launch.keepOnExit,
      });
      if (started.cwd !== null) {
        const asked = await Deno.realPath(meta.cwd).catch(() => null);
        if (started.cwd !== asked) {
          await this.#mux.killSession(meta.id).catch(() => {});
          throw new AppError(
            "CWD_UNUSABLE",
            `Cannot start a session in "${meta.cwd}": its pane is in another directory`,
            {
              data: { field: "cwd" },
              suggestion: "nothing was left open; check whether that directory was moved or replaced meanwhile",
            },
          );
        }
        if (started.cwd !== meta.cwd) {
          meta.cwd = started.cwd;
          await writeMeta(this.#layout.sessionMeta(meta.id), meta);
        }
      }
    } catch (err) {
      await Deno.remove(this.#layout.sessionDir(meta.id), { recursive: true }).catch(() => {});
      throw err;
    }
  }

  /** Checks a name is free without claiming it (for validation before any session exists). */
  async nameAvailable(name: string): Promise<boolean> {
    if (!SESSION_ID_PATTERN.test(name)) return false;
    if ((await Deno.stat(this.#layout.sessionDir(name)).catch(() => null)) !== null) return false;
    return (await this.#mux.paneInfo(name)) === null;
  }

  /** The directory holding a session's files. */
  sessionDir(id: string): string {
    return this.#layout.sessionDir(id);
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

  /**
   * Claims a session directory: the exclusive mkdir is what makes a name ours. A name is free when no directory
   * and no live session (one a person made on our socket has no directory) has it: the multiplexer is asked
   * about that one name, never for every session, so opening the n-th session does not cost n.
   */
  async #claimName(explicit: string | null): Promise<string> {
    if (explicit !== null) {
      if (!SESSION_ID_PATTERN.test(explicit)) {
        throw new AppError(
          "INVALID_ARGUMENT",
          `Cannot open a session: name "${explicit}" must match ${SESSION_ID_PATTERN.source}`,
          {
            data: { field: "name" },
          },
        );
      }
      if (!(await this.#claimIfFree(explicit))) {
        throw new AppError(
          "SESSION_EXISTS",
          `Cannot open session "${explicit}": a session with that name already exists`,
          {
            suggestion: "pick another name, or pty_close it first",
          },
        );
      }
      return explicit;
    }
    const taken = new Set<string>();
    for await (const entry of Deno.readDir(this.#layout.sessionsDir)) taken.add(entry.name);
    for (let n = 1;; n++) {
      const name = `t${n}`;
      if (!taken.has(name) && (await this.#claimIfFree(name))) return name;
    }
  }

  /** Claims `name`'s directory unless it exists or a live session has the name (then the claim is undone). */
  async #claimIfFree(name: string): Promise<boolean> {
    if (!(await this.#mkdirExclusive(name))) return false;
    let live: boolean;
    try {
      live = await this.#mux.hasSession(name);
    } catch (err) {
      await Deno.remove(this.#layout.sessionDir(name)).catch(() => {});
      throw err;
    }
    if (live) await Deno.remove(this.#layout.sessionDir(name)).catch(() => {});
    return !live;
  }

  async #mkdirExclusive(id: string): Promise<boolean> {
    try {
      await Deno.mkdir(this.#layout.sessionDir(id), { mode: 0o700 });
      return true;
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) return false;
      throw err;
    }
  }

  /**
   * Refuses a generation that is not the session's current one (the session was closed and a new
   * one opened under the same name). Absent `generation` is not checked.
   * @throws {AppError} SESSION_STALE
   */
  async checkGeneration(id: string, generation: string | null | undefined): Promise<void> {
    if (generation == null) return;
    const meta = await this.meta(id);
    if (meta?.generation !== generation) {
      throw new AppError(
        "SESSION_STALE",
        `Session "${id}" is not generation ${generation} any more: it was closed or replaced`,
        {
          suggestion: "re-list with pty_list; do not retry blindly (nothing was done)",
          data: { current: meta?.generation ?? null },
        },
      );
    }
  }

  /** The meta of a session aiterm opened; null for unknown or human sessions. */
  async meta(id: string): Promise<SessionMeta | null> {
    if (!SESSION_ID_PATTERN.test(id)) {
      throw new AppError("INVALID_ARGUMENT", `Session id "${id}" must match ${SESSION_ID_PATTERN.source}`, {
        data: { field: "session_id" },
      });
    }
    return await readMeta(this.#layout.sessionMeta(id));
  }

  /** The meta of a session aiterm opened, with whether it is still running. */
  async describe(id: string): Promise<{ meta: SessionMeta | null; live: MuxSession | null }> {
    if (!SESSION_ID_PATTERN.test(id)) {
      throw new AppError("INVALID_ARGUMENT", `Session id "${id}" must match ${SESSION_ID_PATTERN.source}`, {
        data: { field: "session_id" },
      });
    }
    const [meta, live] = await Promise.all([readMeta(this.#layout.sessionMeta(id)), this.#mux.paneInfo(id)]);
    return { meta, live };
  }

  async #requireLive(id: string, action: string): Promise<{ meta: SessionMeta | null; live: MuxSession }> {
    if (!SESSION_ID_PATTERN.test(id)) {
      throw new AppError("INVALID_ARGUMENT", `Session id "${id}" must match ${SESSION_ID_PATTERN.source}`, {
        data: { field: "session_id" },
      });
    }
    const [meta, live] = await Promise.all([readMeta(this.#layout.sessionMeta(id)), this.#mux.paneInfo(id)]);
    if (!live || live.paneDead) {
      if (meta) {
        if (!live) await this.throwIfServerGone(id, action);
        throw new AppError("SESSION_ENDED", `Cannot ${action} session "${id}": its shell has ended`, {
          suggestion: "its log is still readable with pty_read; pty_close it when done",
        });
      }
      throw new AppError("SESSION_NOT_FOUND", `Cannot ${action} session "${id}": no such session`, {
        suggestion: "call pty_list",
      });
    }
    if (!meta) {
      // A session a person made on our socket: give it a directory for its send lock.
      await Deno.mkdir(this.#layout.sessionDir(id), { recursive: true, mode: 0o700 });
    }
    return { meta, live };
  }

  /**
   * For a session aiterm opened whose pane the multiplexer does not report: throws when the reason
   * is that the whole server is not running (killed, crashed, machine restarted), which a shell
   * exiting cannot cause (the server is kept with no sessions). Returns when the server runs.
   * @throws {AppError} TMUX_SERVER_GONE
   */
  async throwIfServerGone(id: string, action: string): Promise<void> {
    if (await this.#mux.serverRunning()) return;
    throw new AppError(
      "TMUX_SERVER_GONE",
      `Cannot ${action} session "${id}": aiterm's ${this.#mux.kind} server is not running, so its shell is gone`,
      {
        suggestion: "the server was killed or the machine restarted; its log is still readable with pty_read; " +
          "pty_close it and pty_open a new one",
      },
    );
  }

  /** The send lock lives in the session directory; a missing one means an unknown or human session. */
  async #ensureLockDir(id: string, action: string): Promise<void> {
    if (SESSION_ID_PATTERN.test(id) && existsSync(this.#layout.sessionDir(id))) return;
    await this.#requireLive(id, action);
  }

  /**
   * Types text into a session.
   * @throws {AppError} SESSION_NOT_FOUND, SESSION_ENDED, INPUT_TOO_LARGE, SEND_LOCK_BUSY, SEND_LOCK_STALE,
   *   MARK_UNAVAILABLE
   */
  async send(input: SendInput, options: { shellOnly?: boolean } = {}): Promise<SendResult> {
    const raw = input.raw ?? false;
    const enter = input.enter ?? true;
    const mark = input.mark ?? false;
    if (mark !== false && (raw || !enter)) {
      throw new AppError(
        "INVALID_ARGUMENT",
        "Cannot mark a send that is raw or has enter=false: the sentinel must run as a command",
        {
          data: { field: "mark" },
          suggestion: "nothing was typed",
        },
      );
    }
    const { text, removed } = raw ? { text: input.text, removed: 0 } : sanitizeInput(input.text);
    const size = assertInputSize(text);
    await this.sweepScratch();
    // A pane remembered from an earlier send had its session directory (a closed one fails the lock's open).
    if (!this.#panes.has(input.session_id)) await this.#ensureLockDir(input.session_id, "send to");
    // A line just typed into the shell that it has not taken yet: wait for it first (./type_ahead.ts).
    await this.#typeAhead.settle(input.session_id, this.#typeAheadLook(input.session_id));
    // Decided before the lock, so it is held only to type: the pane, the payload and its chunks.
    // shellOnly: the caller skipped its own look at the session because it was remembered as pty_open's.
    const shellOnly = <P extends SendPlan>(p: P): P => {
      if (options.shellOnly && p.meta?.kind !== "shell") throw new NotShellSession(input.session_id);
      return p;
    };
    let plan = shellOnly(await this.#planSend(input.session_id, text, raw, enter, mark));
    return await withSendLock(
      this.#layout.sessionSendLock(input.session_id),
      { sessionId: input.session_id },
      async (hold) => {
        // After a wait (or a dead sender's lock) the foreground may have changed: decide again.
        if (hold.waited || hold.recoveredStaleLock) {
          plan = shellOnly(await this.#planSend(input.session_id, text, raw, enter, mark, { ask: true }));
        }
        let typed: { cursor: number } | null = null;
        while (!typed) {
          typed = await this.#typePlan(input.session_id, plan, raw, enter);
          // The remembered pane was gone, dead or without its log writer: nothing was typed; ask tmux, decide again.
          if (!typed) plan = shellOnly(await this.#planSend(input.session_id, text, raw, enter, mark, { ask: true }));
        }
        const { cursor } = typed;
        if (enter && plan.atOwnShell && plan.meta?.integration === "osc133") {
          this.#typeAhead.submitted(input.session_id, cursor, plan.live.panePid);
        }
        if (hold.recoveredStaleLock) logStaleTakeover(input.session_id, hold.staleOwnerPid);
        return {
          session_id: input.session_id,
          mode: plan.mode,
          bytes: size,
          enter,
          removed_controls: removed,
          log_cursor: cursor,
          marked: plan.nonce !== null,
          recovered_stale_lock: hold.recoveredStaleLock,
        };
      },
    );
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

  /** What a send waiting for the shell to take its previous line looks at (./type_ahead.ts). */
  #typeAheadLook(id: string): TypeAheadLook {
    // Read once per wait: the probes of one wait only look at the log again.
    let meta: Promise<SessionMeta | null> | null = null;
    return {
      foreground: (shell) => foregroundBrief(shell)?.pid ?? null,
      promptAfter: async (cursor) => {
        const m = await (meta ??= this.meta(id));
        if (!m) return true;
        const limit = 1 << 16;
        const slice = await readLog(this.#layout.sessionLogDir(id), m.segment_bytes, cursor, limit);
        // More output than that after the line: the shell ran it.
        return slice.bytes.length >= limit || new TextDecoder().decode(slice.bytes).includes("\x1b]133;A");
      },
    };
  }

  /**
   * Types a planned send under the lock: the log writer check, the cursor, the text, and the record of the
   * send (written while tmux types, in place once the text was typed).
   * @returns the cursor before the send, or null when a plan from remembered pane facts found the pane not
   *   ready (nothing typed)
   */
  async #typePlan(
    id: string,
    plan: SendPlan,
    raw: boolean,
    enter: boolean,
  ): Promise<{ cursor: number } | null> {
    const { meta, live } = plan;
    // A stopped log writer is restarted before typing, so what this send causes is recorded (no extra tmux call;
    // a remembered pane's writer is checked by tmux in the paste's own round trip).
    let end: number | null = null;
    if (meta) await this.#checkLogWriter(meta, live.piped, (e) => (end = e), !plan.remembered);
    // The check's own look at the log gives the cursor when the writer was fine (else the log is looked at again).
    const cursor = meta ? end ?? this.#logEnds.end(this.#layout.sessionLogDir(meta.id), meta.segment_bytes) : 0;
    const last: LastSend = {
      text: plan.secret ? "" : plan.body.slice(0, 4096),
      at: new Date().toISOString(),
      cursor,
      nonce: plan.nonce,
      mark_dialect: plan.markDialect,
      mark_suffix: plan.suffix,
      mark_process: plan.markProcess,
    };
    const options = { exact: raw, keysAfter: enter ? ["Enter"] : [] };
    const remembered = plan.remembered && this.#mux.pasteIfReady !== undefined;
    const pasting: Promise<PasteIfReady> = remembered
      ? this.#mux.pasteIfReady!(id, plan.payload, options)
      : this.#mux.pasteText(id, plan.payload, options).then(() => "typed" as const);
    // The record is written while tmux types (the paste's line is on its way), and put in place once it typed.
    const record = this.hotFiles.stageJson(this.#layout.sessionLastCommand(id), last);
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
   * The session and its pane for a send. Facts remembered from an earlier send are used when they are still
   * this pane's (the pane process alive with the same start identity: one /proc read, whose stat also serves the
   * foreground look) and the multiplexer can check the rest in the paste's own round trip (pasteIfReady); else
   * tmux is asked. `ask`: always ask tmux.
   */
  async #paneFacts(
    id: string,
    ask: boolean,
  ): Promise<{ meta: SessionMeta | null; live: MuxSession; remembered: boolean; paneStat?: ProcStat }> {
    const oneTrip = this.#mux.pasteIfReady !== undefined && performance.now() >= this.#oneTripAfter;
    const known = this.#panes.get(id);
    if (known && !ask && oneTrip) {
      const paneStat = sameProcessStat(known.live.panePid, known.identity);
      if (paneStat) return { meta: known.meta, live: known.live, remembered: true, paneStat };
      // Where the kernel's stat is not read (not Linux), the same question to ps.
      if (sameProcessAlive(known.live.panePid, known.identity)) {
        return { meta: known.meta, live: known.live, remembered: true };
      }
    }
    this.#panes.delete(id);
    const { meta, live } = await this.#requireLive(id, "send to");
    const identity = oneTrip && meta && live.piped !== false ? processStartIdentity(live.panePid) : null;
    if (meta && identity) this.#panes.set(id, { meta, identity, live });
    return { meta, live, remembered: false };
  }

  /**
   * What a send types, from the pane as it is now: the shell script wrapper, the sentinel, the chunks.
   * @throws {AppError} SESSION_NOT_FOUND, SESSION_ENDED, MARK_UNAVAILABLE (the foreground is not a shell that can run a mark)
   */
  async #planSend(
    id: string,
    text: string,
    raw: boolean,
    enter: boolean,
    mark: boolean | "posix" | "pwsh",
    options: { ask?: boolean } = {},
  ): Promise<SendPlan> {
    const facts = await this.#paneFacts(id, options.ask ?? false);
    const { meta, live } = facts;
    // The kernel's foreground process first (Linux); the multiplexer's current command where there is none.
    const fg = foregroundBrief(live.panePid, facts.paneStat);
    // Remembered facts carry an old current command: without the kernel's answer, ask tmux.
    if (facts.remembered && !fg) return await this.#planSend(id, text, raw, enter, mark, { ask: true });
    const fgName = fg?.name ?? live.currentCommand;
    const atOwnShell = meta?.dialect != null &&
      (fg ? fg.pid === live.panePid : dialectForShell(live.currentCommand)?.id === meta.dialect);
    // The rule for newlines (README "Driving programs"): at the session's own shell the text is a command, so
    // trailing newlines are dropped (Enter submits it) and multi-line text runs as one script; to any other
    // program (a REPL, a nested shell, ssh) the text arrives exactly as given, blank lines included.
    const body = text.replace(/\n+$/, "");
    let payload = text;
    let mode: SendResult["mode"] = raw ? "raw" : "typed";
    let nonce: string | null = null;
    let markDialect: "posix" | "pwsh" | null = null;
    let suffix: string | null = null;
    let markProcess: SendPlan["markProcess"] = null;
    if (mark !== false) {
      const decision = atOwnShell
        ? { ok: true as const, dialect: meta!.dialect!, how: "shell" as const }
        : await decideMark(fgName, mark, () => this.#mux.capture(id).catch(() => ""));
      if (!decision.ok) {
        throw new AppError("MARK_UNAVAILABLE", `Cannot mark a send to ${fgName}: ${decision.reason}`, {
          data: { field: "mark", foreground: fgName },
          suggestion: decision.suggestion,
        });
      }
      if (atOwnShell && typeof mark === "string" && mark !== decision.dialect) {
        throw new AppError(
          "MARK_UNAVAILABLE",
          `Cannot mark a send to ${fgName}: the session's shell is ${decision.dialect}, not ${mark}`,
          { data: { field: "mark", foreground: fgName }, suggestion: "nothing was typed; use mark:true" },
        );
      }
      markDialect = decision.dialect;
      const dialect = dialectById(markDialect);
      nonce = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
      suffix = dialect.sentinelSuffix(nonce);
      payload = (body.includes("\n") ? dialect.scriptLine(body) : body) + suffix;
      mode = body.includes("\n") ? "script" : "typed";
      const pid = fg?.pid ?? (atOwnShell ? live.panePid : null);
      markProcess = pid === null ? null : { pid, start: processStartIdentity(pid) };
    } else if (!raw && atOwnShell && body.includes("\n")) {
      payload = dialectById(meta!.dialect!).scriptLine(body);
      mode = "script";
    } else if (!raw && atOwnShell && enter && text.endsWith("\n")) {
      payload = body;
    }
    // A program reading a line with echo off (a password prompt): the text is never written to disk.
    // The modes are asked for (one stty) only when a plain read of the terminal waits (the read builtin,
    // getpass), or, where the kernel cannot say (no /proc), when a program other than the shell waits.
    // The brief look says whether a thread is in a read call at all; only then are its descriptors looked at.
    const lineRead = fg
      ? fg.inRead && blockedInTerminalRead(foregroundProcess(live.panePid)?.inputWait ?? null)
      : !atOwnShell;
    const secret = lineRead &&
      await readTerminalModes(live.panePid).then((m) => m !== null && m.canonical && !m.echo);
    return {
      meta,
      live,
      body,
      mode,
      nonce,
      markDialect,
      suffix,
      markProcess,
      secret,
      payload,
      remembered: facts.remembered,
      atOwnShell,
    };
  }

  /**
   * Presses one named key.
   * @throws {AppError} KEY_UNKNOWN, SESSION_NOT_FOUND, SESSION_ENDED, SEND_LOCK_*
   */
  async key(sessionId: string, key: string): Promise<KeyResult> {
    const resolved = resolveKey(key);
    await this.sweepScratch();
    await this.#ensureLockDir(sessionId, "send a key to");
    // A lock left by a sender that died is taken over, so C-c, C-d and Escape always reach the pane.
    const hold = await withSendLock(this.#layout.sessionSendLock(sessionId), { sessionId }, async (hold) => {
      // A key that ends or interrupts a line makes the next wait about what follows it (C-c at an idle
      // prompt: the shell's mark with 130, not the previous command's mark).
      const meta = LINE_ENDING_KEYS.has(resolved.name) ? await this.meta(sessionId) : null;
      const cursorNow = () =>
        meta ? this.#logEnds.end(this.#layout.sessionLogDir(sessionId), meta.segment_bytes) : null;
      let cursor: number | null = null;
      let sent = false;
      // One round trip where the multiplexer can check the pane in the key's own command; anything but "typed"
      // sent nothing, and the pane is asked for below (its error, or the key after all).
      if (this.#mux.sendKeysIfAlive && performance.now() >= this.#oneTripAfter) {
        cursor = cursorNow();
        const r = await this.#mux.sendKeysIfAlive(sessionId, [resolved.muxKey]);
        sent = r === "typed";
        if (r === "unavailable") this.#oneTripAfter = performance.now() + ONE_TRIP_RETRY_MS;
      }
      if (!sent) {
        await this.#requireLive(sessionId, "send a key to");
        cursor = cursorNow();
        await this.#mux.sendKeys(sessionId, [resolved.muxKey]);
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
    await this.hotFiles.putJson(this.#layout.sessionLastCommand(id), last);
  }

  /** Closes a session and removes its files. Idempotent. */
  async close(id: string): Promise<{ session_id: string; outcome: "closed" | "already_closed" }> {
    const { meta, live } = await this.describe(id);
    const dir = this.#layout.sessionDir(id);
    const dirExists = (await Deno.stat(dir).catch(() => null)) !== null;
    if (!live && !meta && !dirExists) return { session_id: id, outcome: "already_closed" };
    this.#typeAhead.forget(id);
    const lock = await readSendLock(this.#layout.sessionSendLock(id));
    this.hotFiles.forget(this.#layout.sessionLastCommand(id));
    this.hotFiles.forget(this.#layout.sessionCursor(id));
    this.#logEnds.forget(this.#layout.sessionLogDir(id));
    this.#panes.delete(id);
    const kill = async () => {
      if (live) await this.#mux.killSession(id);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    };
    if (lock && !lock.alive) {
      // Closing is the remedy for a stale lock: no live sender can be hurt.
      await kill();
    } else {
      await withSendLock(this.#layout.sessionSendLock(id), { sessionId: id }, kill);
    }
    log("info", "session closed", { session_id: id });
    return { session_id: id, outcome: "closed" };
  }

  /**
   * Whether aiterm set each asked variable for each session (env_vars and its own AITERM_SESSION_ID),
   * from the session's record. Values are never read or returned: only presence.
   */
  async listEnvironment(rows: SessionRow[], keys: string[]): Promise<Record<string, Record<string, boolean>>> {
    const out: Record<string, Record<string, boolean>> = {};
    for (const row of rows) {
      const meta = row.origin === "ai" ? await readMeta(this.#layout.sessionMeta(row.session_id)) : null;
      const registered = new Set([...(meta?.env_names ?? []), ...(meta ? [CHILD_VARS.sessionId] : [])]);
      out[row.session_id] = Object.fromEntries(keys.map((k) => [k, registered.has(k)]));
    }
    return out;
  }

  /** Every session on the private server plus ended sessions whose logs remain. */
  async list(): Promise<SessionRow[]> {
    const live = await this.#mux.listSessions();
    const rows: SessionRow[] = [];
    const seen = new Set<string>();
    for (const s of live) {
      const meta = SESSION_ID_PATTERN.test(s.name) ? await readMeta(this.#layout.sessionMeta(s.name)) : null;
      seen.add(s.name);
      rows.push({
        session_id: s.name,
        state: s.paneDead ? "ended" : "running",
        origin: meta ? "ai" : "human",
        current_command: s.currentCommand || null,
        attached: s.attachedClients > 0,
        width: s.width,
        height: s.height,
        created_at: new Date(s.createdAt * 1000).toISOString(),
        generation: meta?.generation ?? null,
      });
    }
    try {
      for await (const entry of Deno.readDir(this.#layout.sessionsDir)) {
        if (seen.has(entry.name) || !entry.isDirectory) continue;
        const meta = await readMeta(this.#layout.sessionMeta(entry.name));
        if (!meta) continue;
        rows.push({
          session_id: meta.id,
          state: "ended",
          origin: "ai",
          current_command: null,
          attached: false,
          width: null,
          height: null,
          created_at: meta.created_at,
          generation: meta.generation ?? null,
        });
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    rows.sort((a, b) => a.session_id.localeCompare(b.session_id, "en", { numeric: true }));
    return rows;
  }

  /**
   * Restarts the session's log writer if it stopped (see LogSupervisor.check); never throws. `savedFloor`: also
   * bound the log's end by the cursors on disk (other processes' too); without it, by what this process saw.
   */
  async #checkLogWriter(
    meta: SessionMeta,
    piped: boolean | undefined,
    onEnd?: (end: number) => void,
    savedFloor = true,
  ): Promise<void> {
    const id = meta.id;
    // Cursors handed out earlier bound the log's end from below: a lower end means its newest file was deleted.
    // The supervisor remembers the highest end it saw; a send to a remembered pane relies on that alone.
    const [saved, last] = savedFloor
      ? await Promise.all([
        readJsonFile<{ cursor: number }>(this.#layout.sessionCursor(id)).catch(() => null),
        this.lastSend(id),
      ])
      : [null, null];
    const floor = Math.max(saved?.cursor ?? 0, last?.cursor ?? 0);
    await this.logs.check(meta, {
      floor,
      ...(piped === undefined ? {} : { piped }),
      ...(onEnd ? { onEnd } : {}),
    });
  }

  /** Applies log retention to one session (called on reads). */
  async prune(meta: SessionMeta): Promise<void> {
    await pruneLog(this.#layout.sessionLogDir(meta.id), meta.segment_bytes, meta.keep_segments);
  }

  /** The last send to a session, if any. */
  async lastSend(id: string): Promise<LastSend | null> {
    return await readJsonFile<LastSend>(this.#layout.sessionLastCommand(id)).catch(() => null);
  }
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
function logStaleTakeover(sessionId: string, pid: number | null): void {
  log("warn", "send lock of a dead process taken over", { session_id: sessionId, stale_owner_pid: pid });
}

function shellArgv(shellPath: string, dialect: "posix" | "pwsh" | null): string[] {
  if (dialect === "pwsh") return [shellPath, "-NoLogo"];
  return [shellPath, "-i"];
}
