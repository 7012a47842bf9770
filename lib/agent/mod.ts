/** The agent layer's way in. */
export { fetchCatalog, launchAgent } from "./launch.ts";
export type { AgentDeps, LaunchInput, LaunchReceipt } from "./launch.ts";
export { agentOf, dispatchTurn } from "./dispatch.ts";
export type { DispatchReceipt } from "./dispatch.ts";
export { readAnswer } from "./answer.ts";
export type { AgentAnswer } from "./answer.ts";
export { waitForTurn } from "./waiter.ts";
export type { WaitOutcome } from "./waiter.ts";
export { waitProcessFor } from "./wait_process.ts";
export type { WaitProcess } from "./wait_process.ts";
export { readAgentRecord } from "./record.ts";
export { observeAgent } from "./observe.ts";
export type { AgentObservation } from "./observe.ts";
export { approvalDigest, runApproval } from "./approval.ts";
export type { ApprovalInput, ApprovalResult } from "./approval.ts";
export { configureAgent } from "./configure.ts";
export type { ConfigureInput, ConfigureReceipt } from "./configure.ts";
