/**
 * Claude Code's hooks as a parent (`aiterm-mcp hook claude-…`), run by Claude Code itself:
 * PreToolUse records which conversation makes a tool call, PostToolUse (asyncRewake) waits for the
 * next message of the delivery that call created (a notice that the child is stuck, or its answer)
 * and wakes the model with it, SessionEnd ends the conversation's pending requests.
 *
 * Claude Code runs a tool call's PostToolUse once, so a hook that carried a notice cannot carry the
 * answer too. The answer then comes through a hook run Claude Code makes anyway: the PostToolUse of the
 * parent's `agent_approval` call about that child, or the Stop hook (asyncRewake) at the end of the
 * parent's turn. Both wait only for deliveries of their conversation that already handed a notice, and
 * exactly one of them takes each message. Hand-over files live under `<state root>/claude-parent-hooks`.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  type DeliveryStore,
  ensurePrivateDir,
  noticesHanded,
  readJsonFile,
  writeJsonAtomic,
} from "../../../state/mod.ts";
import {
  type DeliveryReceiver,
  type HookContext,
  nonEmpty,
  parseHookInput,
  receiveDelivery,
} from "../../common/client/mod.ts";

/** The record kind of Claude Code parents. */
export const CLAUDE_PARENT = "claude";
/** A tool_use_id as Claude Code writes it. */
export const TOOL_USE_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** The error code of requests whose conversation ended (/clear, exit) before the answer came. */
export const SESSION_ENDED = "CLAUDE_PARENT_SESSION_ENDED";

const HOOK_TIMEOUT_MS = 24 * 3600_000;
/** A dispatch's PostToolUse that waited its whole budget fails the delivery with this code. */
const TIMEOUT_CODE = "CLAUDE_PARENT_HOOK_TIMEOUT";
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

/** The exit codes of a Claude receiver: 2 wakes the model with stderr (a notice or the answer). */
function claudeReceiver(ctx: HookContext, name: string, timeoutCode: string | null): DeliveryReceiver {
  return {
    kind: CLAUDE_PARENT,
    name,
    write: (t) => ctx.write("stderr", t),
    // A waiting or sending record is waited for; any other ends the hook quietly.
    endsWith: (rec) => rec?.state === "waiting" || rec?.state === "sending" ? null : 0,
    handOver: { taken: 2, lost: 0, failed: 1 },
    notice: 2,
    timeout: { errorCode: timeoutCode, exit: 0 },
  };
}

/**
 * PostToolUse (asyncRewake): waits for the next message of the delivery this tool call created (a
 * notice or the answer), writes it to stderr and exits 2 — Claude's signal to wake the model with that
 * text. A call that created none but is an `agent_approval` about a child of this conversation carries
 * that child's next message instead (see module doc). Exit 0 when there is nothing to carry, the
 * conversation ended, another receiver took it, or the wait timed out.
 */
export async function claudePostToolUse(
  stdin: string,
  ctx: HookContext,
  options: PostToolUseOptions = {},
): Promise<number> {
  const input = parseHookInput(stdin);
  const toolUseId = nonEmpty(input?.tool_use_id);
  if (!toolUseId || !TOOL_USE_ID.test(toolUseId)) return 0;
  const index = await readJsonFile<{ delivery_id: string; prefix?: string }>(claudeIndexPath(ctx.store, toolUseId))
    .catch(() => null);
  if (!index) {
    const tool = nonEmpty(input?.tool_name);
    const args = input?.tool_input as Record<string, unknown> | undefined;
    const child = nonEmpty(args?.session_id);
    if (!tool || !/__(agent|claude)_approval$/.test(tool) || !child) return 0;
    return await carry(input, ctx, "claude_agent_approval", (s) => s === child, options);
  }
  const store = ctx.store.withPrefix(index.prefix ?? "");
  return await receiveDelivery(store, index.delivery_id, claudeReceiver(ctx, "claude_post_tool_use", TIMEOUT_CODE), {
    timeoutMs: options.timeoutMs ?? HOOK_TIMEOUT_MS,
    pollMs: options.pollMs ?? POLL_MS,
    signal: options.signal,
  });
}

/**
 * Stop (asyncRewake), at the end of each parent turn: carries the next message of a delivery of this
 * conversation whose notice already used up its own hook (see module doc); exits 0 at once when there
 * is none.
 */
export async function claudeStop(stdin: string, ctx: HookContext, options: PostToolUseOptions = {}): Promise<number> {
  return await carry(parseHookInput(stdin), ctx, "claude_stop", () => true, options);
}

/**
 * Waits, as one more receiver, for the next message of the open deliveries of the conversation in
 * `input` whose child matches `child` and that already handed a notice. A timeout fails nothing.
 */
async function carry(
  input: Record<string, unknown> | null,
  ctx: HookContext,
  name: string,
  child: (sessionId: string) => boolean,
  options: PostToolUseOptions,
): Promise<number> {
  const conversation = nonEmpty(input?.session_id);
  if (!conversation) return 0;
  for (const s of ctx.store.all()) {
    const ids = (await s.list(CLAUDE_PARENT)).filter((r) =>
      r.destination.claude_session_id === conversation && child(r.child.session_id) &&
      (r.state === "waiting" || r.state === "ready") && noticesHanded(r) > 0
    ).map((r) => r.delivery_id);
    if (ids.length === 0) continue;
    return await receiveDelivery(s, ids, claudeReceiver(ctx, name, null), {
      timeoutMs: options.timeoutMs ?? HOOK_TIMEOUT_MS,
      pollMs: options.pollMs ?? POLL_MS,
      signal: options.signal,
    });
  }
  return 0;
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
