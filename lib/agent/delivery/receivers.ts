/**
 * The receiving ends that run inside the parent's own hook processes (`aiterm-mcp hook …`) and
 * Cursor's receive process (`aiterm-mcp cursor-parent-receive`). Each takes a `ready` body exactly
 * once (exclusive claim file), writes it where its client reads it, and only then marks the
 * delivery `submitted`; a write that fails midway leaves `unknown` with the body kept.
 */
import { join } from "node:path";
import { ensurePrivateDir, readJsonFile, writeJsonAtomic } from "../../state/mod.ts";
import { claudeIndexPath, claudePrePath, envelope, UNCLAIMED_LIMIT_MS } from "./manager.ts";
import { type DeliveryRecord, DeliveryStore, me, type ParentKind, STORE_PREFIXES } from "./store.ts";
import { FileWaker } from "../turn_watch.ts";

/** Where a receiver writes: the stream its client reads. Rejects when the reader went away. */
export type WriteFn = (stream: "stdout" | "stderr", text: string) => Promise<void>;

/** Options shared by the waiting receivers. */
export interface ReceiveOptions {
  /** Give up after this long (Claude's hook timeout and Cursor's claim limit are 24 h). */
  timeoutMs: number;
  pollMs?: number;
  signal?: AbortSignal;
}

const CLAUDE_HOOK_TIMEOUT_MS = 24 * 3600_000;

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : null;
  } catch {
    return null;
  }
}

function parseAny(text: string): unknown {
  if (!/^[[{]/.test(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/** The stores of local and remote children under the same root. */
function allStores(store: DeliveryStore): DeliveryStore[] {
  return STORE_PREFIXES.map((p) => p === store.prefix ? store : new DeliveryStore(store.root, p));
}

/** The fallback tick of the waiting receivers; a record's change wakes them at once (../turn_watch.ts). */
const POLL_MS = 250;

/**
 * Hands one ready body to a receiver: claim, `sending`, write, `submitted`. Returns false when the
 * body was not this receiver's to take (already claimed, not ready).
 */
async function handOver(
  store: DeliveryStore,
  kind: ParentKind,
  rec: DeliveryRecord,
  receiver: string,
  write: (text: string) => Promise<void>,
): Promise<boolean> {
  if (rec.state !== "ready") return false;
  if (!(await store.claimBody(kind, rec.delivery_id, receiver))) return false;
  const sending = await store.update(
    kind,
    rec.delivery_id,
    (r) => r.state === "ready" ? { ...r, state: "sending", sender: me(), received_by: receiver } : null,
  );
  if (sending?.state !== "sending" || sending.sender?.pid !== Deno.pid) return false;
  const body = await store.readBody(kind, rec.delivery_id);
  if (body === null) {
    await store.update(kind, rec.delivery_id, (r) => ({ ...r, state: "failed", error_code: "DELIVERY_BODY_MISSING" }));
    return false;
  }
  try {
    await write(envelope(sending, body));
  } catch {
    await store.update(kind, rec.delivery_id, (r) => ({
      ...r,
      state: "unknown",
      sender: null,
      error_code: "DELIVERY_OUTPUT_INTERRUPTED",
    }));
    throw new Error("the receiver's output was cut off");
  }
  await store.update(kind, rec.delivery_id, (r) => ({ ...r, state: "submitted", sender: null }));
  return true;
}

// ---- Claude Code ----

/** PreToolUse: remember which conversation (and whether a sub-agent) makes this tool call. Exit 0, no output. */
export async function claudePreToolUse(store: DeliveryStore, stdin: string): Promise<number> {
  const input = parseJson(stdin);
  const toolUseId = str(input?.tool_use_id);
  const sessionId = str(input?.session_id);
  if (!toolUseId || !sessionId || !/^[A-Za-z0-9_-]{1,128}$/.test(toolUseId)) return 0;
  ensurePrivateDir(store.root);
  ensurePrivateDir(store.claudeHooksDir);
  ensurePrivateDir(join(store.claudeHooksDir, "pre"));
  await writeJsonAtomic(claudePrePath(store, toolUseId), {
    session_id: sessionId,
    tool_use_id: toolUseId,
    agent_id: str(input?.agent_id),
    at_ms: Date.now(),
  });
  return 0;
}

/**
 * PostToolUse (asyncRewake): waits for the answer of the delivery this tool call created, writes it
 * to stderr and exits 2 — Claude's signal to wake the model with that text. Exit 0 when the call
 * created no delivery, the conversation ended, another receiver took it, or the wait timed out.
 */
export async function claudePostToolUse(
  store: DeliveryStore,
  stdin: string,
  write: WriteFn,
  options: Partial<ReceiveOptions> = {},
): Promise<number> {
  const input = parseJson(stdin);
  const toolUseId = str(input?.tool_use_id);
  if (!toolUseId || !/^[A-Za-z0-9_-]{1,128}$/.test(toolUseId)) return 0;
  const index = await readJsonFile<{ delivery_id: string; prefix?: string }>(claudeIndexPath(store, toolUseId))
    .catch(() => null);
  if (!index) return 0;
  store = allStores(store).find((s) => s.prefix === (index.prefix ?? "")) ?? store;
  const deadline = Date.now() + (options.timeoutMs ?? CLAUDE_HOOK_TIMEOUT_MS);
  // Woken by the write that makes the record ready (a file watch); the poll is the fallback where watches fail.
  using waker = new FileWaker(store.dir("claude"), [`${index.delivery_id}.json`]);
  for (;;) {
    const rec = await store.read("claude", index.delivery_id);
    if (!rec || rec.state === "failed" || rec.state === "unknown" || rec.state === "submitted") return 0;
    if (rec.state === "ready") {
      try {
        return (await handOver(store, "claude", rec, "claude_post_tool_use", (t) => write("stderr", t + "\n"))) ? 2 : 0;
      } catch {
        return 1;
      }
    }
    if (Date.now() > deadline || options.signal?.aborted) {
      await store.update(
        "claude",
        rec.delivery_id,
        (r) =>
          r.state === "waiting" || r.state === "ready"
            ? { ...r, state: "failed", error_code: "CLAUDE_PARENT_HOOK_TIMEOUT" }
            : null,
      );
      return 0;
    }
    await waker.next(Math.min(options.pollMs ?? POLL_MS, Math.max(0, deadline - Date.now())), options.signal);
  }
}

/** SessionEnd: the conversation is over (/clear, exit): its pending requests end; bodies are still saved. */
export async function claudeSessionEnd(store: DeliveryStore, stdin: string): Promise<number> {
  const sessionId = str(parseJson(stdin)?.session_id);
  if (!sessionId) return 0;
  for (const s of allStores(store)) {
    for (const rec of await s.list("claude")) {
      if (rec.destination.claude_session_id !== sessionId) continue;
      await s.update(
        "claude",
        rec.delivery_id,
        (r) =>
          r.state === "waiting" || r.state === "ready"
            ? { ...r, state: "failed", error_code: "CLAUDE_PARENT_SESSION_ENDED" }
            : null,
      );
    }
  }
  return 0;
}

// ---- Cursor ----

/** Delivery ids in a tool result (structuredContent, or JSON inside text content), however Cursor wraps it. */
export function deliveryIdsIn(value: unknown, depth = 0): string[] {
  if (depth > 8 || value === null || value === undefined) return [];
  if (typeof value === "string") {
    const ids: string[] = [];
    const whole = parseAny(value.trim());
    if (whole !== undefined) return deliveryIdsIn(whole, depth + 1);
    for (const line of value.split("\n")) {
      const j = parseAny(line.trim());
      if (j !== undefined) ids.push(...deliveryIdsIn(j, depth + 1));
    }
    return ids;
  }
  if (Array.isArray(value)) return value.flatMap((v) => deliveryIdsIn(v, depth + 1));
  if (typeof value === "object") {
    const o = value as Record<string, unknown>;
    const pd = o.parent_delivery as Record<string, unknown> | undefined;
    const own = pd && typeof pd.delivery_id === "string" && /^[0-9a-f-]{36}$/.test(pd.delivery_id)
      ? [pd.delivery_id]
      : [];
    return [...new Set([...own, ...Object.values(o).flatMap((v) => deliveryIdsIn(v, depth + 1))])];
  }
  return [];
}

/**
 * `aiterm-mcp hook cursor-parent` for afterMCPExecution and postToolUse: ties a dispatch's
 * delivery to the conversation, and on postToolUse hands every ready, unclaimed body of that
 * conversation to the model as additional_context. Always exits 0 (never blocks Cursor's tools).
 */
export async function cursorParentHook(store: DeliveryStore, stdin: string, write: WriteFn): Promise<number> {
  const input = parseJson(stdin);
  const conversation = str(input?.conversation_id);
  const event = str(input?.hook_event_name);
  if (!input || !conversation) {
    await write("stdout", "{}\n").catch(() => {});
    return 0;
  }
  const result = input.result_json ?? input.tool_output ?? input.tool_response ?? input.toolResult ?? null;
  const stores = allStores(store);
  for (const id of deliveryIdsIn(result)) {
    for (const s of stores) {
      await s.update(
        "cursor",
        id,
        (r) =>
          r.destination.conversation_id
            ? null
            : { ...r, destination: { ...r.destination, conversation_id: conversation } },
      );
    }
  }
  if (event !== "postToolUse") {
    await write("stdout", "{}\n").catch(() => {});
    return 0;
  }
  const texts: string[] = [];
  for (const s of stores) {
    for (const rec of await s.list("cursor")) {
      if (rec.destination.conversation_id !== conversation || rec.state !== "ready") continue;
      let collected = "";
      const taken = await handOver(s, "cursor", rec, "cursor_post_tool_use", (t) => {
        collected = t;
        return Promise.resolve();
      }).catch(() => false);
      if (taken) texts.push(collected);
    }
  }
  const out = texts.length ? JSON.stringify({ additional_context: texts.join("\n\n") }) : "{}";
  await write("stdout", out + "\n").catch(() => {});
  return 0;
}

/**
 * `aiterm-mcp cursor-parent-receive --delivery ID`: for a Cursor parent that ended its turn. Prints
 * the body and exits 0; 6 when the hook already delivered it; 4 unknown delivery; 3 no claim within
 * the limit (the delivery becomes failed, body kept); 7 the delivery failed.
 */
export async function cursorParentReceive(
  store: DeliveryStore,
  deliveryId: string,
  write: WriteFn,
  options: Partial<ReceiveOptions> = {},
): Promise<number> {
  const deadline = Date.now() + (options.timeoutMs ?? UNCLAIMED_LIMIT_MS);
  for (const s of allStores(store)) {
    if (await s.read("cursor", deliveryId)) {
      store = s;
      break;
    }
  }
  using waker = new FileWaker(store.dir("cursor"), [`${deliveryId}.json`]);
  for (;;) {
    const rec = await store.read("cursor", deliveryId);
    if (!rec) return 4;
    if (rec.state === "submitted" || rec.state === "sending") return 6;
    if (rec.state === "failed" || rec.state === "unknown") return 7;
    if (rec.state === "ready") {
      try {
        const taken = await handOver(store, "cursor", rec, "cursor_parent_receive", (t) => write("stdout", t + "\n"));
        return taken ? 0 : 6;
      } catch {
        return 7;
      }
    }
    if (Date.now() > deadline || options.signal?.aborted) {
      await store.update(
        "cursor",
        deliveryId,
        (r) =>
          r.state === "waiting" || r.state === "ready"
            ? { ...r, state: "failed", error_code: "CURSOR_PARENT_UNCLAIMED" }
            : null,
      );
      return 3;
    }
    await waker.next(Math.min(options.pollMs ?? POLL_MS, Math.max(0, deadline - Date.now())), options.signal);
  }
}
