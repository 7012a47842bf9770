/** The Cursor CLI's in-place model and effort change (agent_configure: `/model <filter>`). */
import { escapeRegExp, pressInstead, selectByLabel, viewAtBottom } from "../common/mod.ts";
import type { ConfigureGoal, ConfigureRules, ConfigureStage } from "../common/mod.ts";
import { classifyCursorScreen, CSI_U_ENTER, cursorComposerText, cursorFooterModel } from "./screen.ts";

// Docs only (the CLI could not be installed): `/model [filter]` opens the model picker pre-filtered.
// The picker's layout, its `›` marker, the effort variants listed as `<id>[effort=<e>]` rows (as in
// `--list-models`) and the model shown first in the footer are this adapter's assumptions, drawn the
// same way by the fake `cursor-agent`; on a CLI that differs the flow fails closed (the row is not
// found, the picker is left with Escape, nothing changes).

/** The picker's footer. */
const PICKER_FOOTER = /^\s*↑\/↓ choose · enter select\b/;
const PICKER_TITLE = /^\s*Select model\s*$/;

/** The model picker that is the live bottom of the screen, or null. */
function cursorPicker(screen: string): { lines: string[]; top: number; foot: number } | null {
  return viewAtBottom(screen, PICKER_FOOTER, PICKER_TITLE, 40);
}

function cursorConfigureStages(goal: ConfigureGoal): ConfigureStage[] {
  if (!goal.model) return [];
  const target = goal.effort ? `${goal.model}[effort=${goal.effort}]` : goal.model;
  const row = new RegExp(`^\\s*(?:›\\s*)?${escapeRegExp(target)}(?:\\s{2,}|$)`);
  const open: ConfigureStage = {
    name: "open_model_picker",
    // The 300 ms before Enter was not measured (no Cursor CLI can be installed where this was written); it
    // is the value the adapter was first written with. Claude Code's, Codex's and Grok's equivalents were
    // measured unneeded once the composer shows the command (tests/probes/configure_pause.ts), so a
    // `shownMs` step can likely replace it once a real Cursor CLI can be probed.
    keys: (screen) =>
      classifyCursorScreen(screen).kind === "ready" && cursorComposerText(screen) === ""
        ? [{ text: `/model ${target}` }, { pauseMs: 300 }, { text: CSI_U_ENTER }]
        : null,
    check: (screen) => (cursorPicker(screen) ? { kind: "next" } : { kind: "wait" }),
  };
  const pick: ConfigureStage = {
    name: "pick_model",
    keys: (screen) => {
      const p = cursorPicker(screen);
      const steps = p ? selectByLabel(p.lines, p.top + 1, p.foot - 1, "›", row) : null;
      return steps ? pressInstead(steps, [{ text: CSI_U_ENTER }]) : null;
    },
    check: (screen) => {
      if (cursorPicker(screen)) return { kind: "again" };
      const shown = cursorFooterModel(screen);
      if (shown === null) return { kind: "wait" };
      const message = `the footer shows ${shown}`;
      return shown === target
        ? { kind: "done", model: goal.model, effort: goal.effort, persistedDefault: null, message }
        : { kind: "failed", message };
    },
  };
  return [open, pick];
}

/** Cursor's in-place configuration: an effort only together with its model (`<id>[effort=<e>]`). */
export const CURSOR_CONFIGURE: ConfigureRules = {
  effort: "requires_model",
  model: true,
  stages: cursorConfigureStages,
  leave: (screen) => (cursorPicker(screen) ? [{ key: "Escape" }] : null),
};
