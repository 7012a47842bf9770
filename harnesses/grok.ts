/** xAI Grok Build CLI (`grok`). */
import type { HarnessAdapter } from "./types.ts";

export const grok: HarnessAdapter = {
  id: "grok-cli",
  provider: "grok",
  binary: { envOverride: "GROK_BIN", standardPaths: ["~/.grok/bin/grok"], pathNames: ["grok"] },
};
