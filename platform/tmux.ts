/**
 * The tmux backend of {@link Multiplexer}. Every tmux argv in the product is built in this file and
 * run through `#run`, which pins the private socket (`-S`) and an empty config (`-f /dev/null`) so a
 * user's ~/.tmux.conf and default server are never involved.
 */
import { AppError } from "../lib/errors.ts";
import type { Multiplexer, MuxSession, NewSessionSpec, PasteOptions, PipeState } from "./multiplexer.ts";
import { execMux, muxFailure, type MuxOutput, muxVersionText } from "./_mux_exec.ts";
import { CONTROL_CLIENTS_ARGS, controlClientsBySession, ControlTransport } from "./tmux_control.ts";
import { tmuxArg, tmuxFormatArg, tmuxTimeFormatArg } from "./tmux_args.ts";
import { launcherArgv, writeEnvFile } from "./pane_launch.ts";
import { TmuxServerGuard } from "./tmux_server.ts";
import { scratchTag } from "./scratch.ts";

/** The oldest tmux this backend supports. */
export const TMUX_MIN_VERSION = "2.6";

/** Options for {@link createTmux}. */
export interface TmuxOptions {
  /** Absolute path of the private server socket. */
  socketPath: string;
  /** The tmux binary (default: `tmux` from PATH). */
  bin?: string;
  /** Directory for transient paste files (owner-only). */
  scratchDir: string;
  /** Environment for tmux client processes (default: this process's environment). */
  env?: Record<string, string>;
  /**
   * Owner-only file recording the server's pid and start identity, so a deleted socket is
   * re-created (SIGUSR1) instead of a second server being started. Absent: no recovery.
   */
  serverRecordPath?: string;
  /**
   * `control`: commands go through one long-lived `tmux -C` client (platform/tmux_control.ts), with the
   * CLI as fallback; `cli` (default): one tmux process per command.
   */
  transport?: "cli" | "control";
  /** Control transport: how long a command may wait for its reply (default 10 s). */
  controlReplyTimeoutMs?: number;
}

/** The platform install hint for tmux. */
export function tmuxInstallHint(): string {
  if (Deno.build.os === "darwin") return "brew install tmux";
  return "sudo apt-get install tmux (Debian/Ubuntu), sudo dnf install tmux (Fedora), sudo pacman -S tmux (Arch)";
}

/** Parses `tmux -V` output ("tmux 3.3a", "tmux next-3.5", "tmux 3.2-rc") into a comparable [major, minor]. */
export function parseTmuxVersion(text: string): { raw: string; major: number; minor: number } | null {
  const m = text.match(/(\d+)\.(\d+)/);
  if (!m) return null;
  return { raw: text.trim().replace(/^tmux\s+/, ""), major: Number(m[1]), minor: Number(m[2]) };
}

function versionAtLeast(v: { major: number; minor: number }, min: string): boolean {
  const [maj, min2] = min.split(".").map(Number) as [number, number];
  return v.major > maj || (v.major === maj && v.minor >= min2);
}

/** Which tmux first has each feature aiterm uses beyond the minimum (named in errors and argv choices). */
export const TMUX_FEATURES = {
  /** The server option `exit-empty` (keep the server when its last session ends). */
  exitEmpty: "2.7",
} as const;

/**
 * The one tmux command list that creates a session: new-session, options, and the output pipe, in one
 * invocation so the pipe is attached before tmux reads the pane's first byte; it prints the server's
 * pid last. The pane runs the launcher of platform/pane_launch.ts, which takes the environment from
 * `envFile`, so no value is in any argv. Every caller string goes through the escaping chokepoint
 * (tmux_args.ts) by what tmux does with its position: `-s` and `-c` are formats, the argv is plain,
 * pipe-pane's command is a strftime format. `exit-empty off` keeps the server when the last session
 * ends, so a server that is not running means it was killed (TMUX_SERVER_GONE), not that a shell exited.
 */
export function newSessionArgs(
  spec: NewSessionSpec,
  envFile: string,
  version: { major: number; minor: number },
): string[] {
  const target = exactTarget(spec.name);
  const args = [
    "new-session",
    "-d",
    "-s",
    tmuxFormatArg(spec.name),
    "-x",
    String(spec.width),
    "-y",
    String(spec.height),
    "-c",
    tmuxFormatArg(spec.cwd),
    "--",
    ...launcherArgv(envFile, spec.argv).map(tmuxArg),
  ];
  args.push(";", "set-option", "-t", target, "history-limit", "50000");
  if (spec.keepOnExit) args.push(";", "set-option", "-w", "-t", target, "remain-on-exit", "on");
  if (versionAtLeast(version, TMUX_FEATURES.exitEmpty)) args.push(";", "set-option", "-s", "exit-empty", "off");
  args.push(";", "pipe-pane", "-t", target, tmuxTimeFormatArg(spec.outputSink));
  args.push(";", "display-message", "-p", "#{pid}");
  return args;
}

/**
 * Attaches the output sink again (a writer that died, or one whose file was deleted): `pipe-pane` with a command closes
 * the pane's current pipe, if any, and opens the new one. The sink is a command tmux expands as a format.
 */
export function pipePaneArgs(name: string, sink: string): string[] {
  return ["pipe-pane", "-t", exactTarget(name), tmuxTimeFormatArg(sink)];
}

/** The `-F` format {@link parsePipeStates} reads: session, whether the pane is piped, whether it is dead. */
export const PIPE_FORMAT = "#{session_name}\t#{pane_pipe}\t#{pane_dead}";

/** Parses `list-panes -F PIPE_FORMAT` output: live panes only (first pane of each session wins). */
export function parsePipeStates(stdout: string): PipeState[] {
  const seen = new Map<string, PipeState>();
  for (const line of stdout.split("\n")) {
    const [name, pipe, dead] = line.replace(/\r$/, "").split("\t");
    if (!name || pipe === undefined || seen.has(name)) continue;
    if (dead === "1") continue;
    // A value other than 0/1 (a multiplexer without pane_pipe) is not evidence of a dead writer.
    seen.set(name, { name, piped: pipe !== "0" });
  }
  return [...seen.values()];
}

/** Whether `name`'s pane is piped, from `list-panes -t <name> -F PIPE_FORMAT` output; null when not listed. */
export function pipedOf(stdout: string, name: string): boolean | null {
  const found = parsePipeStates(stdout)[0];
  return found && found.name === name ? found.piped : null;
}

/** Exact-match session target: `=name:` never falls back to tmux's prefix matching. */
export function exactTarget(name: string): string {
  return `=${name}:`;
}

const LIST_FORMAT = [
  "#{session_name}",
  "#{pane_pid}",
  "#{pane_current_command}",
  "#{session_attached}",
  "#{window_width}",
  "#{window_height}",
  "#{session_created}",
  "#{pane_dead}",
  "#{pane_tty}",
  "#{pane_pipe}",
  "#{alternate_on}",
].join("\t");

/** Parses `list-panes -a -F LIST_FORMAT` output (first pane of each session wins). */
export function parseSessionList(stdout: string): MuxSession[] {
  const seen = new Map<string, MuxSession>();
  for (const line of stdout.split("\n")) {
    if (!line) continue;
    const [name, pid, cmd, attached, w, h, created, dead, tty, pipe, alternate] = line.split("\t");
    if (name === undefined || seen.has(name)) continue;
    seen.set(name, {
      name,
      panePid: Number(pid),
      currentCommand: cmd ?? "",
      attachedClients: Number(attached ?? 0),
      width: Number(w ?? 0),
      height: Number(h ?? 0),
      createdAt: Number(created ?? 0),
      paneDead: dead === "1",
      tty: tty ?? "",
      ...(pipe === "0" || pipe === "1" ? { piped: pipe === "1" } : {}),
      ...(alternate === "0" || alternate === "1" ? { alternateOn: alternate === "1" } : {}),
    });
  }
  return [...seen.values()];
}

function noServer(stderr: string): boolean {
  return /no server running|error connecting|failed to connect|No such file or directory/i.test(stderr);
}

class Tmux implements Multiplexer {
  readonly kind = "tmux" as const;
  #bin: string;
  #socket: string;
  #scratch: string;
  #env: Record<string, string> | undefined;
  #checked: Promise<{ version: string }> | null = null;
  #server: TmuxServerGuard | null;
  #control: ControlTransport | null;

  constructor(options: TmuxOptions) {
    this.#bin = options.bin ?? "tmux";
    this.#socket = options.socketPath;
    this.#scratch = options.scratchDir;
    this.#env = options.env;
    this.#server = options.serverRecordPath ? new TmuxServerGuard(options.socketPath, options.serverRecordPath) : null;
    this.#control = options.transport === "control"
      ? new ControlTransport({
        bin: this.#bin,
        socketPath: this.#socket,
        env: this.#env,
        ...(options.controlReplyTimeoutMs ? { replyTimeoutMs: options.controlReplyTimeoutMs } : {}),
      })
      : null;
  }

  /** The control transport when enabled (tests reach its client). */
  get controlTransport(): ControlTransport | null {
    return this.#control;
  }

  /** Ends the control client, if one runs. */
  async close(): Promise<void> {
    await this.#control?.close();
  }

  async #run(args: string[], options: { allowFail?: boolean } = {}): Promise<MuxOutput> {
    // A socket that is not ours is refused; a deleted one of our live server is re-created first.
    await this.#server?.check();
    if (this.#control) {
      const out = await this.#control.run(args, () => this.#cli(args, true));
      if (out.code !== 0 && !options.allowFail) throw muxFailure("tmux", args[0] ?? "", out);
      return out;
    }
    return await this.#cli(args, options.allowFail);
  }

  #cli(args: string[], allowFail: boolean | undefined): Promise<MuxOutput> {
    // -u: UTF-8 output even without a UTF-8 locale (else tmux turns the tab separators into "_").
    return execMux(this.#bin, ["-u", "-S", this.#socket, "-f", "/dev/null", ...args], args[0] ?? "", {
      label: "tmux",
      env: this.#env,
      allowFail,
      notFound: () =>
        new AppError("TMUX_NOT_FOUND", "Cannot run tmux: no tmux binary on PATH", {
          suggestion: `install it: ${tmuxInstallHint()}`,
          data: { hint: tmuxInstallHint() },
        }),
    });
  }

  async probeVersion(): Promise<string | null> {
    const text = await muxVersionText(this.#bin);
    return text === null ? null : parseTmuxVersion(text)?.raw ?? null;
  }

  ensureAvailable(): Promise<{ version: string }> {
    this.#checked ??= (async () => {
      const raw = await this.probeVersion();
      if (raw === null) {
        this.#checked = null;
        throw new AppError("TMUX_NOT_FOUND", "Cannot start a terminal: tmux is not installed or not on PATH", {
          suggestion: `install it: ${tmuxInstallHint()}`,
          data: { hint: tmuxInstallHint() },
        });
      }
      const parsed = parseTmuxVersion(raw);
      if (!parsed || !versionAtLeast(parsed, TMUX_MIN_VERSION)) {
        this.#checked = null;
        throw new AppError("TMUX_TOO_OLD", `Cannot start a terminal: tmux ${raw} is older than ${TMUX_MIN_VERSION}`, {
          suggestion: `upgrade it: ${tmuxInstallHint()}`,
          data: { version: raw, minimum: TMUX_MIN_VERSION, hint: tmuxInstallHint() },
        });
      }
      return { version: raw };
    })();
    return this.#checked;
  }

  async newSession(spec: NewSessionSpec): Promise<void> {
    const { version } = await this.ensureAvailable();
    const parsed = parseTmuxVersion(version) ?? { major: 0, minor: 0 };
    // The launcher deletes the file once it has read it; on a failed start nothing will.
    const envFile = await writeEnvFile(spec.privateDir, spec.env);
    let out: MuxOutput;
    try {
      out = await this.#run(newSessionArgs(spec, envFile, parsed));
    } catch (err) {
      await Deno.remove(envFile).catch(() => {});
      throw err;
    }
    await this.#server?.record(Number(out.stdout.trim().split("\n").pop()));
    this.#control?.sessionCreated();
  }

  async serverRunning(): Promise<boolean> {
    const out = await this.#run(["list-sessions", "-F", "#{session_name}"], { allowFail: true });
    if (out.code === 0) return true;
    if (noServer(out.stderr)) return false;
    throw new AppError("TMUX_COMMAND_FAILED", `Cannot ask the tmux server: ${out.stderr.trim()}`, {
      data: { subcommand: "list-sessions", exit_code: out.code },
    });
  }

  async hasSession(name: string): Promise<boolean> {
    const out = await this.#run(["has-session", "-t", exactTarget(name)], { allowFail: true });
    return out.code === 0;
  }

  async killSession(name: string): Promise<boolean> {
    const args = ["kill-session", "-t", exactTarget(name)];
    if (!this.#control) return (await this.#run(args, { allowFail: true })).code === 0;
    // On the control transport the kill may have to travel on the client attached to this session.
    await this.#server?.check();
    return (await this.#control.killSession(name, args, () => this.#cli(args, true))).code === 0;
  }

  async listSessions(): Promise<MuxSession[]> {
    const out = await this.#run(["list-panes", "-a", "-F", LIST_FORMAT], { allowFail: true });
    if (out.code !== 0) {
      // A server kept with no sessions (exit-empty off) answers list-panes -a with "no current target".
      if (noServer(out.stderr) || /no current target|no sessions/i.test(out.stderr)) return [];
      throw new AppError("TMUX_COMMAND_FAILED", `Cannot list sessions: ${out.stderr.trim()}`, {
        data: { subcommand: "list-panes", exit_code: out.code },
      });
    }
    const sessions = parseSessionList(out.stdout);
    return this.#control ? await this.#withoutControlClients(sessions) : sessions;
  }

  /** `attachedClients` without control-mode clients (ours and other aiterm processes'): a person watching, not a transport. */
  async #withoutControlClients(sessions: MuxSession[]): Promise<MuxSession[]> {
    if (!sessions.some((s) => s.attachedClients > 0)) return sessions;
    const out = await this.#run(CONTROL_CLIENTS_ARGS, { allowFail: true });
    if (out.code !== 0) return sessions;
    const control = controlClientsBySession(out.stdout);
    return sessions.map((s) => ({
      ...s,
      attachedClients: Math.max(0, s.attachedClients - (control.get(s.name) ?? 0)),
    }));
  }

  async paneInfo(name: string): Promise<MuxSession | null> {
    // display-message answers even for a missing target (with empty fields); list-panes fails.
    const out = await this.#run(["list-panes", "-t", exactTarget(name), "-F", LIST_FORMAT], { allowFail: true });
    if (out.code !== 0) return null;
    const found = parseSessionList(out.stdout)[0];
    return found && found.name === name ? found : null;
  }

  async pipeActive(name: string): Promise<boolean | null> {
    const out = await this.#run(["list-panes", "-t", exactTarget(name), "-F", PIPE_FORMAT], { allowFail: true });
    return out.code === 0 ? pipedOf(out.stdout, name) : null;
  }

  async pipeStates(): Promise<PipeState[]> {
    const out = await this.#run(["list-panes", "-a", "-F", PIPE_FORMAT], { allowFail: true });
    return out.code === 0 ? parsePipeStates(out.stdout) : [];
  }

  async attachOutputSink(name: string, sink: string): Promise<void> {
    await this.#run(pipePaneArgs(name, sink));
  }

  async pasteText(name: string, chunks: Uint8Array[], options: PasteOptions = {}): Promise<void> {
    const data = concat(chunks);
    if (data.length === 0) {
      if (options.keysAfter?.length) await this.sendKeys(name, options.keysAfter);
      return;
    }
    // One file, one buffer, one paste, one tmux invocation of a fixed size (see pasteArgs).
    const tag = scratchTag();
    const file = `${this.#scratch}/${tag}`;
    await writeOwnerOnly(file, data);
    try {
      await this.#run(pasteArgs(exactTarget(name), tag, file, options));
    } catch (err) {
      // A paste that failed after load-buffer leaves the buffer (the typed text) in the server.
      await this.#run(["delete-buffer", "-b", tag], { allowFail: true }).catch(() => {});
      throw err;
    } finally {
      await Deno.remove(file).catch(() => {});
    }
  }

  async sendKeys(name: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    // A key such as `;` or `M-;` would otherwise end the tmux command.
    await this.#run(["send-keys", "-t", exactTarget(name), ...keys.map(tmuxArg)]);
  }

  async capture(name: string, options: { scrollback?: number; escapes?: boolean } = {}): Promise<string> {
    const args = ["capture-pane", "-p", "-J", "-t", exactTarget(name)];
    if (options.scrollback && options.scrollback > 0) args.push("-S", `-${options.scrollback}`);
    if (options.escapes) args.push("-e");
    const out = await this.#run(args, { allowFail: true });
    if (out.code !== 0) {
      throw new AppError("SESSION_NOT_FOUND", `Cannot capture session "${name}": ${out.stderr.trim()}`);
    }
    return out.stdout;
  }

  attachCommand(name: string): string[] {
    return [this.#bin, "-u", "-S", this.#socket, "attach", "-t", exactTarget(name)];
  }

  async killServer(): Promise<void> {
    await this.#run(["kill-server"], { allowFail: true });
  }
}

/**
 * The one tmux command list that types a paste: `load-buffer` of the whole text from `file` into
 * buffer `buffer`, `paste-buffer -d` into `target`, then `keysAfter`. Its size does not grow with
 * the text (tmux refuses a command list over 16 KiB: "command too long"), and tmux runs a command
 * list as a unit, so the keys can never overtake the text and a sender that dies after spawning it
 * still types all or nothing. tmux keeps the pane's unread input queued and writes it as the pty
 * accepts it, so a slowly reading program loses nothing. The path is a format (`#` doubled).
 */
export function pasteArgs(target: string, buffer: string, file: string, options: PasteOptions = {}): string[] {
  const args = ["load-buffer", "-b", buffer, tmuxFormatArg(file), ";", "paste-buffer", "-d"];
  // -p: one bracketed paste, so a TUI sees the text as one paste.
  if (options.bracketed) args.push("-p");
  args.push("-b", buffer, "-t", target);
  if (options.exact) args.push("-r");
  if (options.keysAfter?.length) args.push(";", "send-keys", "-t", target, ...options.keysAfter);
  return args;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

async function writeOwnerOnly(path: string, data: Uint8Array): Promise<void> {
  await Deno.writeFile(path, data, { mode: 0o600, createNew: true });
}

/** Creates the tmux backend. Cheap: no process is started until a method needs one. */
export function createTmux(options: TmuxOptions): Multiplexer {
  return new Tmux(options);
}
