/**
 * Cursor's receiving ends as a parent: the hook `aiterm-mcp hook cursor-parent` (afterMCPExecution
 * and postToolUse) and the receive process `aiterm-mcp cursor-parent-receive`. Each takes a `ready`
 * body exactly once (DeliveryStore.handOver), and each ready notice (the child is stuck and waits for
 * an answer) exactly once (DeliveryStore.handOverNotice), and writes it where Cursor reads it.
 */
import { parseArgs } from "node:util";
import { readyNotice } from "../../../state/mod.ts";
import { type HookContext, nonEmpty, parseHookInput, receiveDelivery } from "../../common/client/mod.ts";

/** The record kind of Cursor parents. */
export const CURSOR_PARENT = "cursor";
/** How long a Cursor body waits for a claim before the delivery is failed (body kept). */
export const UNCLAIMED_LIMIT_MS = 24 * 3600_000;
/** The error code of a body nobody claimed in time. */
export const UNCLAIMED_CODE = "CURSOR_PARENT_UNCLAIMED";
/** The subcommand of the receive process. */
export const RECEIVE_SUBCOMMAND = "cursor-parent-receive";
/** Usage of the receive process. */
export const RECEIVE_USAGE =
  "usage: aiterm-mcp cursor-parent-receive --delivery ID [--timeout SECONDS (default 86400)]";
/** The receive process's exit code after it printed a notice (as aiterm-wait's `blocked`): start it again for the answer. */
export const RECEIVE_NOTICE_EXIT = 5;

/** The fallback tick of the receive process; a record's change wakes it at once. */
const POLL_MS = 250;
const DELIVERY_ID = /^[0-9a-f-]{36}$/;

/** Options of the receive process (tests shorten them). */
export interface ReceiveOptions {
  timeoutMs?: number;
  pollMs?: number;
  signal?: AbortSignal;
}

function parseAny(text: string): unknown {
  if (!/^[[{]/.test(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

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
    const own = pd && typeof pd.delivery_id === "string" && DELIVERY_ID.test(pd.delivery_id) ? [pd.delivery_id] : [];
    return [...new Set([...own, ...Object.values(o).flatMap((v) => deliveryIdsIn(v, depth + 1))])];
  }
  return [];
}

/**
 * `aiterm-mcp hook cursor-parent` for afterMCPExecution and postToolUse: ties a dispatch's
 * delivery to the conversation, and on postToolUse hands every ready, unclaimed body of that
 * conversation to the model as additional_context. Always exits 0 (never blocks Cursor's tools).
 */
export async function cursorParentHook(stdin: string, ctx: HookContext): Promise<number> {
  const input = parseHookInput(stdin);
  const conversation = nonEmpty(input?.conversation_id);
  const event = nonEmpty(input?.hook_event_name);
  if (!input || !conversation) {
    await ctx.write("stdout", "{}\n").catch(() => {});
    return 0;
  }
  const result = input.result_json ?? input.tool_output ?? input.tool_response ?? input.toolResult ?? null;
  const stores = ctx.store.all();
  for (const id of deliveryIdsIn(result)) {
    for (const s of stores) {
      await s.update(
        CURSOR_PARENT,
        id,
        (r) =>
          r.destination.conversation_id
            ? null
            : { ...r, destination: { ...r.destination, conversation_id: conversation } },
      );
    }
  }
  if (event !== "postToolUse") {
    await ctx.write("stdout", "{}\n").catch(() => {});
    return 0;
  }
  const texts: string[] = [];
  for (const s of stores) {
    for (const rec of await s.list(CURSOR_PARENT)) {
      if (rec.destination.conversation_id !== conversation) continue;
      // Notices first (oldest first): the child is stuck and waits for this parent.
      for (
        let notice = readyNotice(rec);
        notice;
        notice = readyNotice((await s.read(CURSOR_PARENT, rec.delivery_id))!)
      ) {
        let text = "";
        const taken = await s.handOverNotice(CURSOR_PARENT, rec.delivery_id, notice.n, "cursor_post_tool_use", (t) => {
          text = t;
          return Promise.resolve();
        }).catch(() => false);
        if (!taken) break;
        texts.push(text);
      }
      if (rec.state !== "ready") continue;
      let collected = "";
      const taken = await s.handOver(CURSOR_PARENT, rec, "cursor_post_tool_use", (t) => {
        collected = t;
        return Promise.resolve();
      }).catch(() => false);
      if (taken) texts.push(collected);
    }
  }
  const out = texts.length ? JSON.stringify({ additional_context: texts.join("\n\n") }) : "{}";
  await ctx.write("stdout", out + "\n").catch(() => {});
  return 0;
}

/**
 * `aiterm-mcp cursor-parent-receive --delivery ID`: for a Cursor parent that ended its turn. Prints
 * the body and exits 0; prints a notice and exits 5 (the child waits for an answer: start it again for
 * the answer); 6 when the hook already delivered it; 4 unknown delivery; 3 no claim within the limit
 * (the delivery becomes failed, body kept); 7 the delivery failed.
 */
export async function cursorParentReceive(
  deliveryId: string,
  ctx: HookContext,
  options: ReceiveOptions = {},
): Promise<number> {
  let store = ctx.store;
  for (const s of ctx.store.all()) {
    if (await s.read(CURSOR_PARENT, deliveryId)) {
      store = s;
      break;
    }
  }
  return await receiveDelivery(store, deliveryId, {
    kind: CURSOR_PARENT,
    name: "cursor_parent_receive",
    write: (t) => ctx.write("stdout", t),
    endsWith: (rec) => {
      if (!rec) return 4;
      if (rec.state === "submitted" || rec.state === "sending") return 6;
      if (rec.state === "failed" || rec.state === "unknown") return 7;
      return null;
    },
    handOver: { taken: 0, lost: 6, failed: 7 },
    notice: RECEIVE_NOTICE_EXIT,
    timeout: { errorCode: UNCLAIMED_CODE, exit: 3 },
  }, {
    timeoutMs: options.timeoutMs ?? UNCLAIMED_LIMIT_MS,
    pollMs: options.pollMs ?? POLL_MS,
    signal: options.signal,
  });
}

/** `cursor-parent-receive` argv: exit 0 body printed, 5 notice printed, 6 taken by the hook, 4 unknown id, 3 unclaimed timeout, 7 failed. */
export async function runCursorReceive(args: string[], ctx: HookContext): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: { delivery: { type: "string" }, timeout: { type: "string", default: "86400" } },
      strict: true,
    }).values;
  } catch (err) {
    await ctx.write("stderr", `aiterm-mcp cursor-parent-receive: ${(err as Error).message}\n${RECEIVE_USAGE}\n`);
    return 2;
  }
  const timeout = Number(values.timeout);
  if (!values.delivery || !DELIVERY_ID.test(values.delivery) || !(timeout >= 0)) {
    await ctx.write("stderr", `aiterm-mcp cursor-parent-receive: --delivery <uuid> is required\n${RECEIVE_USAGE}\n`);
    return 2;
  }
  return await cursorParentReceive(values.delivery, ctx, { timeoutMs: timeout * 1000 });
}
