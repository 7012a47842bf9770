/** One request to a child with parent delivery around it: resolve, dispatch with the hooks, start observing. */
import { selfCommand, windowsArgumentList } from "../../self_command.ts";
import type { WaitProcess } from "../wait_process.ts";
import type { DispatchOptions } from "../dispatch.ts";
import type { ParentContext, ParentDeliveryManager } from "./manager.ts";
import type { DeliveryReceipt } from "./store.ts";

/** What a request's receipt says about delivery. */
export interface RequestDelivery<T> {
  value: T;
  parent_delivery: DeliveryReceipt | null;
  /** Replaces the receipt's wait_process when set (null: automatic delivery, no waiter needed). */
  wait_process?: WaitProcess | null;
}

/** Cursor's receive process for a delivery (prints the body and exits). */
export function cursorReceiveProcess(deliveryId: string): WaitProcess {
  const [executable, ...prefix] = selfCommand("cursor-parent-receive");
  const args = [...prefix, "--delivery", deliveryId];
  return {
    executable: executable!,
    args,
    windows_start_process_argument_list: Deno.build.os === "windows" ? windowsArgumentList(args) : null,
  };
}

/**
 * Runs `send` (a dispatch or a launch) with the delivery hooks of the calling parent. Preflight
 * errors (missing hooks) are thrown before `send` runs, so nothing reaches the child.
 */
export async function withParentDelivery<T>(
  manager: ParentDeliveryManager | undefined,
  parent: ParentContext | undefined,
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
    return {
      value,
      parent_delivery: await manager.receipt(created),
      wait_process: created.parent === "cursor" ? cursorReceiveProcess(created.delivery_id) : null,
    };
  }
  const joined = req.joined();
  return { value, parent_delivery: joined ? await manager.receipt(joined) : null };
}
