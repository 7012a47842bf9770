/**
 * Claude Code's screen rules: ready/busy/blocked from the bottom of a capture, the start-up dialogs
 * aiterm may answer, the composer box and the fast-mode mark.
 */
import {
  blocked,
  findUp,
  holdsPrefix,
  isExitTrailer,
  isLaunchLine,
  isRule,
  lineAt,
  prevNonEmpty,
  screenLines,
  selectByLabel,
} from "../common/mod.ts";
import type { BlockedReason, KeyStep, ScreenState } from "../common/mod.ts";

/** The fast-mode mark (`↯`) Claude Code draws at the right end of the composer's upper rule. */
const FAST_MARK = /\s↯(?:\s+\/fast)?\s+─+\s*$/;

/**
 * Whether the ready screen shows fast mode: the live composer's upper rule carries `↯` (2.1.328 draws
 * it while fast mode is on, with a `/fast` hint at first), or not. Null without a live composer.
 */
export function claudeFastShown(screen: string): boolean | null {
  const lines = screenLines(screen);
  const top = composerTop(lines);
  if (top < 0) return null;
  return FAST_MARK.test(lineAt(lines, top));
}

const READY: ScreenState = { kind: "ready" };

/** Title-like cues of Claude's modal screens, checked per line from the bottom up. */
const TITLE_CUES: [RegExp, BlockedReason][] = [
  [/Yes, I trust this folder|Quick safety check:|Accessing workspace:/, "trust_required"],
  [/Do you want to use this API key\?|Detected a custom API key/, "api_key_approval"],
  [/Choose the text style/, "theme_picker"],
  [/Select login method:/, "vendor_onboarding_required"],
  // 2.1.328 with `permissions.defaultMode: "default"` offers auto mode at start-up: the user's own choice.
  [/Make auto mode your default permission mode\?/, "vendor_onboarding_required"],
  [/Unable to connect to Anthropic services/, "service_unreachable"],
  [
    /Esc to cancel · Tab to amend|^\s*Do you want to (?:proceed|make this edit|create|overwrite)\b/,
    "approval_required",
  ],
];
/** The trust option of the workspace-trust dialog (numbered in 2.1.197, un-numbered in 2.1.328). */
const TRUST_YES = /^\s*(?:❯\s*)?(?:\d+\.\s+)?Yes, I trust this folder\b/;
/** Footers of a generic select dialog whose title says what it is. */
const DIALOG_FOOTER = /Enter to confirm · Esc to \w+|Enter to select/;
/** Footers of the idle composer (any mode). */
const READY_FOOTER = /\? for shortcuts|Press Ctrl-C again to exit|\(shift\+tab to cycle\)|· ← for agents|· \/effort$/;

/**
 * The composer's upper border: a rule, possibly with a mark at its right end (2.1.328 draws
 * `──── ↯ ─`, first `──── ↯ /fast ─`, while fast mode is on).
 */
const COMPOSER_TOP = /^\s*─{10,}(?: [^\s─][^─]* ─{1,4})?\s*$/;

/** When the rule at `i` is the composer's lower border (`❯` right under the rule above): the upper rule's index, else -1. */
function closesComposer(lines: string[], i: number): number {
  if (!isRule(lineAt(lines, i))) return -1;
  const upper = findUp(lines, i - 1, i - 40, COMPOSER_TOP);
  return upper >= 0 && /^❯/.test(lineAt(lines, upper + 1)) ? upper : -1;
}

/** The theme picker: a numbered "Dark mode" option with a "Light mode" option near it. */
function isThemeOption(lines: string[], i: number): boolean {
  if (!/\d\.\s+(?:Dark|Light) mode\b/.test(lineAt(lines, i))) return false;
  const near = lines.slice(Math.max(0, i - 8), i + 9).join("\n");
  return /\d\.\s+Dark mode\b/.test(near) && /\d\.\s+Light mode\b/.test(near);
}

/** Classifies a Claude Code screen from its bottom up; scrollback above the current UI never decides. */
export function classifyClaudeScreen(screen: string): ScreenState {
  const lines = screenLines(screen);
  const top = lines.length - 1;
  if (top < 0) return { kind: "starting" };
  if (isExitTrailer(lineAt(lines, top))) return exitedState(lines, prevNonEmpty(lines, top - 1));
  const resume = lineAt(lines, top).trim();
  if (
    /^claude --resume \S+$/.test(resume) &&
    /Resume this session with:/.test(lineAt(lines, prevNonEmpty(lines, top - 1)))
  ) {
    return { kind: "exited", detail: resume };
  }
  let dialogFooter = false;
  for (let i = top; i >= 0 && i >= top - 80; i--) {
    const l = lineAt(lines, i);
    // An earlier run's exit text or this launch's command line: the new TUI has not drawn yet.
    if (/Resume this session with:/.test(l) || isLaunchLine(l, "claude")) break;
    if (/esc to interrupt/.test(l)) return dialogFooter ? blocked("unknown_dialog", null) : { kind: "busy" };
    const cue = TITLE_CUES.find(([re]) => re.test(l));
    if (cue) return blocked(cue[1], cueDetail(lines, i, cue[1]));
    if (isThemeOption(lines, i)) return blocked("theme_picker", l.trim());
    if (READY_FOOTER.test(l) || closesComposer(lines, i) >= 0) {
      return dialogFooter ? blocked("unknown_dialog", null) : READY;
    }
    if (DIALOG_FOOTER.test(l)) dialogFooter = true;
  }
  return dialogFooter ? blocked("unknown_dialog", null) : { kind: "starting" };
}

/** The cue line, plus the reason line under it for the connection failure. */
function cueDetail(lines: string[], i: number, reason: BlockedReason): string {
  const l = lineAt(lines, i).trim();
  if (reason !== "service_unreachable") return l;
  const next = lineAt(lines, i + 1).trim() || lineAt(lines, i + 2).trim();
  return next ? `${l} / ${next}` : l;
}

/**
 * The TUI is gone (a shell prompt or the lab's exit marker is the last line). The text printed on the
 * way out, up to the TUI's last footer, says why: a connection failure, or the resume hint.
 */
function exitedState(lines: string[], top: number): ScreenState {
  let detail: string | null = null;
  for (let i = top; i >= 0 && i >= top - 15; i--) {
    const l = lineAt(lines, i);
    if (READY_FOOTER.test(l) || isRule(l) || isLaunchLine(l, "claude")) break;
    if (/Unable to connect to Anthropic services/.test(l)) {
      return blocked("service_unreachable", cueDetail(lines, i, "service_unreachable"));
    }
    if (detail === null && /^claude --resume \S+$/.test(l.trim())) detail = l.trim();
  }
  return { kind: "exited", detail };
}

/**
 * Keys for the start-up dialogs aiterm may answer: trust (only with trustProject) and the theme picker.
 * The trust option is found by its label, never by its number or position: 2.1.197 lists
 * `❯ 1. Yes, I trust this folder` first, 2.1.328 lists an un-numbered `❯ No, exit` first (where Enter
 * alone exits). The answer moves the selection onto "Yes, I trust this folder" and returns; the gate
 * looks again and presses Enter only when the screen shows the marker on it.
 */
export function answerClaudeStartupDialog(screen: string, trustProject: boolean): KeyStep[] | null {
  const state = classifyClaudeScreen(screen);
  if (state.kind !== "blocked") return null;
  if (state.reason === "theme_picker") return [{ key: "Enter" }];
  if (state.reason !== "trust_required" || !trustProject) return null;
  const lines = screenLines(screen);
  const yes = findUp(lines, lines.length - 1, 0, TRUST_YES);
  if (yes < 0) return null;
  return selectByLabel(lines, yes - 6, yes + 6, "❯", TRUST_YES);
}

/** The text in the last composer box (between the two rules), or null when no composer is visible. */
export function claudeComposerText(screen: string): string | null {
  const lines = screenLines(screen);
  // Only the lowest rule can be the live composer's lower border (anything above it is history).
  const lower = findUp(lines, lines.length - 1, lines.length - 80, /^\s*─{10,}\s*$/);
  const upper = lower < 0 ? -1 : closesComposer(lines, lower);
  if (upper < 0) return null;
  return lines.slice(upper + 1, lower).map((l, k) => (k === 0 ? l.replace(/^❯\s?/, "") : l)).join("\n");
}

/** True when the last composer box still shows (a prefix of) `text`. */
export function claudeComposerHolds(screen: string, text: string): boolean {
  const shown = claudeComposerText(screen);
  return shown !== null && holdsPrefix(shown, text);
}

/** Index of the live composer's upper rule, or -1. */
export function composerTop(lines: string[]): number {
  const lower = findUp(lines, lines.length - 1, lines.length - 80, /^\s*─{10,}\s*$/);
  return lower < 0 ? -1 : closesComposer(lines, lower);
}
