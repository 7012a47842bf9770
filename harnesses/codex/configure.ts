/** The Codex CLI's in-place model and effort change through its `/model` picker (agent_configure). */
import {
  escapeRegExp,
  lineAt,
  pressInstead,
  screenLines,
  selectByLabel,
  SHOWN_MS,
  viewAtBottom,
} from "../common/mod.ts";
import type { ConfigureGoal, ConfigureRules, ConfigureStage, ConfigureVerdict, KeyStep } from "../common/mod.ts";
import { classifyCodexScreen, codexComposerText, liveComposer } from "./screen.ts";

/** Footers of the `/model` views: `enter select · esc back`, `enter default · s session · esc back`. */
const PICKER_FOOTER = /^\s*enter \w+(?: · s session)? · esc back\s*$/;
/** Titles of the `/model` views. */
const PICKER_TITLES: [RegExp, "model" | "effort" | "advanced"][] = [
  [/^\s*Select Model and Effort\s*$/, "model"],
  [/^\s*Select Reasoning Level\b/, "effort"],
  [/^\s*Advanced Reasoning\s*$/, "advanced"],
];
const ANY_PICKER_TITLE = new RegExp(PICKER_TITLES.map(([re]) => re.source).join("|"));
/** How the reasoning views label each effort (0.169.0); max and ultra sit behind "More reasoning…". */
export const CODEX_EFFORT_LABELS: Record<string, string> = {
  none: "None",
  minimal: "Minimal",
  low: "Low",
  medium: "Medium",
  high: "High",
  xhigh: "Extra high",
  max: "Max",
  ultra: "Ultra",
};
const ADVANCED_EFFORTS = new Set(["max", "ultra"]);
/** The line Codex prints once a model/effort is applied. */
const MODEL_CHANGED = /^• Model changed to (\S+)(?: (\S+))?( for this session only)?\s*$/;

/** The `/model` view that is the live bottom of the screen, or null. */
function codexPicker(
  screen: string,
): { view: "model" | "effort" | "advanced"; lines: string[]; top: number; foot: number } | null {
  const shown = viewAtBottom(screen, PICKER_FOOTER, ANY_PICKER_TITLE, 30);
  const view = shown && PICKER_TITLES.find(([re]) => re.test(lineAt(shown.lines, shown.top)))?.[1];
  return shown && view ? { view, ...shown } : null;
}

/** A picker row whose name column is exactly `label` (optionally marked "(default)" or "(current)"). */
function pickerRow(label: string): RegExp {
  return new RegExp(`^\\s*(?:›\\s*)?\\d+\\.\\s+${escapeRegExp(label)}(?: \\((?:default|current)\\))*(?:\\s{2,}|$)`);
}
const CURRENT_ROW = /^\s*(?:›\s*)?\d+\.\s+\S.*? \(current\)(?:\s{2,}|$)/;
const MORE_ROW = /^\s*(?:›\s*)?\d+\.\s+More reasoning\b/;

/** Keys that put the selection on the row matching `row` (scrolling the list when needed), then `press`. */
function pickRow(p: NonNullable<ReturnType<typeof codexPicker>>, row: RegExp, press: KeyStep[]): KeyStep[] | null {
  const { lines, top, foot } = p;
  const steps = selectByLabel(lines, top + 1, foot - 1, "›", row);
  if (steps) return pressInstead(steps, press);
  if (lines.slice(top + 1, foot).some((l) => row.test(l))) return null;
  // Not in view: the list scrolls when the selection moves past its edge (`↓`/`↑` mark more rows).
  const rows = lines.slice(top + 1, foot).filter((l) => /^\s*(?:›\s*)?\d+\.\s/.test(l)).length;
  const more = lines.slice(top + 1, foot).find((l) => /^\s*[↓↑]\s*$/.test(l))?.trim();
  if (!more || rows === 0) return null;
  // No pause after the moves: the stage reads the screen again after its redraw wait (lib/agent/configure.ts).
  // Measured with 0.169.0 picking row 9 (below the rows shown) and back, 21 scrolling rounds: 12 of 12
  // (tests/probes/configure_pause.ts --harness codex --scroll).
  return Array.from({ length: rows }, () => ({ key: more === "↓" ? "Down" : "Up" }));
}

/** Reads the confirmation after the picker closed: done when it matches the goal, else failed. */
function modelChanged(screen: string, goal: ConfigureGoal): ConfigureVerdict {
  if (codexPicker(screen)) return { kind: "again" };
  const lines = screenLines(screen);
  const at = lines.findLastIndex((l) => MODEL_CHANGED.test(l));
  if (at < 0 || liveComposer(lines, lines.length - 1) < 0) return { kind: "wait" };
  const m = lineAt(lines, at).match(MODEL_CHANGED)!;
  const message = lineAt(lines, at).replace(/^•\s*/, "").trim();
  if ((goal.model && m[1] !== goal.model) || (goal.effort && m[2] !== goal.effort)) {
    return { kind: "failed", message: `the picker closed with: ${message}` };
  }
  return { kind: "done", model: m[1] ?? null, effort: m[2] ?? null, persistedDefault: !m[3], message };
}

/**
 * `/model` opens "Select Model and Effort" (rows by display name, the running one marked "(current)"),
 * then "Select Reasoning Level for <name>" (max and ultra behind "More reasoning…" → "Advanced
 * Reasoning"). Every selection moves the marker and presses only once the screen shows it on the row;
 * the effort is applied with `s` ("for this session only"), never Enter, which would also save it as
 * the user's default in config.toml. An effort alone keeps the "(current)" model.
 */
function codexConfigureStages(goal: ConfigureGoal): ConfigureStage[] {
  const open: ConfigureStage = {
    name: "open_model_picker",
    // Enter once the composer shows `/model`, no fixed pause: with 0.169.0 that worked 48 of 48
    // (shown 32–38 ms after typing, median; tests/probes/configure_pause.ts --harness codex).
    keys: (screen) =>
      codexComposerText(screen) === "" && classifyCodexScreen(screen).kind === "ready"
        ? [{ text: "/model" }, { shownMs: SHOWN_MS }, { key: "Enter" }]
        : null,
    check: (screen) => (codexPicker(screen)?.view === "model" ? { kind: "next" } : { kind: "wait" }),
  };
  const model: ConfigureStage = {
    name: "pick_model",
    keys: (screen) => {
      const p = codexPicker(screen);
      if (p?.view !== "model") return null;
      return pickRow(p, goal.modelLabel ? pickerRow(goal.modelLabel) : CURRENT_ROW, [{ key: "Enter" }]);
    },
    check: (screen) => {
      const view = codexPicker(screen)?.view;
      if (view === "model") return { kind: "again" };
      if (view === "effort") return { kind: "next" };
      return modelChanged(screen, goal); // a model without reasoning levels is applied at once
    },
  };
  const effort: ConfigureStage = {
    name: "pick_effort",
    keys: (screen) => {
      const p = codexPicker(screen);
      if (!p || p.view === "model") return null;
      // Without an effort asked for, the one in use stays when this model lists it in this view;
      // otherwise the level the view has selected (the model's default) is applied.
      const rows = p.lines.slice(p.top + 1, p.foot);
      const cur = goal.currentEffort;
      const kept = cur !== null && CODEX_EFFORT_LABELS[cur] &&
        rows.some((l) =>
          pickerRow(CODEX_EFFORT_LABELS[cur]!).test(l) || (ADVANCED_EFFORTS.has(cur) && MORE_ROW.test(l))
        );
      const want = goal.effort ?? (kept ? cur : null);
      if (want === null) return [{ key: "s" }];
      const label = CODEX_EFFORT_LABELS[want];
      if (!label) return null;
      if (p.view === "effort" && ADVANCED_EFFORTS.has(want)) {
        return pickRow(p, MORE_ROW, [{ key: "Enter" }]);
      }
      return pickRow(p, pickerRow(label), [{ key: "s" }]);
    },
    check: (screen) => modelChanged(screen, goal),
  };
  return [open, model, effort];
}

/** Codex's in-place configuration through its `/model` picker. */
export const CODEX_CONFIGURE: ConfigureRules = {
  effort: "supported",
  model: true,
  stages: codexConfigureStages,
  leave: (screen) => (codexPicker(screen) ? [{ key: "Escape" }] : null),
};
