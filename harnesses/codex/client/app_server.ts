/**
 * One short-lived `codex app-server` (stdio, newline-delimited JSON-RPC) in its own process group,
 * shared by the Codex queue delivery (codex_queue.ts), the Codex steer hooks (codex_steer.ts) and
 * `aiterm-mcp setup --codex-steer` (harnesses/codex/client/steer_setup.ts).
 *
 * The connection never decides what a failure means to its caller: it reports whether the failure
 * came before or after the caller marked a request as sent ({@link AppServer.markSent}), and the
 * caller's error factory turns that into its own error (nothing happened vs. outcome unknown).
 */

/** Which app-server to start: the Codex executable, the CODEX_HOME and the whole environment. */
export interface AppServerTarget {
  /** The Codex executable whose `app-server` subcommand is started. */
  codexBin: string;
  /** The CODEX_HOME the server runs with (set in the child's environment, overriding `env`). */
  codexHome: string;
  /** The whole environment of the app-server process (nothing else is inherited). */
  env: Record<string, string>;
}

/** A failure of the connection, handed to the caller's error factory. */
export interface AppServerFailure {
  /** `unavailable`: nothing marked as sent reached the server; `interrupted`: it may have. */
  kind: "unavailable" | "interrupted";
  /** `<codexBin> app-server`, for messages. */
  command: string;
  /** What went wrong, as a clause ("gave no answer to initialize in time (…)"). */
  what: string;
  /** The last stderr lines of the app-server, without colour codes ("" when none). */
  stderrTail: string;
  /** Extra fields the caller passed (rpc codes and the like). */
  data: Record<string, unknown>;
}

/** Builds the caller's error for a failure. */
export type AppServerErrorFactory = (failure: AppServerFailure) => Error;

/** Options for {@link AppServer.spawn}. */
export interface AppServerOptions {
  /** Bound on the whole exchange, from spawn to the last answer. */
  timeoutMs: number;
  /** Working directory of the app-server (its session cwd for hooks/list and the like). */
  cwd: string;
  /** Turns connection failures into the caller's errors. */
  error: AppServerErrorFactory;
}

/** A JSON-RPC answer. */
export type RpcReply = { ok: true; result: unknown } | RpcFailure;

/** A JSON-RPC error answer. */
export interface RpcFailure {
  ok: false;
  code: number | null;
  message: string;
}

/** Why the connection can no longer answer. */
interface Ended {
  reason: "exit" | "timeout" | "spawn";
  detail: string;
}

/** Grace between SIGTERM and SIGKILL for the app-server's process group. */
const TERM_GRACE_MS = 1000;
const STDERR_KEEP = 4096;
const encoder = new TextEncoder();

/** The object in `v`, or null. */
export function recordOf(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : null;
}

/** One `codex app-server` child in its own process group, spoken to over stdin/stdout. */
export class AppServer {
  #child: Deno.ChildProcess | null = null;
  #writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  #pending = new Map<number, (reply: RpcReply) => void>();
  #nextId = 1;
  #stderr = "";
  #ended: Ended | null = null;
  #endWaiters: ((e: Ended) => void)[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pumps: Promise<void>[] = [];
  #sent = false;
  #method = "spawn";
  #command: string;
  #error: AppServerErrorFactory;

  private constructor(command: string, error: AppServerErrorFactory) {
    this.#command = command;
    this.#error = error;
  }

  /** Starts the app-server; a spawn failure surfaces at the first call. */
  static spawn(target: AppServerTarget, options: AppServerOptions): AppServer {
    const server = new AppServer(`${target.codexBin} app-server`, options.error);
    server.#timer = setTimeout(
      () => server.#end({ reason: "timeout", detail: `no answer within ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );
    try {
      // Not platform/run.ts: the app-server is a JSON-RPC peer that answers on stdout while its stdin stays open.
      server.#child = new Deno.Command(target.codexBin, {
        args: ["app-server"],
        env: { ...target.env, CODEX_HOME: target.codexHome },
        clearEnv: true,
        cwd: options.cwd,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        // A new process group, so close() can take down anything the app-server started.
        detached: true,
      }).spawn();
    } catch (err) {
      server.#end({ reason: "spawn", detail: err instanceof Error ? err.message : String(err) });
      return server;
    }
    server.#writer = server.#child.stdin.getWriter();
    server.#pumps.push(server.#readStdout(server.#child.stdout), server.#readStderr(server.#child.stderr));
    return server;
  }

  /** `initialize` (experimental API on) and `initialized`; a refusal is an `unavailable` failure. */
  async initialize(clientInfo: { name: string; title: string; version: string }): Promise<Record<string, unknown>> {
    const init = await this.call("initialize", { clientInfo, capabilities: { experimentalApi: true } });
    if (!init.ok) throw this.unavailable(`initialize was refused: ${init.message}`, { rpc_code: init.code });
    await this.notify("initialized", {});
    return recordOf(init.result) ?? {};
  }

  /** From here on a lost connection means the last request may have taken effect. */
  markSent(): void {
    this.#sent = true;
  }

  /** Sends one request and waits for its answer; throws the caller's error when the connection ends first. */
  async call(method: string, params: Record<string, unknown>): Promise<RpcReply> {
    this.#method = method;
    const id = this.#nextId++;
    const answer = new Promise<RpcReply>((resolve) => this.#pending.set(id, resolve));
    await this.#write({ jsonrpc: "2.0", id, method, params });
    const winner = await Promise.race([answer, this.#whenEnded()]);
    this.#pending.delete(id);
    if ("reason" in winner) throw this.#lost(winner);
    return winner;
  }

  /** Sends one notification (no answer expected). */
  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    this.#method = method;
    await this.#write({ jsonrpc: "2.0", method, params });
  }

  /** The caller's error for "nothing took effect". */
  unavailable(what: string, data: Record<string, unknown> = {}): Error {
    return this.#error({ kind: "unavailable", command: this.#command, what, stderrTail: this.stderrTail(), data });
  }

  /** The caller's error for "it may have taken effect". */
  interrupted(what: string, data: Record<string, unknown> = {}): Error {
    return this.#error({ kind: "interrupted", command: this.#command, what, stderrTail: this.stderrTail(), data });
  }

  /** The last non-empty stderr lines, without terminal colour codes. */
  stderrTail(): string {
    // deno-lint-ignore no-control-regex
    const plain = this.#stderr.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
    const lines = plain.split("\n").map((l) => l.trim()).filter((l) => l !== "");
    return lines.slice(-3).join(" | ").slice(-600);
  }

  /** Ends the child and its process group on every path; waits until it is reaped. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#end({ reason: "exit", detail: "closed" });
    const child = this.#child;
    if (!child) return;
    // Not awaited yet: a write stuck on a full pipe only fails once the child is gone.
    const closing = this.#writer?.close().catch(() => {});
    signalGroup(child.pid, "SIGTERM");
    const exited = await within(child.status.then(() => true), TERM_GRACE_MS, false);
    // Also after a clean exit: helpers left in the group must not outlive the exchange.
    signalGroup(child.pid, "SIGKILL");
    if (!exited) await child.status;
    await closing;
    // A helper that left our process group could hold the pipes open; do not wait for it forever.
    await within(Promise.all(this.#pumps).then(() => true), TERM_GRACE_MS, false);
  }

  #lost(e: Ended): Error {
    const why = e.reason === "timeout"
      ? `gave no answer to ${this.#method} in time (${e.detail})`
      : e.reason === "spawn"
      ? `could not be started: ${e.detail}`
      : `ended before answering ${this.#method} (${e.detail})`;
    return this.#sent ? this.interrupted(why) : this.unavailable(why);
  }

  #end(e: Ended): void {
    if (this.#ended) return;
    this.#ended = e;
    for (const wake of this.#endWaiters.splice(0)) wake(e);
  }

  #whenEnded(): Promise<Ended> {
    const ended = this.#ended;
    if (ended) return Promise.resolve(ended);
    return new Promise<Ended>((resolve) => this.#endWaiters.push(resolve));
  }

  /** Writes one line; a closed stdin or an ending connection while the pipe is full ends the call. */
  async #write(message: Record<string, unknown>): Promise<void> {
    if (this.#ended) throw this.#lost(this.#ended);
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    const written = this.#writer!.write(bytes).then(
      () => null,
      (err): Ended => ({ reason: "exit", detail: `stdin closed: ${err instanceof Error ? err.message : String(err)}` }),
    );
    const failed = await Promise.race([written, this.#whenEnded()]);
    if (failed) {
      this.#end(failed);
      throw this.#lost(this.#ended ?? failed);
    }
  }

  async #readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    let buf = "";
    try {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line !== "") this.#onLine(line);
        }
      }
    } catch {
      // a broken pipe ends the connection like EOF
    }
    if (this.#ended) return;
    const status = await within(this.#child!.status, 200, null);
    const detail = status === null
      ? "stdout closed"
      : status.signal
      ? `exited on ${status.signal}`
      : `exited with code ${status.code}`;
    this.#end({ reason: "exit", detail });
  }

  async #readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        this.#stderr = (this.#stderr + chunk).slice(-STDERR_KEEP);
      }
    } catch {
      // nothing more to keep
    }
  }

  #onLine(line: string): void {
    let msg: Record<string, unknown> | null;
    try {
      msg = recordOf(JSON.parse(line));
    } catch {
      return; // not protocol: ignore, as a log line would be
    }
    if (!msg) return;
    const id = msg.id;
    if (typeof msg.method === "string") {
      // A request from the server: we offer no client methods, so say so instead of leaving it hanging.
      if (id !== undefined && id !== null && !this.#ended) {
        const reply = { jsonrpc: "2.0", id, error: { code: -32601, message: "aiterm offers no client methods" } };
        this.#writer!.write(encoder.encode(JSON.stringify(reply) + "\n")).catch(() => {});
      }
      return;
    }
    if (typeof id !== "number") return;
    const resolve = this.#pending.get(id);
    if (!resolve) return;
    const error = recordOf(msg.error);
    if (error) {
      const code = typeof error.code === "number" ? error.code : null;
      resolve({ ok: false, code, message: typeof error.message === "string" ? error.message : JSON.stringify(error) });
    } else {
      resolve({ ok: true, result: msg.result });
    }
  }
}

/** `promise`, or `fallback` once `ms` pass (the timer is always cleared). */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<F>((resolve) => timer = setTimeout(() => resolve(fallback), ms))]);
  } finally {
    clearTimeout(timer);
  }
}

function signalGroup(pid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pid, signal);
  } catch {
    // No such group left, or no process groups here (Windows): signal the process itself.
    try {
      Deno.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
