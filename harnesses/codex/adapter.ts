/** The Codex CLI adapter: the parts of this folder assembled into one {@link HarnessAdapter}. */
import { ENTER_WHEN_SHOWN, type HarnessAdapter } from "../common/mod.ts";
import { parseCodexApproval } from "./approval.ts";
import { CODEX_CONFIGURE } from "./configure.ts";
import { buildCodexLaunch, codexBinary } from "./launch.ts";
import { readCodexModelCatalog } from "./models.ts";
import {
  answerCodexStartupDialog,
  classifyCodexScreen,
  codexComposerHolds,
  codexComposerText,
  codexFastShown,
} from "./screen.ts";
import { codexTurnParser, locateCodexRollouts, parseCodexTurns } from "./transcript.ts";

/** The Codex CLI adapter. */
export const codex: HarnessAdapter = {
  id: "codex-cli",
  provider: "codex",
  binary: codexBinary,
  efforts: null,
  readOnlyMode: true,
  buildLaunch: buildCodexLaunch,
  classifyScreen: classifyCodexScreen,
  answerStartupDialog: answerCodexStartupDialog,
  // Submit once the composer shows the paste, with no fixed pause (was 700 ms). Measured with the real
  // Codex 0.169.0 (tests/probes/submit_pause.ts, ADR 0023's amendment): 0 of 85 Enters swallowed when
  // pressed 0 ms after the composer showed the paste (65 one-line prompts, 20 of 60 lines), 0 of 85 when
  // pressed 0 ms after the paste without looking (the paste-burst newline comes from typed keys, not from
  // a bracketed paste); paste → shown median 6–7 ms, max 73 ms.
  submitSteps: [...ENTER_WHEN_SHOWN],
  composerHolds: codexComposerHolds,
  modelCatalog: readCodexModelCatalog,
  fastShown: codexFastShown,
  parseApproval: parseCodexApproval,
  composerText: codexComposerText,
  configure: CODEX_CONFIGURE,
  transcript: { locate: (ctx) => locateCodexRollouts(ctx), parseTurns: parseCodexTurns, parser: codexTurnParser },
};
