/** The terminal layer's way in. */
export { Terminal } from "./terminal.ts";
export { buildTerminal } from "./build.ts";
export type { BuildTerminalOptions } from "./build.ts";
export type { TerminalDeps } from "./terminal.ts";
export type { OpenInput, OpenResult, SessionRow } from "./sessions.ts";
export type { KeyResult, SendInput, SendResult } from "./send/mod.ts";
export { assertInputSize, INPUT_LIMIT_BYTES, KEY_SYNTAX, keyNames, resolveKey, sanitizeInput } from "./send/mod.ts";
export { SESSION_ID_PATTERN } from "./files/session_meta.ts";
export { MAX_TIMEOUT_S } from "./read.ts";
export { formatRead } from "./read_format.ts";
export { MAX_PAGE_TEXT_BYTES } from "./read_page.ts";
export type { ReadInput, ReadOptions, ReadResult } from "./read.ts";
export { MAX_UNTIL_CHARS } from "./linear_regex.ts";
export type { ObserveResult } from "./observe.ts";
