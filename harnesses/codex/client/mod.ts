/**
 * Codex as an AI client of aiterm: what code outside harnesses/codex/client/ may use (its registration
 * and, for the clients that can be a delivery parent, its parent integration and hooks). Kept apart from
 * the child adapter (harnesses/codex/mod.ts) so aiterm-wait, which needs only the adapter, loads none of it.
 */
export { codexParent, type CodexQueueFn } from "./parent.ts";
export { AppServer, recordOf } from "./app_server.ts";
export { addToCodexQueue, CodexDeliveryError } from "./queue.ts";
export { codexClient } from "./register.ts";
export { type CodexSteerDetails, type CodexSteerState, runCodexSteer } from "./steer_setup.ts";
export { CODEX_CLIENT_NAME, codexCallCut, codexToolTimeout } from "./call_limits.ts";
