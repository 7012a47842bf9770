/**
 * Hands a child's answer to a Codex parent through Codex's own per-thread user-message queue.
 *
 * One short-lived `codex app-server` (stdio, newline-delimited JSON-RPC) is started with the parent's
 * CODEX_HOME. It is asked to `initialize`, to read the parent thread, to list that thread's queue
 * (every page), and only then to `thread/queue/add` the body once. The thread is never loaded or
 * resumed here, so no turn runs in this process and none of the parent's MCP servers start: the
 * Codex that owns the thread picks the queued input up itself (measured with Codex 0.169.0: an idle
 * TUI, with or without the shared daemon, ran it within about 10 s).
 *
 * Failures say whether anything may have reached the queue. `unavailable` and `refused` mean nothing
 * was queued; `interrupted` means the add request was written and its answer never came, so the
 * caller must treat the delivery as unknown and never send it again.
 */
import { AppError, type ErrorCode } from "../../errors.ts";

/** Where the answer goes: the parent's Codex binary, its CODEX_HOME and thread. */
export interface CodexQueueTarget {
  /** The Codex executable whose `app-server` subcommand is started. */
  codexBin: string;
  /** The CODEX_HOME the parent runs with (set in the child's environment, overriding `env`). */
  codexHome: string;
  /** The parent's thread id (from the MCP request's `_meta.threadId`). */
  threadId: string;
  /** The whole environment of the app-server process (nothing else is inherited). */
  env: Record<string, string>;
}

/** A body that is in the parent's queue. */
export interface CodexQueueResult {
  /** The queue entry's id (`QueuedSubmission.id`). */
  queuedSubmissionId: string;
  /** True when an entry with the same clientUserMessageId was already queued, so nothing was added. */
  alreadyQueued: boolean;
}

/** How a delivery failed: nothing queued and safe to retry, refused by Codex, or outcome unknown. */
export type CodexDeliveryKind = "refused" | "interrupted" | "unavailable";

/** Options for {@link addToCodexQueue}. */
export interface AddToCodexQueueOptions {
  /** Bound on the whole exchange, from spawn to the add's answer (default {@link CODEX_QUEUE_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** Default bound on one delivery. */
export const CODEX_QUEUE_TIMEOUT_MS = 30_000;

/** A failed Codex delivery; `kind` tells the caller whether the body may have been queued. */
export class CodexDeliveryError extends AppError {
  readonly kind: CodexDeliveryKind;

  constructor(
    kind: CodexDeliveryKind,
    code: ErrorCode,
    message: string,
    options: { data?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, options);
    this.kind = kind;
  }
}

const CLIENT_INFO = { name: "aiterm-parent-delivery", title: "aiterm parent delivery", version: "1" };
/** Grace between SIGTERM and SIGKILL for the app-server's process group. */
const TERM_GRACE_MS = 1000;
/** Upper bound on queue pages, so a server that repeats its cursor cannot loop us forever. */
const MAX_QUEUE_PAGES = 1000;
const STDERR_KEEP = 4096;
/** Error texts of thread/read and thread/queue/* that mean the thread does not exist in this home. */
const THREAD_MISSING = /thread not loaded|no rollout found|invalid thread id|thread not found|unknown thread/i;

/**
 * Adds `body` to the queue of the parent's Codex thread, at most once per `clientUserMessageId`.
 *
 * @param target the parent's Codex binary, home, thread and environment
 * @param body the exact text to queue (sent unmodified as one text input)
 * @param clientUserMessageId a stable id for this delivery; an entry already queued with it is reused
 * @returns the queued submission's id and whether it was already there
 * @throws {CodexDeliveryError} CODEX_APP_SERVER_UNAVAILABLE (`unavailable`), CODEX_PARENT_THREAD_NOT_FOUND
 *   (`refused`), CODEX_QUEUE_REFUSED (`refused`), CODEX_QUEUE_UNCONFIRMED (`interrupted`)
 */
export async function addToCodexQueue(
  target: CodexQueueTarget,
  body: string,
  clientUserMessageId: string,
  options: AddToCodexQueueOptions = {},
): Promise<CodexQueueResult> {
  const timeoutMs = options.timeoutMs ?? CODEX_QUEUE_TIMEOUT_MS;
  const home = await homeDir(target.codexHome);
  const conn = AppServer.spawn(target, home, timeoutMs);
  try {
    return await deliver(conn, target.threadId, body, clientUserMessageId);
  } finally {
    await conn.close();
  }
}

async function homeDir(path: string): Promise<string> {
  try {
    if ((await Deno.stat(path)).isDirectory) return path;
  } catch {
    // reported below
  }
  throw new CodexDeliveryError(
    "unavailable",
    "CODEX_APP_SERVER_UNAVAILABLE",
    `Cannot queue the answer for the Codex parent: CODEX_HOME "${path}" is not a directory`,
    { data: { codex_home: path } },
  );
}

async function deliver(conn: AppServer, threadId: string, body: string, id: string): Promise<CodexQueueResult> {
  const init = await conn.call("initialize", {
    clientInfo: CLIENT_INFO,
    capabilities: { experimentalApi: true },
  });
  if (!init.ok) throw conn.unavailable(`initialize was refused: ${init.message}`, { rpc_code: init.code });
  await conn.notify("initialized", {});

  const read = await conn.call("thread/read", { threadId, includeTurns: false });
  if (!read.ok) throw threadError(conn, threadId, "thread/read", read);
  if (recordOf(recordOf(read.result)?.thread)?.id !== threadId) {
    throw conn.unavailable(`thread/read answered without thread "${threadId}"`);
  }

  const queued = await findQueued(conn, threadId, id);
  if (queued) return { queuedSubmissionId: queued, alreadyQueued: true };

  conn.markSent();
  const add = await conn.call("thread/queue/add", {
    threadId,
    clientUserMessageId: id,
    input: [{ type: "text", text: body, text_elements: [] }],
  });
  if (!add.ok) {
    const code = THREAD_MISSING.test(add.message) ? "CODEX_PARENT_THREAD_NOT_FOUND" : "CODEX_QUEUE_REFUSED";
    throw new CodexDeliveryError(
      "refused",
      code,
      `Codex refused to queue the answer on thread "${threadId}": ${add.message}`,
      { data: { thread_id: threadId, rpc_code: add.code } },
    );
  }
  const entry = recordOf(recordOf(add.result)?.queuedSubmission);
  const submission = typeof entry?.id === "string" && entry.id !== "" ? entry.id : null;
  if (!submission) throw conn.interrupted("thread/queue/add answered without a queued submission id");
  return { queuedSubmissionId: submission, alreadyQueued: false };
}

/** The id of the queue entry carrying `clientUserMessageId`, looking through every page. */
async function findQueued(conn: AppServer, threadId: string, clientUserMessageId: string): Promise<string | null> {
  let cursor: string | null = null;
  const seen = new Set<string>();
  for (let page = 0; page < MAX_QUEUE_PAGES; page++) {
    const params: Record<string, unknown> = { threadId };
    if (cursor !== null) params.cursor = cursor;
    const list = await conn.call("thread/queue/list", params);
    if (!list.ok) throw threadError(conn, threadId, "thread/queue/list", list);
    const res = recordOf(list.result);
    if (!res || !Array.isArray(res.data)) throw conn.unavailable("thread/queue/list answered without a data array");
    for (const item of res.data) {
      const sub = recordOf(item);
      if (sub?.clientUserMessageId === clientUserMessageId && typeof sub.id === "string") return sub.id;
    }
    const next = typeof res.nextCursor === "string" && res.nextCursor !== "" ? res.nextCursor : null;
    if (next === null) return null;
    if (seen.has(next)) throw conn.unavailable(`thread/queue/list repeated its cursor "${next}"`);
    seen.add(next);
    cursor = next;
  }
  throw conn.unavailable(`thread/queue/list did not end within ${MAX_QUEUE_PAGES} pages`);
}

function threadError(conn: AppServer, threadId: string, method: string, reply: RpcFailure): CodexDeliveryError {
  if (THREAD_MISSING.test(reply.message)) {
    return new CodexDeliveryError(
      "refused",
      "CODEX_PARENT_THREAD_NOT_FOUND",
      `Cannot queue for Codex thread "${threadId}": ${method} says ${reply.message}`,
      { data: { thread_id: threadId, rpc_code: reply.code } },
    );
  }
  return conn.unavailable(`${method} failed: ${reply.message}`, { rpc_code: reply.code });
}

function recordOf(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : null;
}

interface RpcSuccess {
  ok: true;
  result: unknown;
}
interface RpcFailure {
  ok: false;
  code: number | null;
  message: string;
}
type RpcReply = RpcSuccess | RpcFailure;

/** Why the connection can no longer answer. */
interface Ended {
  reason: "exit" | "timeout" | "spawn";
  detail: string;
}

const encoder = new TextEncoder();

/** One `codex app-server` child in its own process group, spoken to over stdin/stdout. */
class AppServer {
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

  private constructor(command: string) {
    this.#command = command;
  }

  static spawn(target: CodexQueueTarget, cwd: string, timeoutMs: number): AppServer {
    const server = new AppServer(`${target.codexBin} app-server`);
    server.#timer = setTimeout(
      () => server.#end({ reason: "timeout", detail: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
    try {
      server.#child = new Deno.Command(target.codexBin, {
        args: ["app-server"],
        env: { ...target.env, CODEX_HOME: target.codexHome },
        clearEnv: true,
        cwd,
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

  /** From here on a lost connection means the body may have been queued. */
  markSent(): void {
    this.#sent = true;
  }

  /** Sends one request and waits for its answer; throws a CodexDeliveryError when the connection ends first. */
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

  unavailable(what: string, data: Record<string, unknown> = {}): CodexDeliveryError {
    return new CodexDeliveryError(
      "unavailable",
      "CODEX_APP_SERVER_UNAVAILABLE",
      `Cannot queue the answer for the Codex parent: "${this.#command}" ${what}${this.#stderrNote()}`,
      { data: { ...data, stderr_tail: this.stderrTail() } },
    );
  }

  interrupted(what: string): CodexDeliveryError {
    return new CodexDeliveryError(
      "interrupted",
      "CODEX_QUEUE_UNCONFIRMED",
      `Cannot confirm the answer was queued for the Codex parent: "${this.#command}" ${what}; ` +
        `it may be queued, so it must not be sent again${this.#stderrNote()}`,
      { data: { stderr_tail: this.stderrTail() } },
    );
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
    // Also after a clean exit: helpers left in the group must not outlive the delivery.
    signalGroup(child.pid, "SIGKILL");
    if (!exited) await child.status;
    await closing;
    // A helper that left our process group could hold the pipes open; do not wait for it forever.
    await within(Promise.all(this.#pumps).then(() => true), TERM_GRACE_MS, false);
  }

  #lost(e: Ended): CodexDeliveryError {
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

  #stderrNote(): string {
    const tail = this.stderrTail();
    return tail ? `; stderr: ${tail}` : "";
  }
}

/** `promise`, or `fallback` once `ms` pass (the timer is always cleared). */
async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
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
