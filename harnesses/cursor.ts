/** Cursor CLI (`cursor-agent`). Launch, screens and transcripts arrive with agent launch part 2. */
import type { BinarySpec } from "./types.ts";

export const cursorBinary: BinarySpec = {
  envOverride: "CURSOR_AGENT_BIN",
  standardPaths: ["~/.local/bin/cursor-agent"],
  pathNames: ["cursor-agent"],
};
