/**
 * One agent request, start to end: the pipeline that `pty_send` to an agent session and
 * `agent_launch` with a prompt both go through. Read top to bottom, it is the order of events:
 *
 *   1. the text as it will be typed (`cleanPrompt`, lib/agent/typing.ts): too large or blank refuses,
 *      nothing done (agent_launch checks its prompt the same way before any session exists);
 *   2. the parent's delivery destination (`manager.resolve`): a parent without its hooks is refused
 *      before the child is touched;
 *   3. the send, under the child's send lock (`dispatchTurn`, or `launchAgent` for the first prompt):
 *      wait (bounded, with progress) for a starting harness to accept input, steer a running turn or
 *      start a new one, call the delivery hooks just before typing, type through the one chokepoint,
 *      look for start evidence;
 *   4. the delivery started (`manager.start`), or abandoned when 3 failed;
 *   5. the receipt's completion route: `parent_delivery` (the answer comes by itself), the parent's
 *      receive process (when its integration has one), or the `aiterm-wait` process of the new turn.
 */
import { selfCommand, windowsArgumentList } from "../../../platform/mod.ts";
import { type WaitProcess, waitProcessFor } from "../wait_process.ts";
import { type DispatchOptions, type DispatchReceipt, dispatchTurn } from "../dispatch.ts";
import { launchAgent, type LaunchInput, type LaunchReceipt } from "../launch.ts";
import type { AgentDeps } from "../session.ts";
import { startupTimeoutMs } from "../startup.ts";
import { cleanPrompt } from "../typing.ts";
import type { ParentDeliveryManager } from "./manager.ts";
import type { ParentCall } from "../../../harnesses/clients/mod.ts";
import type { DeliveryReceipt } from "../../../state/mod.ts";

/** What a request's receipt says about delivery. */
export interface RequestDelivery<T> {
  value: T;
  parent_delivery: DeliveryReceipt | null;
  /** Replaces the receipt's wait_process when set (null: automatic delivery, no waiter needed). */
  wait_process?: WaitProcess | null;
}

/** Who asks, and how to reach them. */
export interface AgentRequestContext {
  deps: AgentDeps;
  /** Parent delivery (absent: every parent gets wait_process). */
  delivery?: ParentDeliveryManager | undefined;
  parent?: ParentCall | undefined;
  /** MCP progress (a no-op without a progress token): reported while a send waits for a starting harness. */
  progress?: ((progress: number, total?: number, message?: string) => Promise<void>) | undefined;
}

/** A pty_send to an agent session. */
export interface AgentSendInput {
  session_id: string;
  text: string;
  images: string[];
}

/** What {@link sendToAgent} did. */
export interface AgentSendResult extends DispatchReceipt {
  /** UTF-8 bytes of the text as typed (after sanitising). */
  bytes: number;
  removed_controls: number;
  wait_process: WaitProcess | null;
  parent_delivery: DeliveryReceipt | null;
}

/** A parent's receive process for a delivery (`aiterm-mcp <subcommand> --delivery ID`: prints the body and exits). */
export function receiveProcess(subcommand: string, deliveryId: string): WaitProcess {
  const [executable, ...prefix] = selfCommand(subcommand);
  const args = [...prefix, "--delivery", deliveryId];
  return {
    executable: executable!,
    args,
    windows_start_process_argument_list: Deno.build.os === "windows" ? windowsArgumentList(args) : null,
  };
}

/**
 * Sends text to an agent session: steps 1–5 of the module doc.
 * @throws {AppError} everything dispatchTurn throws, the delivery preflight codes, INPUT_TOO_LARGE, INVALID_ARGUMENT
 */
export async function sendToAgent(ctx: AgentRequestContext, input: AgentSendInput): Promise<AgentSendResult> {
  const prompt = cleanPrompt(input.text);
  const onWaitForInput: DispatchOptions["onWaitForInput"] = ctx.progress
    ? (ms, state) => ctx.progress!(ms, startupTimeoutMs(), `waiting for the agent to accept input (${state})`)
    : undefined;
  const d = await withParentDelivery(
    ctx.delivery,
    ctx.parent,
    (hooks) =>
      dispatchTurn(ctx.deps, input.session_id, prompt.text, {
        images: input.images,
        ...hooks,
        ...(onWaitForInput ? { onWaitForInput } : {}),
      }),
  );
  const r = d.value;
  return {
    ...r,
    bytes: prompt.bytes,
    removed_controls: prompt.removed,
    wait_process: d.wait_process !== undefined
      ? d.wait_process
      : r.event_cursor !== null
      ? waitProcessFor(r.session_id, r.event_cursor, r.generation)
      : null,
    parent_delivery: d.parent_delivery,
  };
}

/**
 * agent_launch through the same pipeline: with a prompt, the first turn's delivery is prepared and
 * started like a pty_send's; without one nothing is sent, so no delivery and no hooks are needed.
 * @throws {AppError} everything launchAgent throws, the delivery preflight codes
 */
export async function launchWithRequest(
  ctx: AgentRequestContext,
  input: LaunchInput,
): Promise<LaunchReceipt & { parent_delivery: DeliveryReceipt | null }> {
  if (!input.prompt) return { ...(await launchAgent(input, ctx.deps)), parent_delivery: null };
  const r = await withParentDelivery(ctx.delivery, ctx.parent, (hooks) => launchAgent(input, ctx.deps, hooks));
  if (r.wait_process === undefined) return { ...r.value, parent_delivery: r.parent_delivery };
  return { ...r.value, parent_delivery: r.parent_delivery, wait_process: r.wait_process, wait_command: null };
}

/**
 * Runs `send` (a dispatch or a launch) with the delivery hooks of the calling parent (steps 2 and 4).
 * Preflight errors (missing hooks) are thrown before `send` runs, so nothing reaches the child.
 */
export async function withParentDelivery<T>(
  manager: ParentDeliveryManager | undefined,
  parent: ParentCall | undefined,
  send: (hooks: Pick<DispatchOptions, "beforeNewTurn" | "beforeSteer">) => Promise<T>,
): Promise<RequestDelivery<T>> {
  if (!manager) return { value: await send({}), parent_delivery: null };
  const dest = await manager.resolve(parent);
  const req = manager.forRequest(dest);
  let value: T;
  try {
    value = await send({ beforeNewTurn: req.beforeNewTurn, beforeSteer: req.beforeSteer });
  } catch (err) {
    const made = req.created();
    if (made) await manager.abandon(made, "DISPATCH_FAILED").catch(() => {});
    throw err;
  }
  const created = req.created();
  if (created) {
    manager.start(created);
    const receiver = manager.parent(created.parent)?.receiveSubcommand;
    return {
      value,
      parent_delivery: await manager.receipt(created),
      wait_process: receiver ? receiveProcess(receiver, created.delivery_id) : null,
    };
  }
  const joined = req.joined();
  return { value, parent_delivery: joined ? await manager.receipt(joined) : null };
}
