/**
 * The send room: everything that types into a pane. Sanitising and the size limit, the send lock, type-ahead,
 * where a mark may go, key names, the plan of a send (a plain function of the pane's facts) and the pipeline that
 * runs it. See docs/adr/0038-send-room-and-terminal-facade.md.
 */
export { logStaleTakeover, SendPipeline } from "./pipeline.ts";
export type { KeyResult, SendInput, SendPipelineDeps, SendResult } from "./pipeline.ts";
export { planSend } from "./plan.ts";
export type { PaneFacts, PlanOptions, PlanOutcome, SendPlan } from "./plan.ts";
export { KEY_SYNTAX, keyNames, resolveKey } from "./keys.ts";
export { sanitizeInput } from "./sanitize.ts";
export { assertInputSize, INPUT_LIMIT_BYTES } from "./size.ts";
export { readSendLock, withSendLock } from "./send_lock.ts";
export { markOffer } from "./mark_target.ts";
export { BYTE_PIPES, PROMPT_HOSTS, REPLS, SCREEN_PROGRAMS } from "./programs.ts";
