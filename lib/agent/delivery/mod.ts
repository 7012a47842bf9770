/** Parent delivery: the child's answer reaches the parent that dispatched the request by itself. */
export {
  type ChildAccess,
  claudeIndexPath,
  claudePrePath,
  type CodexQueueFn,
  type DeliveryDeps,
  envelope,
  type HookStatus,
  type ParentContext,
  ParentDeliveryManager,
  type ResolvedDestination,
  type TurnEnd,
  UNCLAIMED_LIMIT_MS,
} from "./manager.ts";
export {
  claudePostToolUse,
  claudePreToolUse,
  claudeSessionEnd,
  cursorParentHook,
  cursorParentReceive,
  deliveryIdsIn,
  type WriteFn,
} from "./receivers.ts";
export {
  type ChildBoundary,
  type DeliveryReceipt,
  type DeliveryRecord,
  type DeliveryState,
  DeliveryStore,
  type ParentKind,
  receiptOf,
} from "./store.ts";
export {
  type AgentRequestContext,
  type AgentSendInput,
  type AgentSendResult,
  cursorReceiveProcess,
  launchWithRequest,
  type RequestDelivery,
  sendToAgent,
  withParentDelivery,
} from "./request.ts";
export { HOOK_NAMES, RECEIVE_USAGE, runCursorReceive, runHook } from "./cli.ts";
export { pendingDeliveries, type PendingDelivery } from "./pending.ts";
export {
  type Guidance,
  type GuidedReceipt,
  receiptGuidance,
  type ReceiptWarning,
  serverInstructions,
} from "./guidance.ts";
