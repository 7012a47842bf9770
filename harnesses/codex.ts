/** OpenAI Codex CLI (`codex`). Facts: docs/harnesses/codex-cli.md. (Adapter logic: agent launch part 1.) */
import type { BinarySpec } from "./types.ts";

export const codexBinary: BinarySpec = { envOverride: "CODEX_BIN", standardPaths: [], pathNames: ["codex"] };
