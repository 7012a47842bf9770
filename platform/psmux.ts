/**
 * The psmux backend of {@link Multiplexer} for native Windows. psmux speaks tmux's command language, so
 * the argv mirror platform/tmux/tmux.ts; the differences are here: a named server (`-L`) instead of a socket
 * path, `-f NUL` for an empty config, a PowerShell 7 output sink instead of `split`, and one psmux round
 * trip per input chunk so chunks are drained in order. Every psmux argv is built by a pure function in
 * this file and run through `#run`.
 */
import { knobFrom } from "../base/config.ts";
import { join } from "node:path";
import { AppError } from "../base/errors.ts";
import { execMux, type MuxOutput, muxVersionText } from "./_mux_exec.ts";
import type {
  Multiplexer,
  MuxSession,
  NewSessionResult,
  NewSessionSpec,
  PasteData,
  PasteOptions,
  PipeState,
} from "./multiplexer.ts";
import { parseSegmentName, SEGMENT_PREFIX, SEGMENT_SUFFIX_LEN } from "./output_sink.ts";
import { outputSinkScript, pwshScriptCommandLine, resolvePwsh } from "./pwsh.ts";
import { parsePipeStates, parseSessionList, PIPE_FORMAT, pipedOf } from "./pane_lists.ts";
import { findExecutable } from "./which.ts";
import { scratchTag } from "./scratch.ts";
import { runProcess } from "./run.ts";

/** The oldest psmux this backend supports. */
export const PSMUX_MIN_VERSION = "3.3.8";

/** How to install psmux (named in TMUX_NOT_FOUND / TMUX_TOO_OLD). */
export function psmuxInstallHint(): string {
  return "winget install psmux (or: scoop install psmux, choco install psmux)";
}

/** Parses `psmux -V` output ("psmux 3.3.8", "tmux 3.3.8") into [major, minor, patch]. */
export function parsePsmuxVersion(
  text: string,
): { raw: string; major: number; minor: number; patch: number } | null {
  const m = text.match(/(\d+)\.(\d+)(?:\.(\d+))?/);
  if (!m) return null;
  return { raw: m[0], major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) };
}

/** True when `v` is at least `min` ("3.3.8"). */
export function psmuxVersionAtLeast(v: { major: number; minor: number; patch: number }, min: string): boolean {
  const [a = 0, b = 0, c = 0] = min.split(".").map(Number);
  if (v.major !== a) return v.major > a;
  if (v.minor !== b) return v.minor > b;
  return v.patch >= c;
}

/**
 * The psmux server name for a state root: `aiterm-` and a 32-bit FNV-1a hash of the path the tmux
 * backend would use as its socket, so two state roots never share a server and the name is stable.
 */
export function psmuxNamespace(socketPath: string): string {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(socketPath.toLowerCase())) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `aiterm-${h.toString(16).padStart(8, "0")}`;
}

/** The global flags every psmux invocation starts with: our private server and no user config. */
export function psmuxGlobalArgs(namespace: string): string[] {
  return ["-L", namespace, "-f", "NUL"];
}

/** Exact-match session target, as on tmux (`=t1:` never resolves to t10). */
export function psmuxTarget(name: string): string {
  return `=${name}:`;
}

/**
 * Recovers the log directory, segment size and writer generation (`base`, 0 for the first writer) from the POSIX sink
 * command of platform/output_sink.ts (the only sink form the layers above build); null for anything else.
 */
export function parseOutputSinkCommand(
  command: string,
): { dir: string; segmentBytes: number; base: number } | null {
  const m = command.match(/^umask 077; exec split -a (\d+) -b (\d+) - '((?:[^']|'\\'')*)'$/s);
  if (!m || Number(m[1]) !== SEGMENT_SUFFIX_LEN) return null;
  const prefix = m[3]!.replaceAll(`'\\''`, "'");
  const slash = prefix.lastIndexOf("/");
  const filePrefix = prefix.slice(slash + 1);
  if (slash < 0 || !filePrefix.startsWith(SEGMENT_PREFIX)) return null;
  // The prefix of a writer generation plus a first suffix is a segment name of that generation.
  const first = parseSegmentName(`${filePrefix}${"a".repeat(SEGMENT_SUFFIX_LEN)}`);
  if (!first) return null;
  return { dir: prefix.slice(0, slash), segmentBytes: Number(m[2]), base: first.base };
}

/**
 * The one psmux command list that creates a session, sets its options and attaches the output sink
 * (a PowerShell 7 command line) before the pane's first byte is read.
 */
export function psmuxNewSessionArgs(spec: NewSessionSpec, sinkCommandLine: string): string[] {
  const target = psmuxTarget(spec.name);
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
  for (const [k, v] of Object.entries(spec.env)) args.push("-e", `${k}=${v}`);
  args.push("--", ...spec.argv);
  args.push(";", "set-option", "-t", target, "history-limit", "50000");
  if (spec.keepOnExit) args.push(";", "set-option", "-w", "-t", target, "remain-on-exit", "on");
  args.push(";", "pipe-pane", "-t", target, sinkCommandLine);
  return args;
}

/**
 * The psmux invocations that type `files` (one per chunk, already written) into the session, in order.
 * Each chunk is its own round trip: psmux returns only after its server pasted the chunk, so the next
 * chunk can never overtake it. A bracketed paste is one file and one paste. `keysAfter` rides on the
 * last invocation.
 */
export function psmuxPasteInvocations(
  name: string,
  tag: string,
  files: string[],
  options: PasteOptions = {},
): string[][] {
  const target = psmuxTarget(name);
  const calls = files.map((file, i) => {
    const buffer = files.length === 1 ? tag : `${tag}-${i}`;
    const args = ["load-buffer", "-b", buffer, file, ";", "paste-buffer", "-d"];
    if (options.bracketed) args.push("-p");
    args.push("-b", buffer, "-t", target);
    if (options.exact) args.push("-r");
    return args;
  });
  if (options.keysAfter?.length) {
    const last = calls[calls.length - 1];
    if (last) last.push(";", "send-keys", "-t", target, ...options.keysAfter);
    else calls.push(["send-keys", "-t", target, ...options.keysAfter]);
  }
  return calls;
}

/** The `list-panes -F` format, the same fields and order platform/tmux/tmux.ts parses. */
export const PSMUX_LIST_FORMAT = [
  "#{session_name}",
  "#{pane_pid}",
  "#{pane_current_command}",
  "#{session_attached}",
  "#{window_width}",
  "#{window_height}",
  "#{session_created}",
  "#{pane_dead}",
  "#{pane_tty}",
  // psmux answers pane_pipe with a constant 0 (not evidence of a dead writer): the column stays empty.
  "",
  // psmux computes alternate_on for the window's active pane: a session's single pane here.
  "#{alternate_on}",
].join("\t");

/** argv of `capture-pane` for {@link Multiplexer.capture}. */
export function psmuxCaptureArgs(name: string, options: { scrollback?: number; escapes?: boolean } = {}): string[] {
  const args = ["capture-pane", "-p", "-J", "-t", psmuxTarget(name)];
  if (options.scrollback && options.scrollback > 0) args.push("-S", `-${options.scrollback}`);
  if (options.escapes) args.push("-e");
  return args;
}

/**
 * Git for Windows' bash (for harness internals that need a POSIX shell): AITERM_GIT_BASH, else
 * `%ProgramFiles%\Git\bin\bash.exe`, else `bash.exe` on PATH unless it is the WSL bridge in System32
 * or under WindowsApps. Null when there is none.
 */
export function gitBashPath(
  env: Record<string, string | undefined>,
  probe: { exists(path: string): boolean; which(program: string): string | null },
): string | null {
  const isBridge = (p: string) => /\\(system32|sysnative|windowsapps)\\/i.test(p.replaceAll("/", "\\"));
  const configured = knobFrom(env, "gitBash");
  if (configured) return isBridge(configured) ? null : configured;
  const programFiles = env.ProgramFiles ?? env.PROGRAMFILES ?? "C:\\Program Files";
  const installed = `${programFiles}\\Git\\bin\\bash.exe`;
  if (probe.exists(installed)) return installed;
  const onPath = probe.which("bash.exe");
  return onPath && !isBridge(onPath) ? onPath : null;
}

function noServer(stderr: string): boolean {
  return /no server running|error connecting|failed to connect|cannot connect|not running|No such file/i.test(stderr);
}

/** Options for {@link createPsmux}. */
export interface PsmuxOptions {
  /** The path the tmux backend would use as its socket; names the private psmux server. */
  socketPath: string;
  /** Directory for transient paste files. */
  scratchDir: string;
  /** The psmux binary (default: `psmux` from PATH). */
  bin?: string;
  /** Environment for psmux client processes (default: this process's environment). */
  env?: Record<string, string>;
}

class Psmux implements Multiplexer {
  readonly kind = "psmux" as const;
  #bin: string;
  #namespace: string;
  #scratch: string;
  #env: Record<string, string> | undefined;
  #checked: Promise<{ version: string; pwsh: string }> | null = null;
  /** Pastes through scratch files so far (their tags count them). */
  #pastes = 0;

  constructor(options: PsmuxOptions) {
    this.#bin = options.bin ?? "psmux";
    this.#namespace = psmuxNamespace(options.socketPath);
    this.#scratch = options.scratchDir;
    this.#env = options.env;
  }

  #run(args: string[], options: { allowFail?: boolean } = {}): Promise<MuxOutput> {
    return execMux(this.#bin, [...psmuxGlobalArgs(this.#namespace), ...args], args[0] ?? "", {
      label: "psmux",
      env: this.#env,
      allowFail: options.allowFail,
      notFound,
    });
  }

  async probeVersion(): Promise<string | null> {
    const text = await muxVersionText(this.#bin);
    return text === null ? null : parsePsmuxVersion(text)?.raw ?? null;
  }

  #ensure(): Promise<{ version: string; pwsh: string }> {
    this.#checked ??= (async () => {
      try {
        const raw = await this.probeVersion();
        if (raw === null) throw notFound();
        const parsed = parsePsmuxVersion(raw);
        if (!parsed || !psmuxVersionAtLeast(parsed, PSMUX_MIN_VERSION)) {
          throw new AppError(
            "TMUX_TOO_OLD",
            `Cannot start a terminal: psmux ${raw} is older than ${PSMUX_MIN_VERSION}`,
            {
              suggestion: `upgrade it: ${psmuxInstallHint()}`,
              data: { version: raw, minimum: PSMUX_MIN_VERSION, hint: psmuxInstallHint() },
            },
          );
        }
        const env = this.#env ?? Deno.env.toObject();
        const pwsh = await resolvePwsh(env, {
          which: (p) => findExecutable(p, env.PATH ?? env.Path),
          exists: (p) => {
            try {
              return Deno.statSync(p).isFile;
            } catch {
              return false;
            }
          },
          version: async (p) => {
            try {
              const o = await runProcess(p, { args: ["--version"], stderr: "null" });
              return o.success ? o.stdout : null;
            } catch {
              return null;
            }
          },
        });
        return { version: raw, pwsh: pwsh.path };
      } catch (err) {
        this.#checked = null;
        throw err;
      }
    })();
    return this.#checked;
  }

  async ensureAvailable(): Promise<{ version: string }> {
    return { version: (await this.#ensure()).version };
  }

  /**
   * Creates the session with psmux's own `-c` and `-e` (see {@link psmuxNewSessionArgs}). Not verified on Windows
   * here, so two things of the tmux backend are not done: the pane starts from the psmux server's environment
   * (`spec.baseEnv` is not applied: there is no launcher that could clear it without an argv holding values),
   * and the directory is not read back from the pane (`cwd: null`; the caller reports the one it asked for).
   */
  async newSession(spec: NewSessionSpec): Promise<NewSessionResult> {
    const { pwsh } = await this.#ensure();
    const sink = parseOutputSinkCommand(spec.outputSink);
    if (!sink) {
      throw new AppError("INTERNAL", "Cannot start a psmux session: the output sink is not the segment-file sink");
    }
    const line = pwshScriptCommandLine(pwsh, outputSinkScript(sink.dir, sink.segmentBytes, sink.base));
    await this.#run(psmuxNewSessionArgs(spec, line));
    return { cwd: null };
  }

  async pipeActive(name: string): Promise<boolean | null> {
    const out = await this.#run(["list-panes", "-t", psmuxTarget(name), "-F", PIPE_FORMAT], { allowFail: true });
    return out.code === 0 ? pipedOf(out.stdout, name) : null;
  }

  async pipeStates(): Promise<PipeState[]> {
    const out = await this.#run(["list-panes", "-a", "-F", PIPE_FORMAT], { allowFail: true });
    return out.code === 0 ? parsePipeStates(out.stdout) : [];
  }

  async attachOutputSink(name: string, sinkCommand: string): Promise<void> {
    const { pwsh } = await this.#ensure();
    const sink = parseOutputSinkCommand(sinkCommand);
    if (!sink) {
      throw new AppError("INTERNAL", "Cannot attach a psmux output sink: it is not the segment-file sink");
    }
    const line = pwshScriptCommandLine(pwsh, outputSinkScript(sink.dir, sink.segmentBytes, sink.base));
    await this.#run(["pipe-pane", "-t", psmuxTarget(name), line]);
  }

  async hasSession(name: string): Promise<boolean> {
    return (await this.#run(["has-session", "-t", psmuxTarget(name)], { allowFail: true })).code === 0;
  }

  async killSession(name: string): Promise<boolean> {
    return (await this.#run(["kill-session", "-t", psmuxTarget(name)], { allowFail: true })).code === 0;
  }

  async listSessions(): Promise<MuxSession[]> {
    const out = await this.#run(["list-panes", "-a", "-F", PSMUX_LIST_FORMAT], { allowFail: true });
    if (out.code !== 0) {
      if (noServer(out.stderr)) return [];
      throw new AppError("TMUX_COMMAND_FAILED", `Cannot list sessions: ${out.stderr.trim()}`, {
        data: { subcommand: "list-panes", exit_code: out.code },
      });
    }
    return parseSessionList(out.stdout.replaceAll("\r\n", "\n"));
  }

  async serverRunning(): Promise<boolean> {
    const out = await this.#run(["list-sessions", "-F", "#{session_name}"], { allowFail: true });
    if (out.code === 0) return true;
    if (noServer(out.stderr)) return false;
    throw new AppError("TMUX_COMMAND_FAILED", `Cannot ask the psmux server: ${out.stderr.trim()}`, {
      data: { subcommand: "list-sessions", exit_code: out.code },
    });
  }

  async paneInfo(name: string): Promise<MuxSession | null> {
    const out = await this.#run(["list-panes", "-t", psmuxTarget(name), "-F", PSMUX_LIST_FORMAT], {
      allowFail: true,
    });
    if (out.code !== 0) return null;
    const found = parseSessionList(out.stdout.replaceAll("\r\n", "\n"))[0];
    return found && found.name === name ? found : null;
  }

  async pasteText(name: string, input: PasteData, options: PasteOptions = {}): Promise<void> {
    const tag = scratchTag(++this.#pastes);
    const data = typeof input === "string" ? encoder.encode(input) : input;
    // A bracketed paste is one paste (the program reads the markers around the whole of it).
    const payloads = options.bracketed && data.length > 0 ? [data] : utf8Chunks(data);
    const files = payloads.map((_c, i) => join(this.#scratch, `${tag}.${i}`));
    try {
      await Promise.all(payloads.map((c, i) => Deno.writeFile(files[i]!, c, { mode: 0o600, createNew: true })));
      // Sequential on purpose: each round trip returns after the server pasted its chunk. A chunk's
      // file (typed text) is removed as soon as its round trip is done.
      for (const [i, args] of psmuxPasteInvocations(name, tag, files, options).entries()) {
        await this.#run(args);
        if (files[i]) await Deno.remove(files[i]).catch(() => {});
      }
    } finally {
      await Promise.all(files.map((f) => Deno.remove(f).catch(() => {})));
    }
  }

  async sendKeys(name: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.#run(["send-keys", "-t", psmuxTarget(name), ...keys]);
  }

  async capture(name: string, options: { scrollback?: number; escapes?: boolean } = {}): Promise<string> {
    const out = await this.#run(psmuxCaptureArgs(name, options), { allowFail: true });
    if (out.code !== 0) {
      throw new AppError("SESSION_NOT_FOUND", `Cannot capture session "${name}": ${out.stderr.trim()}`);
    }
    return out.stdout.replaceAll("\r\n", "\n");
  }

  attachCommand(name: string): string[] {
    return [this.#bin, "-L", this.#namespace, "attach", "-t", psmuxTarget(name)];
  }

  async killServer(): Promise<void> {
    await this.#run(["kill-server"], { allowFail: true });
  }
}

function notFound(): AppError {
  return new AppError("TMUX_NOT_FOUND", "Cannot start a terminal: psmux is not installed or not on PATH", {
    suggestion: `install it: ${psmuxInstallHint()}`,
    data: { hint: psmuxInstallHint() },
  });
}

/**
 * The largest piece psmux is given per paste. psmux pastes piece by piece (ADR 0011), each in its own round trip, so
 * the pieces are drained in order; only this backend cuts text (tmux takes it whole).
 */
export const PSMUX_CHUNK_BYTES = 256;

const encoder = new TextEncoder();

/** Splits UTF-8 `bytes` into pieces of at most `max` bytes that never split a character (empty: no piece). */
export function utf8Chunks(bytes: Uint8Array, max = PSMUX_CHUNK_BYTES): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + max, bytes.length);
    // Step back over continuation bytes (10xxxxxx) so the next piece starts on a lead byte.
    while (end < bytes.length && end > start && (bytes[end]! & 0xc0) === 0x80) end--;
    if (end === start) end = Math.min(start + max, bytes.length);
    chunks.push(bytes.subarray(start, end));
    start = end;
  }
  return chunks;
}

/** Creates the psmux backend. Cheap: no process is started until a method needs one. */
export function createPsmux(options: PsmuxOptions): Multiplexer {
  return new Psmux(options);
}
