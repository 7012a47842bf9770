/**
 * `aiterm-mcp hook <name>` and `aiterm-mcp cursor-parent-receive`: the processes AI clients start
 * (hooks read one JSON object on stdin). They touch only the delivery store; stdout carries only
 * what the client's hook contract reads.
 */
import { parseArgs } from "node:util";
import { defaultStateRoot } from "../../../platform/mod.ts";
import {
  claudePostToolUse,
  claudePreToolUse,
  claudeSessionEnd,
  cursorParentHook,
  cursorParentReceive,
  type WriteFn,
} from "./receivers.ts";
import { DeliveryStore } from "./store.ts";
import { codexHomeOf, codexHookStateDir, codexSteerHook } from "./codex_steer.ts";
import { harnessBinary, resolveBinary } from "../../../harnesses/mod.ts";

/** The hook names `aiterm-mcp setup` installs. */
export const HOOK_NAMES = [
  "claude-pre-tool-use",
  "claude-post-tool-use",
  "claude-session-end",
  "cursor-parent",
  "codex-post-tool-use",
  "codex-stop",
] as const;

const write: WriteFn = async (stream, text) => {
  const w = (stream === "stdout" ? Deno.stdout : Deno.stderr).writable.getWriter();
  try {
    await w.write(new TextEncoder().encode(text));
  } finally {
    w.releaseLock();
  }
};

function storeFor(env: Record<string, string>): DeliveryStore {
  return new DeliveryStore(defaultStateRoot(env));
}

/** Runs one hook; returns its exit code. Unknown names exit 2 with a message on stderr. */
export async function runHook(args: string[], env: Record<string, string>): Promise<number> {
  const name = args[0];
  if (!name || !(HOOK_NAMES as readonly string[]).includes(name) || args.length > 1) {
    await write("stderr", `aiterm-mcp hook: expected one of ${HOOK_NAMES.join(", ")}\n`);
    return 2;
  }
  const stdin = await new Response(Deno.stdin.readable).text();
  const store = storeFor(env);
  try {
    switch (name) {
      case "claude-pre-tool-use":
        return await claudePreToolUse(store, stdin);
      case "claude-post-tool-use":
        return await claudePostToolUse(store, stdin, write);
      case "claude-session-end":
        return await claudeSessionEnd(store, stdin);
      case "codex-post-tool-use":
      case "codex-stop":
        return await codexSteerHook(name === "codex-stop" ? "stop" : "post_tool_use", stdin, {
          store,
          hookStateDir: codexHookStateDir(env),
          codexHome: codexHomeOf(env),
          codexBin: resolveBinary(harnessBinary("codex-cli"), env),
          env,
          write,
        });
      default:
        return await cursorParentHook(store, stdin, write);
    }
  } catch (err) {
    // A hook must never break the client's tool call: report on stderr, exit 1 (non-blocking).
    await write("stderr", `aiterm-mcp hook ${name}: ${(err as Error).message}\n`).catch(() => {});
    return 1;
  }
}

/** Usage of the Cursor receive process. */
export const RECEIVE_USAGE =
  "usage: aiterm-mcp cursor-parent-receive --delivery ID [--timeout SECONDS (default 86400)]";

/** `cursor-parent-receive`: exit 0 body printed, 6 taken by the hook, 4 unknown id, 3 unclaimed timeout, 7 failed. */
export async function runCursorReceive(args: string[], env: Record<string, string>): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: { delivery: { type: "string" }, timeout: { type: "string", default: "86400" } },
      strict: true,
    }).values;
  } catch (err) {
    await write("stderr", `aiterm-mcp cursor-parent-receive: ${(err as Error).message}\n${RECEIVE_USAGE}\n`);
    return 2;
  }
  const timeout = Number(values.timeout);
  if (!values.delivery || !/^[0-9a-f-]{36}$/.test(values.delivery) || !(timeout >= 0)) {
    await write("stderr", `aiterm-mcp cursor-parent-receive: --delivery <uuid> is required\n${RECEIVE_USAGE}\n`);
    return 2;
  }
  return await cursorParentReceive(storeFor(env), values.delivery, write, { timeoutMs: timeout * 1000 });
}
