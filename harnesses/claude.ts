/** Claude Code (`claude`). Facts: docs/harnesses/claude-code.md. (Adapter logic: agent launch part 1.) */
import type { BinarySpec } from "./types.ts";

export const claudeBinary: BinarySpec = {
  envOverride: "CLAUDE_BIN",
  standardPaths: ["~/.claude/local/claude", "~/.local/bin/claude"],
  pathNames: ["claude"],
};
