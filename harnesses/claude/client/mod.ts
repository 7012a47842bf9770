/**
 * Claude Code as an AI client of aiterm: what code outside harnesses/claude/client/ may use (its registration
 * and, for the clients that can be a delivery parent, its parent integration and hooks). Kept apart from
 * the child adapter (harnesses/claude/mod.ts) so aiterm-wait, which needs only the adapter, loads none of it.
 */
export { claudeParent, type ClaudeParentOptions } from "./parent.ts";
export { claudeClient } from "./register.ts";
export {
  CLAUDE_HOOK_MATCHER,
  CLAUDE_HOOK_NAMES,
  CLAUDE_HOOK_SPECS,
  CLAUDE_POST_MATCHER,
  removeClaudeParentHooks,
} from "./hook_edit.ts";
export {
  checkClaudeHookVersion,
  CLAUDE_MIN_HOOK_VERSION,
  claudeParentHookStatus,
  claudeSettingsPath,
  installClaudeParentHooks,
  parseClaudeVersion,
  uninstallClaudeParentHooks,
} from "./hook_files.ts";
export { CLAUDE_CLIENT_NAME, claudeCallCut } from "./call_limits.ts";
