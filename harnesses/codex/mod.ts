/**
 * OpenAI Codex CLI (`codex`): what code outside harnesses/codex/ may use. Facts, with where each was
 * verified: docs/harnesses/codex-cli.md.
 */
export { codex } from "./adapter.ts";
export { codexBinary } from "./launch.ts";
export { codexParent, type CodexParentOptions, type CodexQueueFn } from "./parent.ts";
export { AppServer, type AppServerFailure, recordOf } from "./app_server.ts";
export { addToCodexQueue, CodexDeliveryError, type CodexQueueTarget } from "./queue.ts";
export {
  CODEX_STEER_HOOK_NAMES,
  codexHomeOf,
  codexHookStateDir,
  type CodexSteerSelection,
  readSelection,
  writeSelection,
} from "./steer_state.ts";
export { codexClient } from "./register.ts";
export {
  type CodexSteerDetails,
  type CodexSteerOptions,
  type CodexSteerResult,
  type CodexSteerState,
  runCodexSteer,
} from "./steer_setup.ts";
