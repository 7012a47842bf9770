/**
 * The tmux backend of {@link Multiplexer}. Every tmux argv in the product is built in this file and
 * run through `#run`, which pins the private socket (`-S`) and an empty config (`-f /dev/null`) so a
 * user's ~/.tmux.conf and default server are never involved.
 */
import { AppError } from "../lib/errors.ts";
import type { Multiplexer, MuxSession, NewSessionSpec, PasteOptions } from "./multiplexer.ts";
import { execMux, type MuxOutput, muxVersionText } from "./_mux_exec.ts";

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
  /** `new-session -e NAME=value` (per-session environment at creation). */
  newSessionEnv: "3.2",
} as const;

/**
 * The one tmux command list that creates a session: new-session, options, and the output pipe, in one
 * invocation so the pipe is attached before tmux reads the pane's first byte. On tmux older than
 * {@link TMUX_FEATURES.newSessionEnv} the environment is injected into the child with `env K=V …` and
 * registered on the session with set-environment afterwards.
 */
export function newSessionArgs(spec: NewSessionSpec, version: { major: number; minor: number }): string[] {
  const target = exactTarget(spec.name);
  const envEntries = Object.entries(spec.env);
  const hasEnvFlag = versionAtLeast(version, TMUX_FEATURES.newSessionEnv);
  const argv = hasEnvFlag || envEntries.length === 0
    ? spec.argv
    : ["env", ...envEntries.map(([k, v]) => `${k}=${v}`), ...spec.argv];
  const args = [
    "new-session",
    "-d",
    "-s",
    spec.name,
    "-x",
    String(spec.width),
    "-y",
    String(spec.height),
    "-c",
    spec.cwd,
  ];
  if (hasEnvFlag) { for (const [k, v] of envEntries) args.push("-e", `${k}=${v}`); }
  args.push("--", ...argv);
  args.push(";", "set-option", "-t", target, "history-limit", "50000");
  if (spec.keepOnExit) args.push(";", "set-option", "-w", "-t", target, "remain-on-exit", "on");
  if (!hasEnvFlag) { for (const [k, v] of envEntries) args.push(";", "set-environment", "-t", target, k, v); }
  args.push(";", "pipe-pane", "-t", target, spec.outputSink);
  return args;
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
].join("\t");

/** Parses `list-panes -a -F LIST_FORMAT` output (first pane of each session wins). */
export function parseSessionList(stdout: string): MuxSession[] {
  const seen = new Map<string, MuxSession>();
  for (const line of stdout.split("\n")) {
    if (!line) continue;
    const [name, pid, cmd, attached, w, h, created, dead, tty] = line.split("\t");
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
  #seq = 0;

  constructor(options: TmuxOptions) {
    this.#bin = options.bin ?? "tmux";
    this.#socket = options.socketPath;
    this.#scratch = options.scratchDir;
    this.#env = options.env;
  }

  #run(args: string[], options: { allowFail?: boolean } = {}): Promise<MuxOutput> {
    // -u: UTF-8 output even without a UTF-8 locale (else tmux turns the tab separators into "_").
    return execMux(this.#bin, ["-u", "-S", this.#socket, "-f", "/dev/null", ...args], args[0] ?? "", {
      label: "tmux",
      env: this.#env,
      allowFail: options.allowFail,
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
    await this.#run(newSessionArgs(spec, parsed));
  }

  async hasSession(name: string): Promise<boolean> {
    const out = await this.#run(["has-session", "-t", exactTarget(name)], { allowFail: true });
    return out.code === 0;
  }

  async killSession(name: string): Promise<boolean> {
    const out = await this.#run(["kill-session", "-t", exactTarget(name)], { allowFail: true });
    return out.code === 0;
  }

  async listSessions(): Promise<MuxSession[]> {
    const out = await this.#run(["list-panes", "-a", "-F", LIST_FORMAT], { allowFail: true });
    if (out.code !== 0) {
      if (noServer(out.stderr)) return [];
      throw new AppError("TMUX_COMMAND_FAILED", `Cannot list sessions: ${out.stderr.trim()}`, {
        data: { subcommand: "list-panes", exit_code: out.code },
      });
    }
    return parseSessionList(out.stdout);
  }

  async sessionEnvironment(name: string): Promise<Record<string, string>> {
    const out = await this.#run(["show-environment", "-t", exactTarget(name)], { allowFail: true });
    const env: Record<string, string> = {};
    if (out.code !== 0) return env;
    for (const line of out.stdout.split("\n")) {
      const eq = line.indexOf("=");
      if (eq > 0 && !line.startsWith("-")) env[line.slice(0, eq)] = line.slice(eq + 1);
    }
    return env;
  }

  async paneInfo(name: string): Promise<MuxSession | null> {
    // display-message answers even for a missing target (with empty fields); list-panes fails.
    const out = await this.#run(["list-panes", "-t", exactTarget(name), "-F", LIST_FORMAT], { allowFail: true });
    if (out.code !== 0) return null;
    const found = parseSessionList(out.stdout)[0];
    return found && found.name === name ? found : null;
  }

  async pasteText(name: string, chunks: Uint8Array[], options: PasteOptions = {}): Promise<void> {
    if (chunks.length === 0) {
      if (options.keysAfter?.length) await this.sendKeys(name, options.keysAfter);
      return;
    }
    const target = exactTarget(name);
    const tag = `aiterm-${Deno.pid}-${++this.#seq}-${crypto.randomUUID().slice(0, 8)}`;
    const files: string[] = [];
    const args: string[] = [];
    try {
      if (options.bracketed) {
        // One buffer, one paste: a TUI must see a single bracketed paste, not one per chunk.
        const file = `${this.#scratch}/${tag}.0`;
        await writeOwnerOnly(file, concat(chunks));
        files.push(file);
        args.push("load-buffer", "-b", tag, file, ";", "paste-buffer", "-d", "-p", "-b", tag, "-t", target);
        if (options.exact) args.push("-r");
      } else {
        chunks.forEach((_chunk, i) => {
          const file = `${this.#scratch}/${tag}.${i}`;
          files.push(file);
          if (args.length) args.push(";");
          args.push(
            "load-buffer",
            "-b",
            `${tag}-${i}`,
            file,
            ";",
            "paste-buffer",
            "-d",
            "-b",
            `${tag}-${i}`,
            "-t",
            target,
          );
          if (options.exact) args.push("-r");
        });
        await Promise.all(chunks.map((chunk, i) => writeOwnerOnly(files[i]!, chunk)));
      }
      if (options.keysAfter?.length) args.push(";", "send-keys", "-t", target, ...options.keysAfter);
      await this.#run(args);
    } finally {
      await Promise.all(files.map((f) => Deno.remove(f).catch(() => {})));
    }
  }

  async sendKeys(name: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.#run(["send-keys", "-t", exactTarget(name), ...keys]);
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
