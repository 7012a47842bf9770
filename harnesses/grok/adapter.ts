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
  // Submit once the composer shows the paste, with no fixed pause (was 700 ms). Measured with the real
  // Grok 1.0.41 (tests/probes/submit_pause.ts, ADR 0023's amendment): 0 of 85 Enters swallowed when
  // pressed 0 ms after the composer showed the paste (65 one-line prompts, 20 of 60 lines), 0 of 85 when
  // pressed 0 ms after the paste without looking; paste → shown median 4–9 ms, max 57 ms.
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
