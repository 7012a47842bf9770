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
import { AppError, type ErrorCode } from "../../../base/errors.ts";
import { AppServer, type AppServerFailure, recordOf, type RpcFailure } from "./app_server.ts";
import { listQueue } from "./queue_list.ts";

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
  const conn = AppServer.spawn(target, { timeoutMs, cwd: home, error: queueError });
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
  await conn.initialize(CLIENT_INFO);

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
  const entries = await listQueue(conn, threadId, (f) => threadError(conn, threadId, "thread/queue/list", f));
  const hit = entries.find((e) => e.clientUserMessageId === clientUserMessageId && typeof e.id === "string");
  return hit ? hit.id as string : null;
}

function threadError(conn: AppServer, threadId: string, method: string, reply: RpcFailure): Error {
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

/** The queue's wording of a lost or refused app-server connection. */
function queueError(f: AppServerFailure): CodexDeliveryError {
  const note = f.stderrTail ? `; stderr: ${f.stderrTail}` : "";
  if (f.kind === "interrupted") {
    return new CodexDeliveryError(
      "interrupted",
      "CODEX_QUEUE_UNCONFIRMED",
      `Cannot confirm the answer was queued for the Codex parent: "${f.command}" ${f.what}; ` +
        `it may be queued, so it must not be sent again${note}`,
      { data: { ...f.data, stderr_tail: f.stderrTail } },
    );
  }
  return new CodexDeliveryError(
    "unavailable",
    "CODEX_APP_SERVER_UNAVAILABLE",
    `Cannot queue the answer for the Codex parent: "${f.command}" ${f.what}${note}`,
    { data: { ...f.data, stderr_tail: f.stderrTail } },
  );
}
