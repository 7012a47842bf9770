/** The Cursor CLI adapter: the parts of this folder assembled into one {@link HarnessAdapter}. */
import type { HarnessAdapter } from "../common/mod.ts";
import { CURSOR_CONFIGURE } from "./configure.ts";
import { buildCursorLaunch, cursorBinary } from "./launch.ts";
import { readCursorModelCatalog } from "./models.ts";
import {
  answerCursorStartupDialog,
  classifyCursorScreen,
  CSI_U_ENTER,
  CURSOR_SUBMIT_STEPS,
  cursorComposerHolds,
  cursorComposerText,
  cursorSteerPlace,
} from "./screen.ts";
import { cursorTurnParser, locateCursorTranscripts, parseCursorTurns } from "./transcript.ts";

/** The Cursor CLI adapter. */
export const cursor: HarnessAdapter = {
  id: "cursor-cli",
  provider: "cursor",
  binary: cursorBinary,
  efforts: null,
  readOnlyMode: true,
  effortRequiresModel: true,
  buildLaunch: buildCursorLaunch,
  classifyScreen: classifyCursorScreen,
  answerStartupDialog: answerCursorStartupDialog,
  submitSteps: CURSOR_SUBMIT_STEPS,
  // Steering: text still waiting first in the follow-ups area after submit gets one more "enter steer".
  steerSteps: [{ text: CSI_U_ENTER }],
  steerPlace: cursorSteerPlace,
  composerHolds: cursorComposerHolds,
  modelCatalog: readCursorModelCatalog,
  composerText: cursorComposerText,
  configure: CURSOR_CONFIGURE,
  transcript: { locate: (ctx) => locateCursorTranscripts(ctx), parseTurns: parseCursorTurns, parser: cursorTurnParser },
};
