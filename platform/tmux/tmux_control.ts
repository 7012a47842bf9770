/**
 * The tmux control-mode transport (issue 16): one long-lived `tmux -C` client per Tmux instance whose
 * stdin takes one command line per call and whose stdout answers each command with a
 * `%begin T N F … %end|%error T N F` block. A call costs one pipe write and one read instead of a
 * process spawn.
 *
 * - The client is `tmux -u -S <socket> -f /dev/null -C attach-session -f no-output,ignore-size`: a control
 *   client must be attached to a session (tmux ends an unattached client after its first command), so it
 *   joins the most recent one; `ignore-size` and never sending `refresh-client -C` keep it out of window
 *   sizing, `no-output` stops the `%output` stream. It is counted in `#{session_attached}` (see
 *   `CONTROL_CLIENTS_ARGS` in control_line.ts, which lets listings subtract control clients).
 * - Calls are written in order and answered in order (tmux runs a client's lines in order); each
 *   command of a line gets its own block, a failing command ends the line, so a line is answered after
 *   `commands` `%end` blocks or the first `%error`. Only blocks with flags 1 (commands this client typed)
 *   are paired; a block ends only at the `%end`/`%error` with its own time, number and flags.
 * - A client that cannot start, exits, or does not answer within the bound is killed; every waiting call
 *   gets {@link ControlLost} (with whether its line may have run), never another call's reply. The next
 *   call starts a new client.
 * - A client that tmux ends in order (the session it is attached to was killed, or its shell exited) says
 *   `%exit`: tmux has run every line it read and flushed their replies before that, and reads no line
 *   after it, so a call whose command never began was not run and can be run again elsewhere.
 *   Every line the transport writes runs to its end in one pass of the server's queue (nothing that
 *   waits, such as load-buffer of a file), so no line is ever cut in half by such an exit.
 */
import { CHILD_VARS } from "../../base/config.ts";
import { AppError } from "../../base/errors.ts";
import type { MuxOutput } from "../_mux_exec.ts";
import { processEnvVar, processStartIdentity, sameProcessAlive } from "../process.ts";
import { findExecutable } from "../which.ts";
import { runProcess } from "../run.ts";
import { type ControlLine, controlLine, lineOf, splitCliCommands } from "./control_line.ts";

/** The environment variable that names a control client's owner: `<pid> <start identity>` of the aiterm process. */
export const CONTROL_OWNER_VAR = CHILD_VARS.controlOwner;
const OWNER_ENV: Record<string, string> = Deno.build.os === "linux"
  ? { [CONTROL_OWNER_VAR]: `${Deno.pid} ${processStartIdentity(Deno.pid) ?? ""}` }
  : {};

/**
 * Kills the control clients on this server whose owning aiterm process is gone (Linux: read from
 * /proc/<pid>/environ). tmux 3.3a keeps a control client whose reader died while a reply to it was
 * still unwritten: the write fails, and the client waits for that output to drain forever. Killing its
 * process makes the server drop it. Clients of live owners and clients without the mark are left alone.
 * @returns how many were killed
 */
export async function reapOrphanedClients(client: ControlClient): Promise<number> {
  const out = await client.run(lineOf([["list-clients", "-F", "#{client_control_mode}\t#{client_pid}"]]));
  let killed = 0;
  for (const row of out.stdout.split("\n")) {
    const [control, pidText] = row.split("\t");
    const pid = Number(pidText);
    if (control !== "1" || !Number.isInteger(pid) || pid <= 0 || pid === client.pid) continue;
    const owner = processEnvVar(pid, CONTROL_OWNER_VAR)?.match(/^(\d+) (.*)$/);
    if (!owner || sameProcessAlive(Number(owner[1]), owner[2] || null)) continue;
    try {
      Deno.kill(pid, "SIGKILL");
      killed++;
    } catch {
      // gone meanwhile
    }
  }
  return killed;
}

let deathSignal: Promise<string[]> | null = null;

/**
 * Linux: the `setpriv --pdeathsig KILL --` prefix (util-linux), so the client process dies with this
 * process even when this one is SIGKILLed. Otherwise tmux would keep a client whose reader is gone
 * while output to it is pending, and that client also keeps kill-server from ending the server (tmux
 * 3.3a–3.5a: the output never drains). Empty where setpriv is missing or lacks the option; asked once.
 */
function deathSignalPrefix(env: Record<string, string> | undefined): Promise<string[]> {
  if (Deno.build.os !== "linux") return Promise.resolve([]);
  deathSignal ??= (async () => {
    const setpriv = findExecutable("setpriv", env?.PATH ?? Deno.env.get("PATH"));
    if (!setpriv) return [];
    const prefix = [setpriv, "--pdeathsig", "KILL", "--"];
    try {
      const probe = await runProcess(setpriv, { args: [...prefix.slice(1), "true"], stdout: "null", stderr: "null" });
      return probe.success ? prefix : [];
    } catch {
      return [];
    }
  })();
  return deathSignal;
}

/**
 * Moves a new client to the oldest session (by creation time): attach-session joins the most recent one,
 * which is the likeliest to be closed soon (a scratch session, a finished agent), and every end of the
 * client's session makes the next call start another client. Names other than plain words are left alone.
 * @returns the session it moved to, or null when it stayed
 */
export async function joinOldestSession(client: ControlClient): Promise<string | null> {
  const out = await client.run(lineOf([["list-sessions", "-F", "#{session_created}\t#{session_name}"]]));
  let oldest: { created: number; name: string } | null = null;
  for (const row of out.stdout.split("\n")) {
    const tab = row.indexOf("\t");
    const created = Number(row.slice(0, tab));
    const name = row.slice(tab + 1);
    if (tab < 0 || !Number.isFinite(created) || !/^[A-Za-z0-9_-]+$/.test(name)) continue;
    if (!oldest || created < oldest.created) oldest = { created, name };
  }
  if (!oldest || oldest.name === client.session) return null;
  const moved = await client.run(lineOf([["switch-client", "-t", `=${oldest.name}:`]]));
  return moved.code === 0 ? oldest.name : null;
}

/** Options for {@link ControlClient.start}. */
export interface ControlClientOptions {
  bin: string;
  socketPath: string;
  env?: Record<string, string> | undefined;
  /** How long the attach may take (default 3 s). */
  startTimeoutMs?: number;
}

/**
 * Why a call got no reply from the control client. `sent`: its line may have run (false: it surely did
 * not, so it is safe to run it again on the CLI).
 */
export class ControlLost extends Error {
  constructor(readonly sent: boolean, reason: string) {
    super(reason);
    this.name = "ControlLost";
  }
}

interface Block {
  ok: boolean;
  lines: string[];
}

interface Pending {
  commands: number;
  /** A `%begin` for this call was seen: its first command started. */
  begun: boolean;
  /** Its line could not be written (tmux closed the client's input): it surely did not run. */
  unwritten?: boolean;
  blocks: Block[];
  resolve: (out: MuxOutput) => void;
  reject: (err: ControlLost) => void;
}

const GUARD = /^%(begin|end|error) (\d+) (\d+) (\d+)$/;
/** `%exit` reasons after which tmux did not flush in order (client_exit_message in tmux's client.c). */
const ABRUPT_EXIT = /^(server exited unexpectedly|lost tty|terminated)/;
const encoder = new TextEncoder();

/** One `tmux -C` process and the FIFO of calls waiting for its replies. */
export class ControlClient {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending: Pending[] = [];
  #dead: string | null = null;
  /** Why no new line is written (tmux said %exit, or the process ended); calls in flight still get replies. */
  #closing: string | null = null;
  /** tmux said `%exit` for a reason after which its replies were complete (see the module comment). */
  #orderlyExit = false;
  #session: string | null = null;
  #onReady: ((err: string | null) => void) | null = null;
  readonly #closed: Promise<void>;

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#closed = this.#readLoop();
    // A client process that is gone takes no new line (tmux may still answer the ones it holds).
    child.status.then(() => this.#close("control client process ended"), () => {});
    // On this process's exit the client goes first, so tmux never holds output for a reader that is gone.
    globalThis.addEventListener("unload", this.#onUnload);
  }

  readonly #onUnload = () => {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
  };

  /**
   * Spawns and attaches a control client; resolves once tmux has answered the attach.
   * @throws {ControlLost} (sent: false) when tmux is missing, has no session to attach to, or is too slow
   */
  static async start(options: ControlClientOptions): Promise<ControlClient> {
    const prefix = await deathSignalPrefix(options.env);
    let child: Deno.ChildProcess;
    try {
      // Not platform/run.ts: the control client lives as long as this process and streams both ways.
      child = new Deno.Command(prefix[0] ?? options.bin, {
        args: [
          ...prefix.slice(1),
          ...(prefix.length ? [options.bin] : []),
          "-u",
          "-S",
          options.socketPath,
          "-f",
          "/dev/null",
          // -N: attach-session would otherwise start a server (one with no sessions, which exits at
          // once and which the server guard did not record); a control client only joins a running one.
          "-N",
          "-C",
          "attach-session",
          "-f",
          "no-output,ignore-size",
        ],
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
        // The owner mark lets a later client find this one if this process dies (see reapOrphanedClients).
        env: { ...options.env, ...OWNER_ENV },
        ...(options.env ? { clearEnv: true } : {}),
      }).spawn();
    } catch (err) {
      throw new ControlLost(false, `cannot spawn tmux -C: ${err instanceof Error ? err.message : String(err)}`);
    }
    const client = new ControlClient(child);
    const ready = new Promise<string | null>((resolve) => (client.#onReady = resolve));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve("attach timed out"), options.startTimeoutMs ?? 3_000);
    });
    const problem = await Promise.race([ready, timeout]);
    clearTimeout(timer);
    if (problem !== null) {
      await client.kill(problem);
      throw new ControlLost(false, `cannot start tmux -C: ${problem}`);
    }
    return client;
  }

  /** The client's process id (tests SIGKILL it). */
  get pid(): number {
    return this.#child.pid;
  }

  /** The session the client is attached to (from `%session-changed`), or null before it said. */
  get session(): string | null {
    return this.#session;
  }

  /** False once the client exited, is exiting, or was killed: it takes no new line. */
  get alive(): boolean {
    return this.#dead === null && this.#closing === null;
  }

  /** Calls written and not yet answered. */
  get inFlight(): number {
    return this.#pending.length;
  }

  /**
   * Writes one line and resolves with its reply: stdout of the `%end` blocks, and on `%error` code 1
   * with the error text as stderr (as the CLI would exit).
   * @throws {ControlLost} when the client takes no new line (sent: false), or ends before answering
   *   (sent: false when tmux ended it in order before the line began, else true)
   */
  run(line: ControlLine): Promise<MuxOutput> {
    const refused = this.#dead ?? this.#closing;
    if (refused !== null) return Promise.reject(new ControlLost(false, refused));
    return new Promise<MuxOutput>((resolve, reject) => {
      const entry: Pending = { commands: line.commands, begun: false, blocks: [], resolve, reject };
      this.#pending.push(entry);
      // Writes queue in call order, so replies come back in #pending order. A write that fails (tmux closed the
      // client's input) takes no line; replies to earlier lines may still be on their way, until the output ends.
      this.#writer.write(encoder.encode(`${line.line}\n`)).catch(() => {
        entry.unwritten = true;
        this.#close("control client input closed");
      });
    });
  }

  /**
   * Kills the process (SIGKILL) and fails every waiting call (sent: true, since tmux may still run lines
   * it holds); resolves when its output has ended.
   */
  async kill(reason = "control client closed"): Promise<void> {
    this.#die(reason, false);
    await this.#closed;
  }

  #close(reason: string): void {
    this.#closing ??= reason;
  }

  /**
   * Ends the client and fails every waiting call. `outputEnded`: tmux closed the output, so it holds no
   * line of ours any more; after an orderly %exit a call whose command never began was never run.
   */
  #die(reason: string, outputEnded: boolean): void {
    if (this.#dead !== null) return;
    this.#dead = reason;
    this.#onReady?.(reason);
    this.#onReady = null;
    const notRun = outputEnded && this.#orderlyExit;
    for (const p of this.#pending.splice(0)) {
      const ran = !(p.unwritten || (notRun && !p.begun));
      p.reject(new ControlLost(ran, ran ? reason : `${reason}; not run`));
    }
    globalThis.removeEventListener("unload", this.#onUnload);
    this.#onUnload();
    this.#writer.close().catch(() => {});
  }

  async #readLoop(): Promise<void> {
    let rest = "";
    let block: { id: string; flags: string; ok: boolean; lines: string[] } | null = null;
    const onLine = (line: string) => {
      if (block) {
        const m = line.match(GUARD);
        if (m && m[1] !== "begin" && `${m[2]} ${m[3]}` === block.id && m[4] === block.flags) {
          block.ok = m[1] === "end";
          this.#blockDone(block.flags, { ok: block.ok, lines: block.lines });
          block = null;
        } else block.lines.push(line);
        return;
      }
      const m = line.match(GUARD);
      if (m && m[1] === "begin") {
        block = { id: `${m[2]} ${m[3]}`, flags: m[4]!, ok: false, lines: [] };
        if (m[4] === "1" && this.#pending[0]) this.#pending[0].begun = true;
      } else if (line.startsWith("%session-changed ")) this.#session = line.replace(/^%session-changed \S+ /, "");
      else if (line === "%exit" || line.startsWith("%exit ")) {
        // Replies to every line tmux read came before this; the rest of our lines were never read.
        const why = line.slice(6);
        this.#orderlyExit = !ABRUPT_EXIT.test(why);
        this.#close(`control client exited${why ? `: ${why}` : ""}`);
      }
      // Other notifications (%window-renamed, %sessions-changed, …) are not replies.
    };
    try {
      for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
        rest += chunk;
        let nl: number;
        while ((nl = rest.indexOf("\n")) >= 0) {
          onLine(rest.slice(0, nl));
          rest = rest.slice(nl + 1);
        }
      }
    } catch {
      // a killed process's pipe may end with an error; same as EOF
    }
    this.#die(this.#closing ?? "control client ended", true);
    await this.#child.status.catch(() => {});
  }

  #blockDone(flags: string, b: Block): void {
    if (flags !== "1") {
      // The attach command's own block (flags 0) tells whether the client is attached.
      if (this.#onReady) {
        this.#onReady(b.ok ? null : b.lines.join(" ").trim() || "attach failed");
        this.#onReady = null;
      }
      return;
    }
    const p = this.#pending[0];
    if (!p) return;
    p.blocks.push(b);
    if (b.ok && p.blocks.length < p.commands) return;
    this.#pending.shift();
    const stdout = p.blocks.filter((x) => x.ok).map((x) => x.lines.map((l) => `${l}\n`).join("")).join("");
    const failedAt = p.blocks.findIndex((x) => !x.ok);
    const failed = p.blocks[failedAt];
    p.resolve({
      code: failed ? 1 : 0,
      stdout,
      stderr: failed ? failed.lines.map((l) => `${l}\n`).join("") : "",
      ...(failed ? { failedAt } : {}),
    });
  }
}

/** Options for {@link ControlTransport}. */
export interface ControlTransportOptions extends ControlClientOptions {
  /** How long a written line may wait for its reply before the client is deemed stuck (default 10 s). */
  replyTimeoutMs?: number;
  /** After a failed start, how long calls go straight to the CLI before another start is tried (default 1 s). */
  retryAfterMs?: number;
  /** Asked once before the first start: false keeps every call on the CLI (a tmux too old for control mode). */
  supported?: () => Promise<boolean>;
  /**
   * Holds a client's start (attach and move) apart from session creation (platform/tmux/tmux_attach_gate.ts:
   * tmux 3.3a can crash when both run at once). Absent: the start runs as it is.
   */
  startGate?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * The policy around {@link ControlClient}: start lazily, route what control mode can carry, time out,
 * and fall back. `cli` runs the same argv by spawning tmux (allowFail semantics: it returns non-zero
 * exits). Reads whose reply was lost run again on the CLI; writes whose reply was lost are
 * TMUX_TRANSPORT_LOST (they may have run, so running them again could type twice).
 */
export class ControlTransport {
  readonly #options: ControlTransportOptions;
  #client: ControlClient | null = null;
  #starting: Promise<ControlClient | null> | null = null;
  #retryAt = 0;
  #unsupported = false;
  /** A retired client's kill-session: the next client starts only after it was answered. */
  #gate: Promise<void> = Promise.resolve();

  constructor(options: ControlTransportOptions) {
    this.#options = options;
  }

  /** The live client, if one runs (tests). */
  get client(): ControlClient | null {
    return this.#client?.alive ? this.#client : null;
  }

  /** Forget a failed start (a session now exists to attach to). */
  sessionCreated(): void {
    this.#retryAt = 0;
  }

  /**
   * Runs `argv` on the control client when it can carry it, else (or on a failed start) through `cli`.
   * `blocks`: see {@link controlLine}.
   */
  async run(argv: string[], cli: () => Promise<MuxOutput>, blocks?: number): Promise<MuxOutput> {
    const line = controlLine(argv, blocks);
    if (!line) return await cli();
    // A live client takes the line in this very tick (no await before the write).
    const client = this.#client?.alive ? this.#client : await this.#ensure();
    if (!client) return await cli();
    try {
      return await this.#withTimeout(client, client.run(line));
    } catch (err) {
      if (!(err instanceof ControlLost)) throw err;
      if (!err.sent || line.readOnly) return await cli();
      throw new AppError(
        "TMUX_TRANSPORT_LOST",
        `Cannot confirm tmux ${argv[0]}: the tmux control client ended before answering (${err.message})`,
        {
          data: { subcommand: argv[0] ?? "" },
          suggestion:
            "it may or may not have run: read the screen before sending again; the next call starts a new client",
        },
      );
    }
  }

  /**
   * Runs a kill-session argv for session `name`. When the client is attached to `name`, a kill through the
   * CLI would end the client under calls still in flight; so the kill goes on that client, after every
   * line already written to it (tmux runs those first), the client is retired, and the next client
   * starts only once the kill was answered (so it cannot attach to the dying session).
   */
  async killSession(name: string, argv: string[], cli: () => Promise<MuxOutput>): Promise<MuxOutput> {
    const c = this.client;
    const cmds = splitCliCommands(argv);
    if (!c || c.session !== name || cmds.length === 0 || argv.some((a) => a.includes("\0"))) return await cli();
    this.#client = null;
    const reply = this.#withTimeout(c, c.run(lineOf(cmds)));
    this.#gate = reply.then(() => {}, () => {}).then(() => c.kill("retired after kill-session"));
    try {
      return await reply;
    } catch (err) {
      if (!(err instanceof ControlLost)) throw err;
      return await cli();
    }
  }

  /** Ends the client (and waits for it). Safe to call twice. */
  async close(): Promise<void> {
    const starting = this.#starting;
    this.#starting = null;
    const c = this.#client ?? (starting ? await starting : null);
    this.#client = null;
    await c?.kill();
  }

  async #withTimeout(client: ControlClient, reply: Promise<MuxOutput>): Promise<MuxOutput> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = this.#options.replyTimeoutMs ?? 10_000;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // A client that stops answering is killed: every call waiting on it fails over together.
        void client.kill(`no reply within ${limit} ms`);
        reject(new ControlLost(true, `no reply within ${limit} ms`));
      }, limit);
    });
    try {
      return await Promise.race([reply, stuck]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #ensure(): Promise<ControlClient | null> {
    if (this.#client?.alive) return this.#client;
    this.#client = null;
    if (this.#unsupported || Date.now() < this.#retryAt) return null;
    this.#starting ??= this.#gate.then(async () => {
      if (this.#options.supported && !(await this.#options.supported().catch(() => false))) {
        this.#unsupported = true;
        return null;
      }
      const gate = this.#options.startGate ?? ((work) => work());
      const client = await gate(async () => {
        const client = await ControlClient.start(this.#options);
        // Clients left by aiterm processes that died mid-reply (queued ahead of the caller's line, never awaited);
        // then the move to the oldest session, before any caller's line (a client's session is then known).
        reapOrphanedClients(client).catch(() => {});
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          joinOldestSession(client).catch(() => null),
          // A server that stops answering here is left to the caller's own reply bound.
          new Promise((resolve) => (timer = setTimeout(resolve, this.#options.startTimeoutMs ?? 3_000))),
        ]);
        clearTimeout(timer);
        return client;
      });
      return (this.#client = client);
    }).catch(() => {
      this.#retryAt = Date.now() + (this.#options.retryAfterMs ?? 1_000);
      return null;
    }).finally(() => (this.#starting = null));
    return await this.#starting;
  }
}
