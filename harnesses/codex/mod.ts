/**
 * OpenAI Codex CLI (`codex`): what code outside harnesses/codex/ may use. Facts, with where each was
 * verified: docs/harnesses/codex-cli.md.
 */
export { codex } from "./adapter.ts";
export { codexBinary } from "./launch.ts";
export { codexParent, type CodexQueueFn } from "./parent.ts";
export { AppServer, recordOf } from "./app_server.ts";
export { addToCodexQueue, CodexDeliveryError } from "./queue.ts";
export { codexClient } from "./register.ts";
export { type CodexSteerDetails, type CodexSteerState, runCodexSteer } from "./steer_setup.ts";
