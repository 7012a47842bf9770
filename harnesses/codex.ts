/** OpenAI Codex CLI (`codex`). Facts: docs/harnesses/codex-cli.md. */
import type { HarnessAdapter } from "./types.ts";

export const codex: HarnessAdapter = {
  id: "codex-cli",
  provider: "codex",
  binary: { envOverride: "CODEX_BIN", standardPaths: [], pathNames: ["codex"] },
};
