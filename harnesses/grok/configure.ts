/** Grok Build's in-place model and effort change (agent_configure: `/model <id> [effort]`, `/effort <level>`). */
import { lineAt, prevNonEmpty, screenLines } from "../common/mod.ts";
import type { ConfigureGoal, ConfigureRules, ConfigureStage, ConfigureVerdict } from "../common/mod.ts";
import { classifyGrokScreen, composerBox, ESC_ARMED_FOOTER, FOOTER, grokComposerText } from "./screen.ts";

/** A rule of the completion list drawn over the composer (the top one ends with the row count: `──…─4─`). */
const COMPLETION_RULE = /^\s*─{20,}(?:\d+─)?\s*$/;
/** Scroll marks drawn at the right edge or alone on a line (`█`, `▲`, `▼`); they are not text. */
const SCROLL_MARKS = /\s*[█▲▼]\s*$/;
/** The toast a bare `/model <id>` answers with (right-aligned above the composer; it fades after a few seconds). */
const DEFAULT_MODEL_TOAST = /^\s*✓ Default model: (.+?)\s*$/;
/** The notice `/model <id> <effort>` and `/effort <level>` append to the conversation. */
const SWITCHED_NOTICE = /^Switched to (.+?)(?: \((\S+) effort\))?$/;
/** Notices that refuse the change (1.0.41 wording, the first three seen on the real CLI, the rest from its binary). */
const REFUSED_NOTICE =
  /^(?:Unknown model: |unknown effort level |current model does not support reasoning effort|Couldn't switch model: |Couldn't apply reasoning effort: |invalid reasoning effort: )/;

/** The live composer of a Grok screen: its box, the model label on its lower border, and whether a completion list is open. */
function grokLiveComposer(
  screen: string,
): { lines: string[]; top: number; label: string | null; completion: boolean; armed: boolean } | null {
  const lines = screenLines(screen);
  const last = lines.length - 1;
  for (let i = last; i >= 0 && i >= last - 3; i--) {
    const l = lineAt(lines, i);
    const armed = ESC_ARMED_FOOTER.test(l);
    if (!armed && !FOOTER.test(l)) continue;
    const box = composerBox(lines, i);
    if (!box) return null;
    const label = lineAt(lines, box.bottom).match(/─ (\S(?:.*\S)?) ─╯\s*$/)?.[1] ?? null;
    const above = lineAt(lines, prevNonEmpty(lines, box.top - 1)).replace(SCROLL_MARKS, "");
    return { lines, top: box.top, label, completion: COMPLETION_RULE.test(above), armed };
  }
  return null;
}

/** Conversation lines above the composer, scroll marks and toasts dropped, blank lines skipped. */
function grokNotices(lines: string[], top: number): string[] {
  return lines.slice(0, top)
    .map((l) => l.replace(SCROLL_MARKS, "").trim())
    .filter((l) => l !== "" && !DEFAULT_MODEL_TOAST.test(l));
}

/** The toast's model name when the screen shows it. */
function defaultModelToast(lines: string[], top: number): string | null {
  for (let i = top - 1; i >= 0 && i >= top - 3; i--) {
    const m = lineAt(lines, i).replace(SCROLL_MARKS, "").match(DEFAULT_MODEL_TOAST);
    if (m) return m[1]!;
  }
  return null;
}

/** The effort the composer label shows for model `name` (`Mock Two (high)` → high; `Mock` → null). */
function labelEffort(label: string | null, name: string): string | null {
  if (label === null || !label.startsWith(`${name} (`) || !label.endsWith(")")) return null;
  return label.slice(name.length + 2, -1);
}

/**
 * Reads the answer to a submitted `/model` or `/effort`: the newest conversation line (only once the
 * conversation changed since `before`) confirms ("Switched to <name> (<effort> effort)") or refuses; a
 * bare `/model <id>` answers with the toast "✓ Default model: <name>" instead, trusted when it is new or
 * the composer label changed. Both write `[models] default` / `default_reasoning_effort` to config.toml
 * (measured on 1.0.41), so the result reports persistedDefault true.
 */
export function readGrokConfigureAnswer(
  screen: string,
  before: string,
  goal: { model: string | null; effort: string | null },
): ConfigureVerdict {
  const live = grokLiveComposer(screen);
  if (!live) return { kind: "wait" };
  const was = grokLiveComposer(before);
  const notices = grokNotices(live.lines, live.top);
  const changed = !was || notices.join("\n") !== grokNotices(was.lines, was.top).join("\n");
  const newest = notices[notices.length - 1] ?? "";
  if (changed && REFUSED_NOTICE.test(newest)) return { kind: "failed", message: newest };
  const switched = changed ? newest.match(SWITCHED_NOTICE) : null;
  if (switched) {
    const effort = switched[2] ?? null;
    if (goal.effort !== null && effort !== goal.effort) {
      return { kind: "failed", message: `${newest} (asked for ${goal.effort})` };
    }
    const model = goal.model !== null ? { model: goal.model } : {};
    return { kind: "done", ...model, effort, persistedDefault: true, message: newest };
  }
  const toast = goal.model !== null && goal.effort === null ? defaultModelToast(live.lines, live.top) : null;
  if (toast !== null) {
    const fresh = !was || defaultModelToast(was.lines, was.top) !== toast || was.label !== live.label;
    if (fresh && live.label !== null && (live.label === toast || live.label.startsWith(`${toast} (`))) {
      return {
        kind: "done",
        model: goal.model,
        effort: labelEffort(live.label, toast),
        persistedDefault: true,
        message: `Default model: ${toast}`,
      };
    }
  }
  return { kind: "wait" };
}

/**
 * One slash command: typed into the empty composer; a completion list it opens is closed with Escape
 * (Enter would pick the list's row instead of the typed text), then Enter submits it.
 */
function grokSlashStage(name: string, command: string, goal: { model: string | null; effort: string | null }) {
  const stage: ConfigureStage = {
    name,
    keys: (screen) => {
      const live = grokLiveComposer(screen);
      if (!live || live.armed) return null;
      const text = grokComposerText(screen);
      // No pause after any of these keys: the stage looks at the screen again (lib/agent/configure.ts)
      // and types the next key only for what it shows. Measured with 1.0.41 (tests/probes/configure_pause.ts
      // --harness grok): without the former 400/300/400 ms pauses, 31 of 31 runs were confirmed.
      if (text === "" && classifyGrokScreen(screen).kind === "ready") return [{ text: command }];
      if (text !== command) return null;
      return live.completion ? [{ key: "Escape" }] : [{ key: "Enter" }];
    },
    check: (screen, before) => {
      const live = grokLiveComposer(screen);
      if (!live) return { kind: "wait" };
      const text = grokComposerText(screen);
      if (text !== null && text !== "") return { kind: "again" };
      return readGrokConfigureAnswer(screen, before, goal);
    },
  };
  return stage;
}

function grokConfigureStages(goal: ConfigureGoal): ConfigureStage[] {
  if (goal.model !== null) {
    const command = goal.effort !== null ? `/model ${goal.model} ${goal.effort}` : `/model ${goal.model}`;
    return [grokSlashStage("model_command", command, { model: goal.model, effort: goal.effort })];
  }
  if (goal.effort !== null) {
    return [grokSlashStage("effort_command", `/effort ${goal.effort}`, { model: null, effort: goal.effort })];
  }
  return [];
}

/**
 * Grok Build's in-place configuration: `/model <id>` (with the effort as its second argument when one is
 * asked for) and `/effort <level>` for the effort alone. Backing out: Escape closes a completion list,
 * and two Escapes clear a command left in the composer.
 */
export const GROK_CONFIGURE: ConfigureRules = {
  effort: "supported",
  model: true,
  stages: grokConfigureStages,
  leave: (screen) => {
    const live = grokLiveComposer(screen);
    if (!live) return null;
    if (live.completion || live.armed) return [{ key: "Escape" }];
    const text = grokComposerText(screen) ?? "";
    return /^\/(?:model|effort)\b/.test(text) ? [{ key: "Escape" }] : null;
  },
};
