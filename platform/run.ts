/**
 * The one way product code runs a program to its end: {@link runProcess} (and {@link runProcessSync} for
 * the few synchronous process-table probes). Every run returns the same {@link ProcessResult} — exit code,
 * signal, whether it timed out, its output and how long it took — so a caller says what failed and the
 * result says why.
 *
 * A run that outlives its budget (or whose signal aborts) is stopped in steps: SIGTERM, then SIGKILL after
 * a grace period, so a program that ignores TERM still ends. A program that cannot start (not found, not
 * executable) throws the runtime's error (`Deno.errors.NotFound`, …), which each caller maps to its code.
 *
 * Not for children that stream or live on (the tmux control client, a pipe-pane log writer, an MCP
 * relay): those keep their own spawn, each with a comment saying why.
 */
import { sleep } from "../base/wait.ts";

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Where a child's stdout or stderr goes: captured ("piped"), the parent's own ("inherit"), or nowhere. */
export type OutputMode = "piped" | "inherit" | "null";

/** Options for {@link runProcess}. */
export interface RunOptions {
  args?: readonly string[];
  /** The child's environment (with `clearEnv`, exactly this; otherwise added to the parent's). */
  env?: Record<string, string> | undefined;
  clearEnv?: boolean;
  cwd?: string;
  /** Text or bytes written to the child's stdin, which is then closed (default: no stdin). */
  input?: string | Uint8Array;
  /** Default "piped". */
  stdout?: OutputMode;
  /** Default "piped". */
  stderr?: OutputMode;
  /** Stop the child after this long (default: no limit). */
  timeoutMs?: number;
  /** Stop the child when this aborts. */
  signal?: AbortSignal | undefined;
  /** Between SIGTERM and SIGKILL (default 2000 ms; 0 sends SIGKILL at once). */
  graceMs?: number;
}

/** What one run did. */
export interface ProcessResult {
  /** The exit code (for a signalled child, what the runtime reports, usually 128 + signal number). */
  code: number;
  /** The signal that ended it, when one did. */
  signal: Deno.Signal | null;
  /** True when it exited 0. */
  success: boolean;
  /** True when aiterm stopped it because `timeoutMs` ran out. */
  timedOut: boolean;
  /** Captured output ("" when not piped). */
  stdout: string;
  stderr: string;
  durationMs: number;
}

/**
 * Spawns, trying again for a moment while the executable is "busy" (ETXTBSY): a program just written (an npm
 * update replacing a CLI, a test's script) cannot be executed while any process still has it open for writing,
 * and a child forked elsewhere in this process holds such a descriptor until its own exec.
 */
async function spawnPastBusy(spawn: () => Deno.ChildProcess): Promise<Deno.ChildProcess> {
  for (let attempt = 0;; attempt++) {
    try {
      return spawn();
    } catch (err) {
      if (attempt >= 6 || !/text file busy|os error 26\b/i.test(String((err as Error)?.message))) throw err;
      await sleep(5 << attempt);
    }
  }
}

/**
 * Runs `command` to its end.
 * @throws the runtime's spawn error when it cannot start (`Deno.errors.NotFound` for a missing binary)
 */
export async function runProcess(command: string, options: RunOptions = {}): Promise<ProcessResult> {
  const started = performance.now();
  const child = await spawnPastBusy(() =>
    new Deno.Command(command, {
      args: [...(options.args ?? [])],
      ...(options.env ? { env: options.env } : {}),
      ...(options.clearEnv ? { clearEnv: true } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdin: options.input === undefined ? "null" : "piped",
      stdout: options.stdout ?? "piped",
      stderr: options.stderr ?? "piped",
    }).spawn()
  );
  let timedOut = false;
  let stopping = false;
  let termTimer: ReturnType<typeof setTimeout> | undefined;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const grace = options.graceMs ?? 2000;
    if (grace <= 0) return signalChild(child, "SIGKILL");
    signalChild(child, "SIGTERM");
    killTimer = setTimeout(() => signalChild(child, "SIGKILL"), grace);
  };
  if (options.timeoutMs !== undefined) {
    termTimer = setTimeout(() => {
      timedOut = true;
      stop();
    }, Math.max(0, options.timeoutMs));
  }
  const onAbort = () => stop();
  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const stdout = (options.stdout ?? "piped") === "piped" ? new Capture(child.stdout) : null;
    const stderr = (options.stderr ?? "piped") === "piped" ? new Capture(child.stderr) : null;
    if (options.input !== undefined) {
      const bytes = typeof options.input === "string" ? encoder.encode(options.input) : options.input;
      const writer = child.stdin.getWriter();
      // A child that exits without reading its input closes the pipe: that is its business, not an error.
      void writer.write(bytes).then(() => writer.close()).catch(() => {});
    }
    const status = await child.status;
    if (stopping) {
      // A stopped child's own children may still hold its pipes open: keep what came, do not wait for them.
      let drain: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all([stdout?.done, stderr?.done]),
        new Promise((r) => (drain = setTimeout(r, DRAIN_MS))),
      ]);
      clearTimeout(drain);
      await Promise.all([stdout?.cancel(), stderr?.cancel()]);
    }
    return {
      code: status.code,
      signal: status.signal,
      success: status.success,
      timedOut,
      stdout: (await stdout?.text()) ?? "",
      stderr: (await stderr?.text()) ?? "",
      durationMs: performance.now() - started,
    };
  } finally {
    clearTimeout(termTimer);
    clearTimeout(killTimer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** Options for {@link runProcessSync} (no input, no timeout: for quick probes such as `ps`). */
export interface RunSyncOptions {
  args?: readonly string[];
  /** Default "piped". */
  stderr?: "piped" | "null";
}

/**
 * Runs `command` synchronously to its end (process-table probes that must stay synchronous).
 * @throws the runtime's spawn error when it cannot start
 */
export function runProcessSync(command: string, options: RunSyncOptions = {}): ProcessResult {
  const started = performance.now();
  const out = new Deno.Command(command, {
    args: [...(options.args ?? [])],
    stdin: "null",
    stdout: "piped",
    stderr: options.stderr ?? "piped",
  }).outputSync();
  return {
    code: out.code,
    signal: out.signal,
    success: out.success,
    timedOut: false,
    stdout: decoder.decode(out.stdout),
    stderr: options.stderr === "null" ? "" : decoder.decode(out.stderr),
    durationMs: performance.now() - started,
  };
}

/** How long the pipes of a stopped child are drained after it ended. */
const DRAIN_MS = 200;

/** Reads a child's pipe to its end (or until cancelled), keeping the bytes. */
class Capture {
  readonly #chunks: Uint8Array[] = [];
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly done: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array>) {
    const reader = stream.getReader();
    this.#reader = reader;
    this.done = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          this.#chunks.push(value);
        }
      } catch {
        // cancelled, or the pipe broke
      }
    })();
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
    await this.done;
  }

  async text(): Promise<string> {
    await this.done;
    const out = new Uint8Array(this.#chunks.reduce((n, c) => n + c.length, 0));
    let off = 0;
    for (const c of this.#chunks) {
      out.set(c, off);
      off += c.length;
    }
    return decoder.decode(out);
  }
}

function signalChild(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch {
    // already gone
  }
}
