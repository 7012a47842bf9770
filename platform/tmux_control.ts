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
 *   {@link CONTROL_CLIENTS_ARGS}, which lets listings subtract control clients).
 * - Calls are written in order and answered in order (tmux runs a client's lines in order); each
 *   command of a line gets its own block, a failing command ends the line, so a line is answered after
 *   `commands` `%end` blocks or the first `%error`. Only blocks with flags 1 (commands this client typed)
 *   are paired; a block ends only at the `%end`/`%error` with its own time, number and flags.
 * - A client that cannot start, exits, or does not answer within the bound is killed; every waiting call
 *   gets {@link ControlLost} (with whether its line was written), never another call's reply. The next
 *   call starts a new client.
 */
import { AppError } from "../lib/errors.ts";
import type { MuxOutput } from "./_mux_exec.ts";

/** Options for {@link ControlClient.start}. */
export interface ControlClientOptions {
  bin: string;
  socketPath: string;
  env?: Record<string, string> | undefined;
  /** How long the attach may take (default 3 s). */
  startTimeoutMs?: number;
}

/** Why a call got no reply from the control client. `sent`: its line was written (it may have run). */
export class ControlLost extends Error {
  constructor(readonly sent: boolean, reason: string) {
    super(reason);
    this.name = "ControlLost";
  }
}

/**
 * The commands of a CLI argv, split the way tmux's `cmd_parse_from_arguments` does: an argument ending
 * in `;` ends a command (a lone `;` is only a separator), and a trailing `\;` stands for a literal `;`.
 */
export function splitCliCommands(argv: string[]): string[][] {
  const out: string[][] = [];
  let cmd: string[] = [];
  for (const raw of argv) {
    let arg = raw;
    let end = false;
    if (arg.endsWith(";")) {
      arg = arg.slice(0, -1);
      if (arg.endsWith("\\")) arg = `${arg.slice(0, -1)};`;
      else end = true;
    }
    if (!end || arg.length > 0) cmd.push(arg);
    if (end) {
      if (cmd.length) out.push(cmd);
      cmd = [];
    }
  }
  if (cmd.length) out.push(cmd);
  return out;
}

const BARE = /^[A-Za-z0-9_./:@,+-]+$/;

/**
 * One argument for tmux's command-line parser, so that it arrives byte for byte: bare when it is made
 * of harmless characters, else a double-quoted string in which `\`, `"`, `$` and `~` are escaped and
 * every control character (newline included) is a 3-digit octal escape. Nothing else is special
 * inside double quotes (`#`, `;`, `{`, `}`, `'` and spaces are literal there).
 */
export function quoteControlArg(value: string): string {
  if (BARE.test(value)) return value;
  let out = '"';
  for (const ch of value) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\" || ch === '"' || ch === "$" || ch === "~") out += `\\${ch}`;
    else if (c < 0x20 || c === 0x7f) out += `\\${c.toString(8).padStart(3, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Commands that change nothing: a line of only these is retried on the CLI when its reply is lost. */
const READ_COMMANDS = new Set([
  "capture-pane",
  "display-message",
  "has-session",
  "list-buffers",
  "list-clients",
  "list-panes",
  "list-sessions",
  "list-windows",
  "show-buffer",
  "show-options",
]);

/**
 * The commands the control client may carry. Anything else (new-session starts the server and prints
 * its pid; kill-session can end the session the client is attached to; kill-server ends the client;
 * commands that block a client's queue such as wait-for or run-shell) stays on the CLI.
 */
const CONTROL_COMMANDS = new Set([
  ...READ_COMMANDS,
  "delete-buffer",
  "load-buffer",
  "paste-buffer",
  "pipe-pane",
  "send-keys",
  "set-buffer",
  "set-option",
]);

/** A CLI argv as one control-mode line: the line and how many commands (blocks) it holds. */
export interface ControlLine {
  line: string;
  commands: number;
  /** Every command only reads (safe to run again on the CLI). */
  readOnly: boolean;
}

/** The control line for a CLI argv, or null when it must go through the CLI (see CONTROL_COMMANDS). */
export function controlLine(argv: string[]): ControlLine | null {
  const cmds = splitCliCommands(argv);
  if (cmds.length === 0) return null;
  // NUL cannot be in an argv (the CLI refuses it); keep that behaviour by leaving it to the CLI.
  if (argv.some((a) => a.includes("\0"))) return null;
  if (!cmds.every((c) => CONTROL_COMMANDS.has(c[0]!))) return null;
  return lineOf(cmds);
}

function lineOf(cmds: string[][]): ControlLine {
  return {
    line: cmds.map((c) => c.map(quoteControlArg).join(" ")).join(" ; "),
    commands: cmds.length,
    readOnly: cmds.every((c) => READ_COMMANDS.has(c[0]!)),
  };
}

/**
 * `list-clients` argv whose output {@link controlClientsBySession} reads: which sessions have control
 * clients attached (this process's and other aiterm processes'), so `session_attached` can be corrected.
 */
export const CONTROL_CLIENTS_ARGS = ["list-clients", "-F", "#{client_control_mode}\t#{session_name}"];

/** Counts control clients per session name from {@link CONTROL_CLIENTS_ARGS} output. */
export function controlClientsBySession(stdout: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of stdout.split("\n")) {
    const tab = line.indexOf("\t");
    if (tab < 0 || line.slice(0, tab) !== "1") continue;
    const name = line.slice(tab + 1);
    out.set(name, (out.get(name) ?? 0) + 1);
  }
  return out;
}

interface Block {
  ok: boolean;
  lines: string[];
}

interface Pending {
  commands: number;
  blocks: Block[];
  resolve: (out: MuxOutput) => void;
  reject: (err: ControlLost) => void;
}

const GUARD = /^%(begin|end|error) (\d+) (\d+) (\d+)$/;
const encoder = new TextEncoder();

/** One `tmux -C` process and the FIFO of calls waiting for its replies. */
export class ControlClient {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending: Pending[] = [];
  #dead: string | null = null;
  #session: string | null = null;
  #onReady: ((err: string | null) => void) | null = null;
  readonly #closed: Promise<void>;

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#closed = this.#readLoop();
  }

  /**
   * Spawns and attaches a control client; resolves once tmux has answered the attach.
   * @throws {ControlLost} (sent: false) when tmux is missing, has no session to attach to, or is too slow
   */
  static async start(options: ControlClientOptions): Promise<ControlClient> {
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(options.bin, {
        args: [
          "-u",
          "-S",
          options.socketPath,
          "-f",
          "/dev/null",
          "-C",
          "attach-session",
          "-f",
          "no-output,ignore-size",
        ],
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
        ...(options.env ? { env: options.env, clearEnv: true } : {}),
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

  /** False once the client exited or was killed. */
  get alive(): boolean {
    return this.#dead === null;
  }

  /** Calls written and not yet answered. */
  get inFlight(): number {
    return this.#pending.length;
  }

  /**
   * Writes one line and resolves with its reply: stdout of the `%end` blocks, and on `%error` code 1
   * with the error text as stderr (as the CLI would exit).
   * @throws {ControlLost} when the client is dead (sent: false) or dies before answering (sent: true)
   */
  run(line: ControlLine): Promise<MuxOutput> {
    if (this.#dead !== null) return Promise.reject(new ControlLost(false, this.#dead));
    return new Promise<MuxOutput>((resolve, reject) => {
      this.#pending.push({ commands: line.commands, blocks: [], resolve, reject });
      // Writes queue in call order, so replies come back in #pending order.
      this.#writer.write(encoder.encode(`${line.line}\n`)).catch(() => this.#die("control client stdin closed"));
    });
  }

  /** Kills the process (SIGKILL) and fails every waiting call; resolves when its output has ended. */
  async kill(reason = "control client closed"): Promise<void> {
    this.#die(reason);
    await this.#closed;
  }

  #die(reason: string): void {
    if (this.#dead !== null) return;
    this.#dead = reason;
    this.#onReady?.(reason);
    this.#onReady = null;
    for (const p of this.#pending.splice(0)) p.reject(new ControlLost(true, reason));
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
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
      if (m && m[1] === "begin") block = { id: `${m[2]} ${m[3]}`, flags: m[4]!, ok: false, lines: [] };
      else if (line.startsWith("%session-changed ")) this.#session = line.replace(/^%session-changed \S+ /, "");
      else if (line.startsWith("%exit")) {
        this.#die(`control client exited${line.length > 5 ? `:${line.slice(5)}` : ""}`);
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
    this.#die("control client ended");
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
    const failed = p.blocks.find((x) => !x.ok);
    p.resolve({
      code: failed ? 1 : 0,
      stdout,
      stderr: failed ? failed.lines.map((l) => `${l}\n`).join("") : "",
    });
  }
}

/** Options for {@link ControlTransport}. */
export interface ControlTransportOptions extends ControlClientOptions {
  /** How long a written line may wait for its reply before the client is deemed stuck (default 10 s). */
  replyTimeoutMs?: number;
  /** After a failed start, how long calls go straight to the CLI before another start is tried (default 1 s). */
  retryAfterMs?: number;
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

  /** Runs `argv` on the control client when it can carry it, else (or on a failed start) through `cli`. */
  async run(argv: string[], cli: () => Promise<MuxOutput>): Promise<MuxOutput> {
    const line = controlLine(argv);
    if (!line) return await cli();
    const client = await this.#ensure();
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
    if (Date.now() < this.#retryAt) return null;
    this.#starting ??= this.#gate.then(() => ControlClient.start(this.#options)).then(
      (c) => (this.#client = c),
      () => {
        this.#retryAt = Date.now() + (this.#options.retryAfterMs ?? 1_000);
        return null;
      },
    ).finally(() => (this.#starting = null));
    return await this.#starting;
  }
}
