/**
 * The tmux backend of {@link Multiplexer}. Every tmux argv in the product is built in this file and
 * run through `#run`, which pins the private socket (`-S`) and an empty config (`-f /dev/null`) so a
 * user's ~/.tmux.conf and default server are never involved.
 */
import { AppError } from "../../base/errors.ts";
import type {
  Multiplexer,
  MuxSession,
  NewSessionResult,
  NewSessionSpec,
  PasteData,
  PasteIfReady,
  PasteOptions,
  PipeState,
} from "../multiplexer.ts";
import { execMux, muxFailure, type MuxOutput, muxVersionText } from "../_mux_exec.ts";
import { ControlTransport } from "./tmux_control.ts";
import { CONTROL_CLIENTS_ARGS, controlClientsBySession } from "./control_line.ts";
import {
  aliveKeysArgs,
  bytesOf,
  NOT_TRIED,
  pasteArgs,
  READY_SKIPPED,
  READY_TYPED,
  readyPasteArgs,
  setBufferPasteArgs,
  utf8Text,
} from "./paste_args.ts";
import { tmuxArg, tmuxFormatArg, tmuxTimeFormatArg } from "./tmux_args.ts";
import { launcherArgv, type LaunchReport, parseLaunchReport, writeEnvFile } from "../pane_launch.ts";
import { waitTimeout, waitUntil } from "../../base/wait.ts";
import { TmuxServerGuard } from "./tmux_server.ts";
import { AttachGate, attachGatePath } from "./tmux_attach_gate.ts";
import { scratchTag } from "../scratch.ts";
import { LIST_FORMAT, parsePipeStates, parseSessionList, PIPE_FORMAT, pipedOf } from "../pane_lists.ts";

/** How long a new pane's launcher may take to enter its directory and start the program (a loaded machine). */
const LAUNCH_TIMEOUT_MS = 15_000;

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
   * `control`: commands go through one long-lived `tmux -C` client (platform/tmux/tmux_control.ts), with the
   * CLI as fallback (tmux older than {@link TMUX_FEATURES.controlMode}: always the CLI); `cli` (the
   * default here; selectMultiplexer picks `control`): one tmux process per command.
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
  /** The control transport: `attach-session -f no-output,ignore-size` and the client flag `-N`. */
  controlMode: "3.2",
} as const;

/**
 * The one tmux command list that creates a session: new-session, options, and the output pipe, in one
 * invocation so the pipe is attached before tmux reads the pane's first byte; it prints the server's
 * pid last. The pane runs the launcher of platform/pane_launch.ts, which enters the directory itself
 * (a plain argument: tmux's `-c` is a format that cannot carry every name, so tmux gets `/`) and takes
 * the whole environment from `envFile`, so no value is in any argv. Every caller string goes through the
 * escaping chokepoint (tmux_args.ts) by what tmux does with its position: `-s` is a format, the argv is
 * plain, pipe-pane's command is a strftime format. `exit-empty off` keeps the server when the last
 * session ends, so a server that is not running means it was killed (TMUX_SERVER_GONE), not that a
 * shell exited.
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
    "/",
    "--",
    ...launcherArgv(envFile, spec.cwd, spec.argv).map(tmuxArg),
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

/** Exact-match session target: `=name:` never falls back to tmux's prefix matching. */
export function exactTarget(name: string): string {
  return `=${name}:`;
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
  #controlOk: Promise<boolean> | null = null;
  /** Set once this process has created a session (the server is up with `exit-empty off`). */
  #sessionMade = false;
  /** Pastes through scratch files so far (their tags count them). */
  #pastes = 0;
  #firstSessions: Promise<void> = Promise.resolve();
  /** new-session (shared) vs the control client's attach (exclusive): see tmux_attach_gate.ts. */
  #attachGate: AttachGate;

  constructor(options: TmuxOptions) {
    this.#bin = options.bin ?? "tmux";
    this.#socket = options.socketPath;
    this.#scratch = options.scratchDir;
    this.#env = options.env;
    this.#attachGate = new AttachGate(attachGatePath(options.socketPath));
    this.#server = options.serverRecordPath ? new TmuxServerGuard(options.socketPath, options.serverRecordPath) : null;
    this.#control = options.transport === "control"
      ? new ControlTransport({
        bin: this.#bin,
        socketPath: this.#socket,
        env: this.#env,
        supported: () => this.#controlSupported(),
        startGate: (work) => this.#attachGate.exclusive(work),
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

  /** Whether this tmux has what the control transport needs (asked once: one `tmux -V`). */
  #controlSupported(): Promise<boolean> {
    this.#controlOk ??= this.probeVersion().then((raw) => {
      const parsed = raw === null ? null : parseTmuxVersion(raw);
      return parsed !== null && versionAtLeast(parsed, TMUX_FEATURES.controlMode);
    });
    return this.#controlOk;
  }

  /**
   * Runs one tmux argv on the transport in use. `cli`: what to run instead when the control client
   * cannot carry `args` (default: the same argv through the CLI).
   */
  async #run(
    args: string[],
    options: { allowFail?: boolean; cli?: () => Promise<MuxOutput>; blocks?: number } = {},
  ): Promise<MuxOutput> {
    // A socket that is not ours is refused; a deleted one of our live server is re-created first.
    const checking = this.#server?.check();
    if (checking) await checking;
    const cli = options.cli ?? (() => this.#cli(args, true));
    const out = this.#control ? await this.#control.run(args, cli, options.blocks) : await cli();
    if (out.code !== 0 && !options.allowFail) throw muxFailure("tmux", args[0] ?? "", out);
    return out;
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

  async newSession(spec: NewSessionSpec): Promise<NewSessionResult> {
    if (this.#sessionMade) return await this.#newSession(spec);
    // Until this process has made a session, one new-session at a time: the first one may start the
    // server, and a tmux server that is starting exits when it sees no session yet (other clients then
    // read "server exited unexpectedly"). After it, `exit-empty off` keeps the server up.
    const before = this.#firstSessions;
    let done!: () => void;
    this.#firstSessions = new Promise<void>((resolve) => (done = resolve));
    try {
      await before;
      const result = await this.#newSession(spec);
      this.#sessionMade = true;
      return result;
    } finally {
      done();
    }
  }

  async #newSession(spec: NewSessionSpec): Promise<NewSessionResult> {
    const { version } = await this.ensureAvailable();
    const parsed = parseTmuxVersion(version) ?? { major: 0, minor: 0 };
    const envFile = await writeEnvFile(spec.privateDir, spec.baseEnv, spec.env);
    try {
      const out = await this.#attachGate.shared(() => this.#run(newSessionArgs(spec, envFile, parsed)));
      await this.#server?.record(Number(out.stdout.trim().split("\n").pop()));
      this.#control?.sessionCreated();
      return { cwd: await this.#launched(spec, envFile) };
    } finally {
      // The launcher overwrote the environment with its report (or never ran): the file is ours to remove.
      await Deno.remove(envFile).catch(() => {});
    }
  }

  /**
   * Waits for the launcher's report (platform/pane_launch.ts) and returns the directory its pane entered. A
   * launcher that could not enter the directory, or ended or stalled without a report, leaves nothing open:
   * the session is killed before the error.
   * @throws {AppError} CWD_UNUSABLE, TMUX_COMMAND_FAILED (the launcher ended without a report), WAIT_TIMEOUT
   */
  async #launched(spec: NewSessionSpec, envFile: string): Promise<string> {
    let looks = 0;
    const look = async (): Promise<LaunchReport | { state: "ended" }> => {
      const read = () => Deno.readTextFile(envFile).then(parseLaunchReport, () => parseLaunchReport(null));
      const report = await read();
      // Every few looks: a launcher whose pane is gone or dead never reports (it may have just before it ended).
      if (report.state !== "pending" || ++looks % 4 !== 0) return report;
      const pane = await this.paneInfo(spec.name);
      if (pane && !pane.paneDead) return report;
      const last = await read();
      return last.state === "pending" ? { state: "ended" } : last;
    };
    const outcome = await waitUntil(look, {
      timeoutMs: LAUNCH_TIMEOUT_MS,
      until: (r) => r.state !== "pending",
      intervalMs: 1,
      maxIntervalMs: 50,
      watch: [spec.privateDir],
    });
    const report = outcome.status === "done" ? outcome.value : null;
    if (report?.state === "started") return report.cwd;
    await this.killSession(spec.name).catch(() => {});
    if (report?.state === "cwd_failed") {
      throw new AppError("CWD_UNUSABLE", `Cannot start a session in "${spec.cwd}": that directory cannot be entered`, {
        data: { field: "cwd" },
        suggestion:
          "check that it still exists and that you may enter it (x permission on every directory of its path)",
      });
    }
    if (report?.state === "ended") {
      throw new AppError(
        "TMUX_COMMAND_FAILED",
        "Cannot start a session: its launcher ended before starting the program",
        {
          data: { subcommand: "new-session", exit_code: null },
        },
      );
    }
    throw waitTimeout("a new session's launcher to start its program", LAUNCH_TIMEOUT_MS, null);
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

  async pasteText(name: string, input: PasteData, options: PasteOptions = {}): Promise<void> {
    const data = bytesOf(input);
    if (data.length === 0) {
      if (options.keysAfter?.length) await this.sendKeys(name, options.keysAfter);
      return;
    }
    const tag = scratchTag(++this.#pastes);
    const target = exactTarget(name);
    const file = `${this.#scratch}/${tag}`;
    // The CLI way: one file, one buffer, one paste, one tmux invocation of a fixed size (see pasteArgs).
    const fileArgs = pasteArgs(target, tag, file, options);
    const viaFile = async () => {
      await writeOwnerOnly(file, data);
      try {
        return await this.#cli(fileArgs, true);
      } finally {
        await Deno.remove(file).catch(() => {});
      }
    };
    // On the control client the text travels in the command line itself (see setBufferPasteArgs); the
    // file way is its fallback (load-buffer itself never runs on the control client).
    const text = this.#control ? utf8Text(data) : null;
    try {
      await this.#run(text === null ? fileArgs : setBufferPasteArgs(target, tag, text, options), { cli: viaFile });
    } catch (err) {
      // A paste that failed after its buffer was filled leaves the buffer (the typed text) in the server.
      await this.#run(["delete-buffer", "-b", tag], { allowFail: true }).catch(() => {});
      throw err;
    }
  }

  async pasteIfReady(name: string, input: PasteData, options: PasteOptions = {}): Promise<PasteIfReady> {
    const data = bytesOf(input);
    const text = this.#control && data.length > 0 ? utf8Text(data) : null;
    if (text === null) return "unavailable";
    const tag = scratchTag(++this.#pastes);
    const { args, blocks } = readyPasteArgs(exactTarget(name), tag, text, options);
    const cleanup = () => this.#run(["delete-buffer", "-b", tag], { allowFail: true }).catch(() => {});
    let out: MuxOutput;
    try {
      // Not carried by the control client (not started, or its line surely never ran): nothing was tried.
      out = await this.#run(args, { allowFail: true, blocks, cli: () => Promise.resolve(NOT_TRIED) });
    } catch (err) {
      await cleanup();
      throw err;
    }
    if (out === NOT_TRIED) return "unavailable";
    if (out.code === 0 && out.stdout === `${READY_TYPED}\n`) return "typed";
    // Skipped (the pane is gone, dead or has no log writer), or refused before the branch ran: nothing typed.
    await cleanup();
    if (out.code === 0 && out.stdout.startsWith(READY_SKIPPED)) return "not_ready";
    if (out.failedAt !== undefined && out.failedAt <= 1) return "not_ready";
    throw muxFailure("tmux", "paste-buffer", out);
  }

  async sendKeys(name: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    // A key such as `;` or `M-;` would otherwise end the tmux command.
    await this.#run(["send-keys", "-t", exactTarget(name), ...keys.map(tmuxArg)]);
  }

  async sendKeysIfAlive(name: string, keys: string[]): Promise<PasteIfReady> {
    if (!this.#control || keys.length === 0) return "unavailable";
    const { args, blocks } = aliveKeysArgs(exactTarget(name), keys.map(tmuxArg));
    // Not carried by the control client (not started, or its line surely never ran): nothing was tried.
    const out = await this.#run(args, { allowFail: true, blocks, cli: () => Promise.resolve(NOT_TRIED) });
    if (out === NOT_TRIED) return "unavailable";
    if (out.code === 0 && out.stdout === `${READY_TYPED}\n`) return "typed";
    // Skipped (the pane is dead), or no such session (if-shell's target): nothing was sent.
    if (out.code === 0 && out.stdout.startsWith(READY_SKIPPED)) return "not_ready";
    if (out.failedAt === 0) return "not_ready";
    throw muxFailure("tmux", "send-keys", out);
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

async function writeOwnerOnly(path: string, data: Uint8Array): Promise<void> {
  await Deno.writeFile(path, data, { mode: 0o600, createNew: true });
}

/** Creates the tmux backend. Cheap: no process is started until a method needs one. */
export function createTmux(options: TmuxOptions): Multiplexer {
  return new Tmux(options);
}
