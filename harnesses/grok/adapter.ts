/** The Grok Build adapter: the parts of this folder assembled into one {@link HarnessAdapter}. */
import { ENTER_WHEN_SHOWN, type HarnessAdapter } from "../common/mod.ts";
import { GROK_CONFIGURE } from "./configure.ts";
import { dismissGrokRateLimitDialog, grokSandboxRefusal } from "./dialogs.ts";
import { buildGrokLaunch, GROK_EFFORTS, grokBinary } from "./launch.ts";
import { readGrokModelCatalog } from "./models.ts";
import { grokSteerPlace } from "./queue.ts";
import { answerGrokStartupDialog, classifyGrokScreen, grokComposerHolds, grokComposerText } from "./screen.ts";
import { locateGrokTranscript } from "./session.ts";
import { grokTurnParser, parseGrokTurns } from "./transcript.ts";

/** The Grok Build adapter. */
export const grok: HarnessAdapter = {
  id: "grok-cli",
  provider: "grok",
  binary: grokBinary,
  efforts: GROK_EFFORTS,
  readOnlyMode: true,
  buildLaunch: buildGrokLaunch,
  classifyScreen: classifyGrokScreen,
  answerStartupDialog: answerGrokStartupDialog,
  // MEASURE_GROK
  submitSteps: [...ENTER_WHEN_SHOWN],
  // While a turn runs, Enter queues the text; on an empty composer Enter is then "send now" (footer
  // `Enter:send now`), which cancels the running prompt (trigger send_now) and runs the queued one next.
  steerSteps: [{ key: "Enter" }],
  steerPlace: grokSteerPlace,
  rateLimitCard: {
    dismiss: dismissGrokRateLimitDialog,
    recovery: "grok_rate_limit_dialog_dismissed",
    blockedCode: "GROK_RATE_LIMIT_RECOVERY_BLOCKED",
    failedCode: "GROK_RATE_LIMIT_RECOVERY_FAILED",
  },
  sandboxRefusal: { code: "GROK_SANDBOX_STARTUP_FAILED", cause: grokSandboxRefusal },
  composerHolds: grokComposerHolds,
  modelCatalog: readGrokModelCatalog,
  composerText: grokComposerText,
  configure: GROK_CONFIGURE,
  transcript: { locate: locateGrokTranscript, parseTurns: parseGrokTurns, parser: grokTurnParser },
};
