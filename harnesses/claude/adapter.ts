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
  // Submit once the composer shows the paste, with no fixed pause (was 400 ms). Measured with the real
  // Claude Code 2.1.328 (tests/probes/submit_pause.ts, ADR 0023's amendment): 0 of 85 Enters swallowed when
  // pressed 0 ms after the composer showed the paste (65 one-line prompts, 20 of 60 lines), 0 of 85 when
  // pressed 0 ms after the paste without looking; paste → shown median 22–38 ms, max 182 ms.
  submitSteps: [...ENTER_WHEN_SHOWN],
  composerHolds: claudeComposerHolds,
  modelCatalog: readClaudeModelCatalog,
  fastShown: claudeFastShown,
  parseApproval: parseClaudeApproval,
  composerText: claudeComposerText,
  configure: CLAUDE_CONFIGURE,
  transcript: { locate: locateClaudeTranscripts, parseTurns: parseClaudeTurns, parser: claudeTurnParser },
};
