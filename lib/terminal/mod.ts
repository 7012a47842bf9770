/** The terminal layer's way in. */
export { NotShellSession, Terminal } from "./terminal.ts";
export { buildTerminal } from "./build.ts";
export type { BuildTerminalOptions } from "./build.ts";
export type { KeyResult, OpenInput, OpenResult, SendInput, SendResult, SessionRow, TerminalDeps } from "./terminal.ts";
export { KEY_SYNTAX, keyNames, resolveKey } from "./keys.ts";
export { sanitizeInput } from "./sanitize.ts";
export { assertInputSize, INPUT_LIMIT_BYTES } from "./chunks.ts";
export { SESSION_ID_PATTERN } from "./session_meta.ts";
export { formatRead, MAX_TIMEOUT_S, readSession } from "./read.ts";
export { MAX_PAGE_TEXT_BYTES } from "./read_page.ts";
export type { ReadInput, ReadOptions, ReadResult } from "./read.ts";
export { MAX_UNTIL_CHARS } from "./linear_regex.ts";
export { observeSession } from "./observe.ts";
export type { ObserveResult } from "./observe.ts";
