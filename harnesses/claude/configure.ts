/** Claude Code's in-place model and effort change (agent_configure: `/model <id>`, `/effort <level>`). */
import {
  escapeRegExp,
  findUp,
  lineAt,
  prevNonEmpty,
  screenLines,
  selectByLabel,
  SHOWN_MS,
  squash,
} from "../common/mod.ts";
import type { ConfigureGoal, ConfigureRules, ConfigureStage, ConfigureVerdict } from "../common/mod.ts";
import { classifyClaudeScreen, claudeComposerText, composerTop } from "./screen.ts";

/** The "Switch model?" confirmation 2.1.328 shows once the conversation has history. */
function switchModelConfirm(lines: string[]): boolean {
  const foot = prevNonEmpty(lines, lines.length - 1);
  if (foot < 0 || !/^\s*Enter to confirm · Esc to cancel\s*$/.test(lineAt(lines, foot))) return false;
  return findUp(lines, foot - 1, foot - 15, /^\s*Switch model\?\s*$/) >= 0;
}
const SWITCH_YES = /^\s*(?:❯\s*)?\d+\.\s+Yes, switch to\b/;

/** Whether the CLI said it also saved the setting as the user's default. */
function persisted(line: string): boolean | null {
  return /saved as your default/.test(line) ? true : /this session only/.test(line) ? false : null;
}

/** Indexes of the transcript lines that echo a submitted `command`. */
function echoLines(lines: string[], command: string): number[] {
  const re = new RegExp(`^❯ ${escapeRegExp(command)}\\s*$`);
  return lines.flatMap((l, i) => (re.test(l) ? [i] : []));
}

/** Answers of `/model` and `/effort` that refuse the change (2.1.328 wording, checked on the real CLI). */
const REFUSED =
  /^(?:Unknown option\b|Invalid\b|Kept model as\b|Error\b)|exceeds the cap|not (?:available|supported|allowed)/i;

/**
 * A slash command typed into the empty composer and submitted. Its answer is a `⎿` line under the
 * command's echo in the transcript (read only once the composer no longer holds the command): `read`
 * says whether it confirms or refuses; anything else there is not an answer yet.
 */
function slashStage(name: string, command: string, read: (answer: string) => ConfigureVerdict | null): ConfigureStage {
  return {
    name,
    keys: (screen) => {
      const lines = screenLines(screen);
      if (switchModelConfirm(lines)) {
        const yes = findUp(lines, lines.length - 1, lines.length - 15, SWITCH_YES);
        return yes < 0 ? null : selectByLabel(lines, yes - 4, yes + 4, "❯", SWITCH_YES);
      }
      // Enter once the composer shows the command, no fixed pause: with 2.1.328 that worked 20 of 20
      // (the command shown 25–46 ms after typing, median; tests/probes/configure_pause.ts --harness claude).
      return classifyClaudeScreen(screen).kind === "ready" && claudeComposerText(screen) === ""
        ? [{ text: command }, { shownMs: SHOWN_MS }, { key: "Enter" }]
        : null;
    },
    check: (screen, before) => {
      const lines = screenLines(screen);
      if (switchModelConfirm(lines)) return { kind: "again" };
      const top = composerTop(lines);
      if (top < 0 || squash(claudeComposerText(screen) ?? "") === command) return { kind: "wait" };
      // The composer empties before the echo is drawn: only a new echo (one more than before) is ours.
      const echoes = echoLines(lines.slice(0, top), command);
      const earlier = screenLines(before);
      if (echoes.length <= echoLines(earlier.slice(0, Math.max(0, composerTop(earlier))), command).length) {
        return { kind: "wait" };
      }
      const echo = echoes[echoes.length - 1]!;
      for (let i = echo + 1; i < top; i++) {
        const m = lineAt(lines, i).match(/^\s*⎿\s+(.+)$/);
        // Other lines (a "Tip: …" shown while the command runs) are not its answer.
        const verdict = m ? read(m[1]!.trim()) : null;
        if (verdict) return verdict;
      }
      return { kind: "wait" };
    },
  };
}

/** Reads `/model`'s answer: confirmed, refused, or (a tip shown meanwhile) not an answer. */
function modelAnswer(goal: ConfigureGoal, answer: string): ConfigureVerdict | null {
  if (/^Set model to /.test(answer)) {
    return { kind: "done", model: goal.model, persistedDefault: persisted(answer), message: answer };
  }
  return REFUSED.test(answer) ? { kind: "failed", message: answer } : null;
}

/** Reads `/effort`'s answer; a different level than asked ("set to 'high' instead") is a refusal. */
function effortAnswer(effort: string, answer: string): ConfigureVerdict | null {
  if (answer === `Set effort level to ${effort}` || answer.startsWith(`Set effort level to ${effort} `)) {
    return { kind: "done", effort, persistedDefault: persisted(answer), message: answer };
  }
  return REFUSED.test(answer) || /^Set effort level to /.test(answer) ? { kind: "failed", message: answer } : null;
}

function claudeConfigureStages(goal: ConfigureGoal): ConfigureStage[] {
  const stages: ConfigureStage[] = [];
  if (goal.model) stages.push(slashStage("model_command", `/model ${goal.model}`, (a) => modelAnswer(goal, a)));
  const effort = goal.effort;
  if (effort) stages.push(slashStage("effort_command", `/effort ${effort}`, (a) => effortAnswer(effort, a)));
  return stages;
}

/**
 * Claude Code's in-place configuration: `/model <id>` (confirming 2.1.328's "Switch model?" with "Yes,
 * switch to …" when the conversation has history) and `/effort <level>`. Both also save the choice as
 * the user's default for new sessions, and the CLI says so; the result reports it.
 */
export const CLAUDE_CONFIGURE: ConfigureRules = {
  effort: "supported",
  model: true,
  stages: claudeConfigureStages,
  leave: (screen) => (switchModelConfirm(screenLines(screen)) ? [{ key: "Escape" }] : null),
};
