/**
 * The session lifecycle: open a shell or a program, claim a name, close, list, prune, and the questions about one
 * session (its record, whether it is live, whether its generation is current). A session is a directory under the
 * state root (claimed with an exclusive mkdir) plus a multiplexer session of the same name; its files are described
 * in ./files/.
 */
import { dirname, isAbsolute } from "node:path";
import { CHILD_VARS, type Config } from "../../base/config.ts";
import { AppError } from "../../base/errors.ts";
import { log } from "../../base/log.ts";
import { type StateLayout, writeFileAtomic } from "../../state/mod.ts";
import {
  dialectForShell,
  findExecutable,
  integratedShell,
  outputSinkCommand,
  posixQuote,
  resolveProgram,
} from "../../platform/mod.ts";
import type { Multiplexer, MuxSession } from "../../platform/mod.ts";
import { watchLog } from "./log_watch.ts";
import { logExtent, pruneLog, readLog } from "./files/output_log.ts";
import { NO_PAGER_ENV } from "./pager_env.ts";
import { readSendLock, withSendLock } from "./send/mod.ts";
import { newGeneration, readMeta, SESSION_ID_PATTERN, type SessionMeta, writeMeta } from "./files/session_meta.ts";

/** Input of {@link Sessions.open}. */
export interface OpenInput {
  name?: string | null | undefined;
  shell?: string | null | undefined;
  cwd?: string | null | undefined;
  env_vars?: string[] | undefined;
}

/** Receipt of {@link Sessions.open}. */
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

/** Dependencies of {@link Sessions}. */
export interface SessionsDeps {
  mux: Multiplexer;
  layout: StateLayout;
  /** The server's environment (source of `env_vars` values and PATH). */
  env: Record<string, string>;
  /** Default cwd for new sessions. */
  defaultCwd: string;
  /** The program's settings: shell-ready timeout, log segment size and count. */
  config: Config;
  /** Forgets what this process remembers of a session being closed (its send facts, hot files). */
  forget(id: string): void;
}

/** See the module doc. */
export class Sessions {
  readonly #mux: Multiplexer;
  readonly #layout: StateLayout;
  readonly #env: Record<string, string>;
  readonly #defaultCwd: string;
  readonly #config: Config;
  readonly #forget: (id: string) => void;

  constructor(deps: SessionsDeps) {
    this.#mux = deps.mux;
    this.#layout = deps.layout;
    this.#env = deps.env;
    this.#defaultCwd = deps.defaultCwd;
    this.#config = deps.config;
    this.#forget = deps.forget;
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
    const limit = this.#config.shellReadyTimeoutMs;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), limit);
    using waker = watchLog(dir, 100, ac.signal);
    try {
      for (;;) {
        const slice = await readLog(dir, meta.segment_bytes, { from: 0, maxBytes: 1 << 20 });
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
      segment_bytes: this.#config.logSegmentBytes,
      keep_segments: this.#config.logKeepSegments,
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

  async requireLive(id: string, action: string): Promise<{ meta: SessionMeta | null; live: MuxSession }> {
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

  /** Closes a session and removes its files. Idempotent. */
  async close(id: string): Promise<{ session_id: string; outcome: "closed" | "already_closed" }> {
    const { meta, live } = await this.describe(id);
    const dir = this.#layout.sessionDir(id);
    const dirExists = (await Deno.stat(dir).catch(() => null)) !== null;
    if (!live && !meta && !dirExists) return { session_id: id, outcome: "already_closed" };
    const lock = await readSendLock(this.#layout.sessionSendLock(id));
    this.#forget(id);
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

  /** Applies log retention to one session (called on reads). */
  async prune(meta: SessionMeta): Promise<void> {
    await pruneLog(this.#layout.sessionLogDir(meta.id), meta.segment_bytes, meta.keep_segments);
  }
}

function shellArgv(shellPath: string, dialect: "posix" | "pwsh" | null): string[] {
  if (dialect === "pwsh") return [shellPath, "-NoLogo"];
  return [shellPath, "-i"];
}
