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
  // MEASURE_CODEX
  submitSteps: [...ENTER_WHEN_SHOWN],
  composerHolds: codexComposerHolds,
  modelCatalog: readCodexModelCatalog,
  fastShown: codexFastShown,
  parseApproval: parseCodexApproval,
  composerText: codexComposerText,
  configure: CODEX_CONFIGURE,
  transcript: { locate: (ctx) => locateCodexRollouts(ctx), parseTurns: parseCodexTurns, parser: codexTurnParser },
};
