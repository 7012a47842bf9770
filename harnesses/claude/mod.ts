/**
 * Claude Code (`claude`): what code outside harnesses/claude/ may use. Facts, with where each was
 * verified: docs/harnesses/claude-code.md.
 */
export { claude } from "./adapter.ts";
export { claudeBinary } from "./launch.ts";
export { claudeParent, type ClaudeParentOptions } from "./parent.ts";
export { claudeClient } from "./register.ts";
export { CLAUDE_HOOK_MATCHER, CLAUDE_HOOK_NAMES, CLAUDE_HOOK_SPECS, removeClaudeParentHooks } from "./hook_edit.ts";
export {
  checkClaudeHookVersion,
  CLAUDE_MIN_HOOK_VERSION,
  claudeParentHookStatus,
  claudeSettingsPath,
  installClaudeParentHooks,
  parseClaudeVersion,
  uninstallClaudeParentHooks,
} from "./hook_files.ts";
