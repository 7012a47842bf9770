/**
 * Codex as a parent: recognised by its clientInfo name, it names the calling thread in
 * `_meta.threadId`; the server queues the child's answer into that thread through Codex's official
 * app-server queue (queue.ts), and with `setup --codex-steer enable` its hooks may hand a queued
 * answer to the running turn (steer_hook.ts).
 */
import { join } from "node:path";
import { processEnvVar } from "../../../platform/mod.ts";
import { type HookContext, type ParentIntegration, type PushOutcome, resolveBinary } from "../../common/client/mod.ts";
import { codexBinary } from "../launch.ts";
import { CODEX_PARENT, THREAD_ID } from "./parent_kind.ts";
import { addToCodexQueue, type CodexQueueResult, type CodexQueueTarget } from "./queue.ts";
import { codexSteerHook } from "./steer_hook.ts";
import { codexHomeOf, type CodexHookEvent, codexHookStateDir, readSelection } from "./steer_state.ts";

/** The queue, injected so tests can fake the receiver (default: {@link addToCodexQueue}). */
export type CodexQueueFn = (target: CodexQueueTarget, body: string, clientUserMessageId: string) => Promise<
  CodexQueueResult
>;

/** Options of the Codex parent. */
export interface CodexParentOptions {
  queue?: CodexQueueFn;
}

/** The Codex binary the parent runs (for its app-server); null when none is found. */
export function codexBinFor(env: Record<string, string>): string | null {
  return resolveBinary(codexBinary, env);
}

/** Whether Codex same-turn steer is selected for the Codex home of `env` (a file read, no process). */
async function steerState(env: Record<string, string>): Promise<"not_enabled" | "enabled"> {
  return (await readSelection(codexHookStateDir(env), codexHomeOf(env)))?.state === "enabled"
    ? "enabled"
    : "not_enabled";
}

/** A queue failure as a delivery outcome: `interrupted` (maybe queued) is unknown, never resent. */
function failureOutcome(err: unknown): PushOutcome {
  const e = err as { kind?: unknown; code?: unknown } | null;
  if (e && (e.kind === "refused" || e.kind === "interrupted" || e.kind === "unavailable")) {
    const code = typeof e.code === "string" ? e.code : "CODEX_QUEUE_REFUSED";
    return { state: e.kind === "interrupted" ? "unknown" : "failed", error_code: code, detail: e.kind };
  }
  // An unexpected throw after the request may have been written: do not claim it was not sent.
  return { state: "unknown", error_code: "CODEX_QUEUE_UNCONFIRMED", detail: "interrupted" };
}

function steerHook(event: CodexHookEvent) {
  return (stdin: string, ctx: HookContext) =>
    codexSteerHook(event, stdin, {
      store: ctx.store,
      hookStateDir: codexHookStateDir(ctx.env),
      codexHome: codexHomeOf(ctx.env),
      codexBin: codexBinFor(ctx.env),
      env: ctx.env,
      write: ctx.write,
    });
}

/** The Codex parent integration. */
export function codexParent(options: CodexParentOptions = {}): ParentIntegration {
  const queue = options.queue ?? addToCodexQueue;
  return {
    kind: CODEX_PARENT,
    storeDir: "parent-deliveries",
    identify(clientName, meta) {
      if (clientName !== "codex-mcp-client") return null;
      const thread = meta?.threadId;
      return { kind: CODEX_PARENT, ref: typeof thread === "string" && thread !== "" ? thread : null };
    },
    resolve(call, host) {
      if (!call.ref || !THREAD_ID.test(call.ref)) return Promise.resolve(null);
      // Codex starts MCP servers with a cleared environment, so CODEX_HOME may be missing here: take the
      // parent Codex process's own value when the OS shows it, else Codex's default.
      const home = host.env.CODEX_HOME || processEnvVar(Deno.ppid, "CODEX_HOME") ||
        join(host.env.HOME ?? "", ".codex");
      return Promise.resolve({
        kind: CODEX_PARENT,
        destination: { thread_id: call.ref, codex_home: home },
        key: `codex:${home}:${call.ref}`,
      });
    },
    async push(rec, message, host) {
      const bin = codexBinFor(host.env);
      const thread = rec.destination.thread_id;
      const home = rec.destination.codex_home;
      if (message === null || !bin || !thread || !home) {
        return { state: "failed", error_code: bin ? "DELIVERY_BODY_MISSING" : "CODEX_APP_SERVER_UNAVAILABLE" };
      }
      try {
        const target = { codexBin: bin, codexHome: home, threadId: thread, env: host.env };
        // A notice has its own id (`<delivery>.notice-<n>`), so the queue never takes it for the answer.
        const res = await queue(target, message.text, message.client_id);
        return { state: "submitted", queued_submission_id: res.queuedSubmissionId, received_by: "codex_queue" };
      } catch (err) {
        return failureOutcome(err);
      }
    },
    async readiness(host) {
      const bin = codexBinFor(host.env);
      return {
        status: bin ? "ready" : "unavailable",
        detail: bin ? null : "no codex binary found for the official app-server (CODEX_BIN, standard path, PATH)",
        steer: Deno.build.os === "linux" ? "unsupported" : await steerState(host.env),
      };
    },
    instructions: (base) =>
      `${base} As a Codex parent you do nothing to get a child's answer: it is queued into this thread by ` +
      "itself when the child's turn ends. Do not poll or wait. If the child stops on a dialog (an approval, a " +
      "sign-in, a usage limit), a notice is queued the same way: it says what the child waits on and the " +
      "agent_approval call that answers it; the answer still follows by itself. A receipt warning CODEX_PARENT_ID_UNAVAILABLE " +
      "means that request had no thread id: then use its wait_process.",
    warning(call, receipt) {
      if (receipt.delivered || !receipt.turnStarted) return undefined;
      return {
        code: "CODEX_PARENT_ID_UNAVAILABLE",
        message:
          (call.ref === null
            ? "this request carried no _meta.threadId"
            : "this request's _meta.threadId is not a Codex thread id") +
          ", so the answer cannot be queued to your thread: use wait_process instead",
      };
    },
    hooks: { "codex-post-tool-use": steerHook("post_tool_use"), "codex-stop": steerHook("stop") },
  };
}
