/** The Claude Code adapter: the parts of this folder assembled into one {@link HarnessAdapter}. */
import { ENTER_WHEN_SHOWN, type HarnessAdapter } from "../common/mod.ts";
import { parseClaudeApproval } from "./approval.ts";
import { CLAUDE_CONFIGURE } from "./configure.ts";
import { buildClaudeLaunch, CLAUDE_EFFORTS, claudeBinary } from "./launch.ts";
import { readClaudeModelCatalog } from "./models.ts";
import {
  answerClaudeStartupDialog,
  classifyClaudeScreen,
  claudeComposerHolds,
  claudeComposerText,
  claudeFastShown,
} from "./screen.ts";
import { claudeTurnParser, locateClaudeTranscripts, parseClaudeTurns } from "./transcript.ts";

/** The Claude Code adapter. */
export const claude: HarnessAdapter = {
  id: "claude-code",
  provider: "claude",
  binary: claudeBinary,
  efforts: CLAUDE_EFFORTS,
  readOnlyMode: true,
  launchReplay: true,
  buildLaunch: buildClaudeLaunch,
  classifyScreen: classifyClaudeScreen,
  answerStartupDialog: answerClaudeStartupDialog,
  // MEASURE_CLAUDE
  submitSteps: [...ENTER_WHEN_SHOWN],
  composerHolds: claudeComposerHolds,
  modelCatalog: readClaudeModelCatalog,
  fastShown: claudeFastShown,
  parseApproval: parseClaudeApproval,
  composerText: claudeComposerText,
  configure: CLAUDE_CONFIGURE,
  transcript: { locate: locateClaudeTranscripts, parseTurns: parseClaudeTurns, parser: claudeTurnParser },
};
