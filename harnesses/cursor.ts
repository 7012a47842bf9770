/** Cursor CLI (`cursor-agent`). */
import type { HarnessAdapter } from "./types.ts";

export const cursor: HarnessAdapter = {
  id: "cursor-cli",
  provider: "cursor",
  binary: {
    envOverride: "CURSOR_AGENT_BIN",
    standardPaths: ["~/.local/bin/cursor-agent"],
    pathNames: ["cursor-agent"],
  },
};
