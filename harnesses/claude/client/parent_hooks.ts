/**
 * Claude Code's hooks as a parent (`aiterm-mcp hook claude-…`), run by Claude Code itself:
 * PreToolUse records which conversation makes a tool call, PostToolUse (asyncRewake) waits for the
 * answer of the delivery that call created and wakes the model with it, SessionEnd ends the
 * conversation's pending requests. Their hand-over files live under `<state root>/claude-parent-hooks`.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { type DeliveryStore, ensurePrivateDir, readJsonFile, writeJsonAtomic } from "../../../lib/state/mod.ts";
import { type HookContext, nonEmpty, parseHookInput, receiveDelivery } from "../../common/client/mod.ts";

/** The record kind of Claude Code parents. */
export const CLAUDE_PARENT = "claude";
/** A tool_use_id as Claude Code writes it. */
export const TOOL_USE_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** The error code of requests whose conversation ended (/clear, exit) before the answer came. */
export const SESSION_ENDED = "CLAUDE_PARENT_SESSION_ENDED";

const HOOK_TIMEOUT_MS = 24 * 3600_000;
/** The fallback tick of PostToolUse; a record's change wakes it at once. */
const POLL_MS = 250;

/** The PreToolUse record (written by `aiterm-mcp hook claude-pre-tool-use`). */
export interface ClaudePreRecord {
  session_id: string;
  tool_use_id: string;
  agent_id: string | null;
  at_ms: number;
}

/** Options of the waiting hook (tests shorten them). */
export interface PostToolUseOptions {
  timeoutMs?: number;
  pollMs?: number;
  signal?: AbortSignal;
}

function digest(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

/** Hand-over files of the hooks: PreToolUse records, tool_use_id → delivery index. */
export function claudeHooksDir(store: DeliveryStore): string {
  return join(store.root, "claude-parent-hooks");
}
/** The PreToolUse hand-over file for a tool call. */
export function claudePrePath(store: DeliveryStore, toolUseId: string): string {
  return join(claudeHooksDir(store), "pre", `${digest(toolUseId)}.json`);
}
/** tool_use_id → delivery id index written when the delivery is created. */
export function claudeIndexPath(store: DeliveryStore, toolUseId: string): string {
  return join(claudeHooksDir(store), "by-tool-use", `${digest(toolUseId)}.json`);
}

/** PreToolUse: remember which conversation (and whether a sub-agent) makes this tool call. Exit 0, no output. */
export async function claudePreToolUse(stdin: string, ctx: HookContext): Promise<number> {
  const input = parseHookInput(stdin);
  const toolUseId = nonEmpty(input?.tool_use_id);
  const sessionId = nonEmpty(input?.session_id);
  if (!toolUseId || !sessionId || !TOOL_USE_ID.test(toolUseId)) return 0;
  ensurePrivateDir(ctx.store.root);
  ensurePrivateDir(claudeHooksDir(ctx.store));
  ensurePrivateDir(join(claudeHooksDir(ctx.store), "pre"));
  await writeJsonAtomic(
    claudePrePath(ctx.store, toolUseId),
    {
      session_id: sessionId,
      tool_use_id: toolUseId,
      agent_id: nonEmpty(input?.agent_id),
      at_ms: Date.now(),
    } satisfies ClaudePreRecord,
  );
  return 0;
}

/**
 * PostToolUse (asyncRewake): waits for the answer of the delivery this tool call created, writes it
 * to stderr and exits 2 — Claude's signal to wake the model with that text. Exit 0 when the call
 * created no delivery, the conversation ended, another receiver took it, or the wait timed out.
 */
export async function claudePostToolUse(
  stdin: string,
  ctx: HookContext,
  options: PostToolUseOptions = {},
): Promise<number> {
  const toolUseId = nonEmpty(parseHookInput(stdin)?.tool_use_id);
  if (!toolUseId || !TOOL_USE_ID.test(toolUseId)) return 0;
  const index = await readJsonFile<{ delivery_id: string; prefix?: string }>(claudeIndexPath(ctx.store, toolUseId))
    .catch(() => null);
  if (!index) return 0;
  const store = ctx.store.withPrefix(index.prefix ?? "");
  return await receiveDelivery(store, index.delivery_id, {
    kind: CLAUDE_PARENT,
    name: "claude_post_tool_use",
    write: (t) => ctx.write("stderr", t),
    // A waiting or sending record is waited for; any other ends the hook quietly.
    endsWith: (rec) => rec?.state === "waiting" || rec?.state === "sending" ? null : 0,
    handOver: { taken: 2, lost: 0, failed: 1 },
    timeout: { errorCode: "CLAUDE_PARENT_HOOK_TIMEOUT", exit: 0 },
  }, {
    timeoutMs: options.timeoutMs ?? HOOK_TIMEOUT_MS,
    pollMs: options.pollMs ?? POLL_MS,
    signal: options.signal,
  });
}

/** SessionEnd: the conversation is over (/clear, exit): its pending requests end; bodies are still saved. */
export async function claudeSessionEnd(stdin: string, ctx: HookContext): Promise<number> {
  const sessionId = nonEmpty(parseHookInput(stdin)?.session_id);
  if (!sessionId) return 0;
  for (const s of ctx.store.all()) {
    for (const rec of await s.list(CLAUDE_PARENT)) {
      if (rec.destination.claude_session_id !== sessionId) continue;
      await s.update(
        CLAUDE_PARENT,
        rec.delivery_id,
        (r) =>
          r.state === "waiting" || r.state === "ready" ? { ...r, state: "failed", error_code: SESSION_ENDED } : null,
      );
    }
  }
  return 0;
}
