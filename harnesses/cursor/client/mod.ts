/**
 * Cursor as an AI client of aiterm: what code outside harnesses/cursor/client/ may use (its registration
 * and, for the clients that can be a delivery parent, its parent integration and hooks). Kept apart from
 * the child adapter (harnesses/cursor/mod.ts) so aiterm-wait, which needs only the adapter, loads none of it.
 */
export { cursorParent, type CursorParentOptions } from "./parent.ts";
export { RECEIVE_USAGE, runCursorReceive } from "./parent_hooks.ts";
export { cursorClient } from "./register.ts";
export { CURSOR_HOOK_EVENTS, CURSOR_HOOK_NAME, removeCursorParentHooks } from "./hook_edit.ts";
export {
  cursorHooksPath,
  cursorParentHookStatus,
  installCursorParentHooks,
  uninstallCursorParentHooks,
} from "./hook_files.ts";
