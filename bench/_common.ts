// deno-lint-ignore-file no-console
/**
 * Shared helpers for bench/roundtrip.ts and bench/fanout.ts: flag parsing, statistics, a table
 * printer, an aiterm MCP server driven through the real SDK client, a bare tmux baseline on its own
 * private socket, an RSS sampler for the server process, and a cleanup registry that runs on normal
 * exit, on failure and on SIGINT/SIGTERM. Nothing here ever talks to the default tmux server: every
 * tmux command pins `-S <private socket> -f /dev/null`.
 */
import { parseArgs } from "node:util";
import { Client, StdioClientTransport } from "../lib/mcp/sdk.ts";
import type { CallToolResult } from "../lib/mcp/sdk.ts";
import { serverCommand } from "../devkit/mcp.ts";

export { makeTestEnv } from "../devkit/env.ts";

const decoder = new TextDecoder();

// ── flags ─────────────────────────────────────────────────────────────────────────────────────────

/** Parses `--name N` integer flags; prints usage and exits 2 on anything else. */
export function parseIntFlags<K extends string>(defaults: Record<K, number>, usage: string): Record<K, number> {
  const keys = Object.keys(defaults) as K[];
  const options: Record<string, { type: "string" }> = {};
  for (const k of keys) options[k] = { type: "string" };
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    values = parseArgs({ args: Deno.args, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\nusage: ${usage}`);
    Deno.exit(2);
  }
  const out = { ...defaults };
  for (const k of keys) {
    const v = values[k];
    if (v === undefined) continue;
    const n = Number(v);
    if (typeof v !== "string" || !Number.isInteger(n) || n < 0) {
      console.error(`--${k} must be a non-negative integer, got ${JSON.stringify(v)}\nusage: ${usage}`);
      Deno.exit(2);
    }
    out[k] = n;
  }
  return out;
}

// ── statistics and output ─────────────────────────────────────────────────────────────────────────

/** Summary of a sample of durations (ms). */
export interface Stats {
  n: number;
  median: number;
  p95: number;
  min: number;
  max: number;
}

/** Nearest-rank quantile of an ascending array (q in 0..1). */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

/** Median (mean of the two middle values for even n), nearest-rank p95, min and max. */
export function summarize(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return { n, median: Number.NaN, p95: Number.NaN, min: Number.NaN, max: Number.NaN };
  const mid = Math.floor(n / 2);
  const median = n % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { n, median, p95: quantile(s, 0.95), min: s[0]!, max: s[n - 1]! };
}

/** Milliseconds with one decimal ("n/a" for NaN). */
export function ms(x: number): string {
  return Number.isFinite(x) ? x.toFixed(1) : "n/a";
}

/** Kibibytes as MB with one decimal. */
export function mb(kb: number): string {
  return Number.isFinite(kb) ? (kb / 1024).toFixed(1) : "n/a";
}

/** Prints an aligned table: the first column left-aligned, the others right-aligned. */
export function printTable(headers: string[], rows: string[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ").trimEnd();
  console.log(line(headers));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(r));
}

// ── lifecycle ─────────────────────────────────────────────────────────────────────────────────────

const cleanups: Array<{ label: string; fn: () => PromiseLike<void> }> = [];
const diagnostics: Array<() => string> = [];

/** Registers a cleanup step; steps run last-registered first. */
export function onCleanup(label: string, fn: () => PromiseLike<void>): void {
  cleanups.push({ label, fn });
}

/** Registers extra text printed when the run fails (e.g. the server's stderr tail). */
export function onFailureReport(fn: () => string): void {
  diagnostics.push(fn);
}

async function runCleanups(): Promise<void> {
  for (let step = cleanups.pop(); step; step = cleanups.pop()) {
    try {
      await withTimeout(Promise.resolve(step.fn()), 15_000, `cleanup: ${step.label}`);
    } catch (err) {
      console.error(`cleanup ${step.label} failed: ${(err as Error).message}`);
    }
  }
}

/**
 * Runs a bench body: cleanups always run (also on SIGINT/SIGTERM), a thrown error prints the
 * failure plus diagnostics and exits 1; otherwise exits with the body's code.
 */
export async function runMain(name: string, body: () => Promise<number>): Promise<never> {
  let interrupted = false;
  const onSignal = (sig: Deno.Signal) => () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`${name}: ${sig}, cleaning up`);
    runCleanups().finally(() => Deno.exit(130));
  };
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const handlers = signals.map((s) => [s, onSignal(s)] as const);
  for (const [s, h] of handlers) Deno.addSignalListener(s, h);
  let code: number;
  try {
    code = await body();
  } catch (err) {
    console.error(`${name}: FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    for (const d of diagnostics) {
      const text = d().trim();
      if (text) console.error(text);
    }
    code = 1;
  }
  await runCleanups();
  for (const [s, h] of handlers) Deno.removeSignalListener(s, h);
  Deno.exit(code);
}

/** Rejects with a labelled error when `p` does not settle within `timeoutMs`. */
export async function withTimeout<T>(p: Promise<T>, timeoutMs: number, label: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${label}: timed out after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!, i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

// ── processes ─────────────────────────────────────────────────────────────────────────────────────

/** Output of a child process run with {@link runCommand}. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command with a hard deadline (SIGKILL, then a labelled error). */
export async function runCommand(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string>; timeoutMs: number; label?: string },
): Promise<RunResult> {
  const child = new Deno.Command(cmd, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...(opts.env ? { env: opts.env, clearEnv: true } : {}),
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }, opts.timeoutMs);
  try {
    const out = await child.output();
    if (timedOut) throw new Error(`${opts.label ?? `${cmd} ${args.join(" ")}`}: timed out after ${opts.timeoutMs} ms`);
    return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
  } finally {
    clearTimeout(timer);
  }
}

/** `tmux -V`, or "tmux ?" when it cannot be run. */
export async function tmuxVersion(): Promise<string> {
  try {
    return (await runCommand("tmux", ["-V"], { timeoutMs: 5_000 })).stdout.trim() || "tmux ?";
  } catch {
    return "tmux ?";
  }
}

/** One line describing the run environment. */
export async function environmentLine(): Promise<string> {
  return `deno ${Deno.version.deno}, ${await tmuxVersion()}, ${navigator.hardwareConcurrency} CPUs, ${Deno.build.os}/${Deno.build.arch}`;
}

// ── bare tmux baseline ────────────────────────────────────────────────────────────────────────────

/**
 * A tmux server on its own socket in a throwaway directory, with a throwaway HOME and no TMUX
 * variables inherited, running `bash --norc --noprofile` sessions: the classic scripted approach.
 */
export class BareTmux {
  readonly dir: string;
  readonly socket: string;
  readonly #env: Record<string, string>;

  private constructor(dir: string, env: Record<string, string>) {
    this.dir = dir;
    this.socket = `${dir}/bare.sock`;
    this.#env = env;
  }

  /** Creates the directory and environment; the server starts with the first session. */
  static async create(): Promise<BareTmux> {
    const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "aitb-" });
    const home = `${dir}/h`;
    await Deno.mkdir(home);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(Deno.env.toObject())) {
      if (k === "TMUX" || k === "TMUX_PANE" || k.startsWith("AITERM_") || k.startsWith("BASH_ENV") || k === "ENV") {
        continue;
      }
      env[k] = v;
    }
    Object.assign(env, { HOME: home, TMUX_TMPDIR: dir });
    return new BareTmux(dir, env);
  }

  /** Runs `tmux -S <socket> -f /dev/null ...args`; throws on a non-zero exit or after `timeoutMs`. */
  async tmux(args: string[], timeoutMs = 10_000): Promise<RunResult> {
    const out = await runCommand("tmux", ["-S", this.socket, "-f", "/dev/null", ...args], {
      env: this.#env,
      timeoutMs,
      label: `bare tmux ${args.join(" ")}`,
    });
    if (out.code !== 0) throw new Error(`bare tmux ${args.join(" ")} exited ${out.code}: ${out.stderr.trim()}`);
    return out;
  }

  /** Starts a detached 200x50 session running `bash --norc --noprofile`. */
  async newSession(name: string): Promise<void> {
    await this.tmux(["new-session", "-d", "-s", name, "-x", "200", "-y", "50", "--", "bash", "--norc", "--noprofile"]);
  }

  /**
   * One scripted round trip: start `tmux wait-for <channel>`, then `send-keys -t =<name>:
   * '<command>; tmux wait-for -S <channel>' Enter`, and wait for the waiter to return. Returns the
   * elapsed ms, measured from before either process is spawned.
   */
  async roundTrip(name: string, command: string, channel: string, timeoutMs = 10_000): Promise<number> {
    const t0 = performance.now();
    const waiter = this.tmux(["wait-for", channel], timeoutMs);
    // If the send fails, the waiter must not be left as an unobserved rejection.
    waiter.catch(() => {});
    await this.tmux(["send-keys", "-t", `=${name}:`, `${command}; tmux wait-for -S ${channel}`, "Enter"], timeoutMs);
    await waiter;
    return performance.now() - t0;
  }

  /** Kills this server (only this socket) and removes the directory. */
  async dispose(): Promise<void> {
    await runCommand("tmux", ["-S", this.socket, "-f", "/dev/null", "kill-server"], {
      env: this.#env,
      timeoutMs: 5_000,
    })
      .catch(() => {});
    await Deno.remove(this.dir, { recursive: true }).catch(() => {});
  }
}

// ── aiterm over MCP ───────────────────────────────────────────────────────────────────────────────

/** A connected aiterm MCP server (spawned `deno run -A main.ts`, or AITERM_TEST_SERVER). */
export interface Aiterm {
  client: InstanceType<typeof Client>;
  /** The pid the transport spawned. */
  pid: number;
  /** The argv the server was started with. */
  argv: string[];
  /** Calls a tool; throws (with the error text) on isError or after `timeoutMs`. */
  call<T>(tool: string, args: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  /** The last few KB the server wrote to stderr. */
  stderrTail(): string;
  close(): Promise<void>;
}

/** Spawns the server with `env` (use makeTestEnv's env) and connects the SDK client. */
export async function startAiterm(env: Record<string, string>, name: string): Promise<Aiterm> {
  const { command, args } = serverCommand();
  const transport = new StdioClientTransport({ command, args, env, stderr: "pipe" });
  let tail = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    tail = (tail + (typeof chunk === "string" ? chunk : decoder.decode(chunk))).slice(-4096);
  });
  const client = new Client({ name, version: "0.0.0" });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.close().catch(() => {});
  };
  try {
    await withTimeout(client.connect(transport), 30_000, "connecting to the aiterm server");
  } catch (err) {
    await close();
    throw new Error(`${(err as Error).message}\nserver stderr:\n${tail}`);
  }
  const pid = transport.pid ?? -1;
  return {
    client,
    pid,
    argv: [command, ...args],
    async call<T>(tool: string, a: Record<string, unknown>, timeoutMs = 60_000): Promise<T> {
      const r =
        (await client.callTool({ name: tool, arguments: a }, undefined, { timeout: timeoutMs })) as CallToolResult;
      if (r.isError) {
        const text = r.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
        throw new Error(`${tool}(${JSON.stringify(a)}) failed: ${text}`);
      }
      return r.structuredContent as T;
    },
    stderrTail: () => tail,
    close,
  };
}

/** The fields of pty_open's result the benches use. */
export interface OpenOut {
  session_id: string;
  shell_ready: boolean | null;
}

/** The fields of pty_send's result the benches use. */
export interface SendOut {
  log_cursor: number;
}

/** The fields of pty_read's result the benches use. */
export interface ReadOut {
  text: string;
  is_complete: boolean | null;
  via: string | null;
  exit_status: number | null;
  waited_ms: number | null;
  next_cursor: number | null;
}

/** The fields of pty_close's result the benches use. */
export interface CloseOut {
  outcome: "closed" | "already_closed";
}

// ── process memory ────────────────────────────────────────────────────────────────────────────────

function cmdline(pid: number): string | null {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").filter((s) => s !== "").join(" ");
  } catch {
    return null;
  }
}

function childPids(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const text = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/children`).trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // gone, or no /proc
  }
  return out;
}

/**
 * The pid that actually runs the server: the spawned pid when its cmdline shows the server argv
 * (`deno run` executes in-process), else the first descendant whose cmdline does.
 */
export function resolveServerPid(pid: number, argv: string[]): { pid: number; cmdline: string; note: string } {
  const needle = argv[argv.length - 1] ?? "";
  const own = cmdline(pid);
  if (own === null) return { pid, cmdline: "?", note: "no /proc entry" };
  if (needle && own.includes(needle)) return { pid, cmdline: own, note: "spawned process is the server" };
  const queue = childPids(pid);
  for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
    const c = cmdline(p);
    if (c && needle && c.includes(needle)) {
      return { pid: p, cmdline: c, note: `server is descendant ${p} of spawned ${pid}` };
    }
    queue.push(...childPids(p));
  }
  return { pid, cmdline: own, note: "spawned process (argv not matched)" };
}

/** A `VmRSS`/`VmHWM`-style field of /proc/<pid>/status in kB, or NaN. */
export function procStatusKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/status`);
    const m = text.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return m ? Number(m[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Samples a process's VmRSS every `intervalMs` until stopped. */
export class RssSampler {
  readonly pid: number;
  maxKb = 0;
  samples = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(pid: number, intervalMs = 50) {
    this.pid = pid;
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), intervalMs);
  }

  #sample(): void {
    const kb = procStatusKb(this.pid, "VmRSS");
    if (Number.isFinite(kb)) {
      this.samples++;
      if (kb > this.maxKb) this.maxKb = kb;
    }
  }

  stop(): void {
    if (this.#timer !== undefined) {
      this.#sample();
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}

/** This checkout (with a trailing slash). */
const REPO_ROOT = new URL("../", import.meta.url).pathname;

/** Extracts `commit` into a temporary tree that shares this checkout's node_modules; null if git cannot. */
export async function baselineTree(commit: string, root: string): Promise<string | null> {
  const dir = `${root}/base`;
  await Deno.mkdir(dir);
  const archive = `${root}/base.tar`;
  const made = await runCommand("git", ["-C", REPO_ROOT, "archive", "-o", archive, commit], { timeoutMs: 60_000 });
  if (made.code !== 0) return null;
  const unpacked = await runCommand("tar", ["-xf", archive, "-C", dir], { timeoutMs: 60_000 });
  if (unpacked.code !== 0) return null;
  await Deno.symlink(`${REPO_ROOT}node_modules`, `${dir}/node_modules`);
  return `${dir}/main.ts`;
}
