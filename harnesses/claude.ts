/** Claude Code (`claude`). Facts: docs/harnesses/claude-code.md. */
import type { HarnessAdapter } from "./types.ts";

export const claude: HarnessAdapter = {
  id: "claude-code",
  provider: "claude",
  binary: {
    envOverride: "CLAUDE_BIN",
    standardPaths: ["~/.claude/local/claude", "~/.local/bin/claude"],
    pathNames: ["claude"],
  },
};
