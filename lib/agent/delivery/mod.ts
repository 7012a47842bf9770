/** Parent delivery: the child's answer reaches the parent that dispatched the request by itself. */
export {
  type ChildAccess,
  type DeliveryDeps,
  type KindReadiness,
  ParentDeliveryManager,
  type Readiness,
  type TurnEnd,
} from "./manager.ts";
export {
  type AgentRequestContext,
  type AgentSendInput,
  type AgentSendResult,
  launchWithRequest,
  receiveProcess,
  type RequestDelivery,
  sendToAgent,
  withParentDelivery,
} from "./request.ts";
export { hookContext, hookNames, runHook } from "./cli.ts";
export {
  type Guidance,
  type GuidedReceipt,
  receiptGuidance,
  type ReceiptWarning,
  serverInstructions,
} from "./guidance.ts";
