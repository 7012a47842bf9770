/** Claude Code's binary lookup and launch command line. */
import { applyWriteScope } from "../common/mod.ts";
import type { BinarySpec, LaunchOptions, LaunchSpec } from "../common/mod.ts";

export const claudeBinary: BinarySpec = {
  envOverride: "CLAUDE_BIN",
  standardPaths: ["~/.claude/local/claude", "~/.local/bin/claude"],
  pathNames: ["claude"],
};

/** `--effort` values accepted by Claude Code 2.1.197 (`claude --help`). */
export const CLAUDE_EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;

/**
 * Builds the interactive launch: pinned session id, model, effort, plan mode for read-only, the
 * sub-agent notice appended to the system prompt (`--append-system-prompt`), and fast mode for this
 * session only (`--settings '{"fastMode":…}'`: the `/fast` command would also save it as the user's
 * default for every later session; checked on 2.1.328, docs/harnesses/claude-code.md).
 */
export function buildClaudeLaunch(o: LaunchOptions): LaunchSpec {
  const argv = [o.bin, "--session-id", o.sessionUuid];
  if (o.model) argv.push("--model", o.model);
  if (o.reasoningEffort) argv.push("--effort", o.reasoningEffort);
  if (o.notice) argv.push("--append-system-prompt", o.notice);
  if (o.fast !== null) argv.push("--settings", JSON.stringify({ fastMode: o.fast }));
  const writeScopeEnforcement = applyWriteScope(argv, o.writeScope, ["--permission-mode", "plan"]);
  // No image flag exists for the TUI: images are referenced by path in the prompt.
  return {
    argv,
    env: {},
    writeScopeEnforcement,
    pinnedSessionId: o.sessionUuid,
    noticeChannel: o.notice ? "append_system_prompt" : null,
    fastBy: o.fast === true ? "launch_option" : null,
  };
}
