/** xAI Grok Build CLI (`grok`). Launch, screens and transcripts arrive with agent launch part 2. */
import type { BinarySpec } from "./types.ts";

export const grokBinary: BinarySpec = {
  envOverride: "GROK_BIN",
  standardPaths: ["~/.grok/bin/grok"],
  pathNames: ["grok"],
};
