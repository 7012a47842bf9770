/**
 * The Cursor CLI's screen rules: ready/busy/blocked from the bottom of a capture, the workspace-trust
 * answer, the composer and its follow-ups area, the footer's model, and the submit keys.
 */
import { blocked, holdsPrefix, isExitTrailer, isLaunchLine, lineAt, prevNonEmpty, screenLines } from "../common/mod.ts";
import type { BlockedReason, KeyStep, ScreenState } from "../common/mod.ts";

/** Enter as the extended keyboard protocol (CSI u) encodes it: `ESC [ 13 u`. The CLI submits on it. */
export const CSI_U_ENTER = "\x1b[13u";

/** Modal screens, matched per line from the bottom up. */
const TITLE_CUES: [RegExp, BlockedReason][] = [
  [/Workspace Trust Required/, "trust_required"],
  [/\b(?:cursor-)?agent login\b|Not logged in|Press any key to (?:log|sign) in/i, "login_required"],
  [/Run this command\?|Allow this (?:command|tool)\?|\(y\) \(enter\)|Approve MCP server/i, "approval_required"],
  [/usage limit|rate limit/i, "rate_limited"],
];
/** The composer: the `→` glyph (U+2192) at the start of a line, after optional indent. */
const COMPOSER = /^\s{0,2}→(?: |$)/;
/** The in-progress status line. */
const BUSY = /ctrl\+c to stop/i;
/** Placeholders the composer shows when it is empty (idle and while a turn runs). */
const PLACEHOLDERS = [/^Plan, search, build anything$/, /^Add a follow-up$/];
/** A footer or hint line under the composer (it always has ` · ` separators). */
const FOOTER = / · /;

/** Index of the live composer line (the lowest `→` line within the last 40 lines), or -1. */
export function composerLine(lines: string[], top: number): number {
  for (let i = top; i >= 0 && i >= top - 40; i--) if (COMPOSER.test(lineAt(lines, i))) return i;
  return -1;
}

/** Classifies a Cursor CLI screen from its bottom up. */
export function classifyCursorScreen(screen: string): ScreenState {
  const lines = screenLines(screen);
  let top = lines.length - 1;
  if (top < 0) return { kind: "starting" };
  if (isExitTrailer(lineAt(lines, top))) {
    top = prevNonEmpty(lines, top - 1);
    return { kind: "exited", detail: top >= 0 ? lineAt(lines, top).trim() || null : null };
  }
  const composer = composerLine(lines, top);
  for (let i = top; i >= 0 && i >= top - 40 && i > composer; i--) {
    const l = lineAt(lines, i);
    if (isLaunchLine(l, "cursor-agent") || isLaunchLine(l, "agent")) break;
    const cue = TITLE_CUES.find(([re]) => re.test(l));
    if (cue) return blocked(cue[1], l.trim());
  }
  if (composer < 0) {
    return lines.slice(Math.max(0, top - 6), top + 1).some((l) => BUSY.test(l))
      ? { kind: "busy" }
      : { kind: "starting" };
  }
  // The status line sits above the composer (and its follow-ups area), within a few lines.
  for (let i = composer - 1, seen = 0; i >= 0 && seen < 8; i--) {
    const l = lineAt(lines, i);
    if (l.trim() === "") continue;
    seen++;
    if (BUSY.test(l)) return { kind: "busy" };
  }
  return { kind: "ready" };
}

/** The only start-up dialog aiterm answers: workspace trust, with `a` ("[a] Trust this workspace"). */
export function answerCursorStartupDialog(screen: string, trustProject: boolean): KeyStep[] | null {
  if (!trustProject) return null;
  const state = classifyCursorScreen(screen);
  if (state.kind !== "blocked" || state.reason !== "trust_required") return null;
  if (!screenLines(screen).some((l) => /\[a\]\s*Trust this workspace/.test(l))) return null;
  return [{ key: "a" }];
}

/** The text in the live composer (placeholder = empty), with its wrapped continuation lines; null without one. */
export function cursorComposerText(screen: string): string | null {
  const lines = screenLines(screen);
  const c = composerLine(lines, lines.length - 1);
  if (c < 0) return null;
  const first = lineAt(lines, c).replace(COMPOSER, "").trim();
  if (PLACEHOLDERS.some((re) => re.test(first))) return "";
  const out = [first];
  for (let i = c + 1; i < lines.length; i++) {
    const l = lineAt(lines, i);
    if (!/^ {2,}\S/.test(l) || FOOTER.test(l)) break;
    out.push(l.trim());
  }
  return out.join("\n");
}

/** Texts waiting in the follow-ups area (lines `  › <text>` under a `Follow-ups` heading above the composer). */
export function cursorFollowUps(screen: string): string[] {
  const lines = screenLines(screen);
  const c = composerLine(lines, lines.length - 1);
  if (c < 0) return [];
  const head = lines.findLastIndex((l, i) => i < c && /^\s*Follow-ups\b/.test(l));
  if (head < 0) return [];
  return lines.slice(head + 1, c).filter((l) => /^\s+› /.test(l)).map((l) => l.replace(/^\s+› /, "").trim());
}

/**
 * True when `text` was not taken: the composer still shows (a prefix of) it, or it waits in the
 * follow-ups area without having been steered into the running turn.
 */
export function cursorComposerHolds(screen: string, text: string): boolean {
  const shown = cursorComposerText(screen);
  if (shown !== null && holdsPrefix(shown, text)) return true;
  return cursorFollowUps(screen).some((f) => holdsPrefix(f, text));
}

/**
 * Where a steer's text is after its submit: waiting in the follow-ups area (first in line, so one more
 * "enter steer" moves it into the running turn, or behind others), still in the composer, or gone from
 * both (joined to the running turn).
 */
export function cursorSteerPlace(screen: string, text: string): "composer" | "queued" | "queued_behind" | "joined" {
  const at = cursorFollowUps(screen).findIndex((f) => holdsPrefix(f, text));
  if (at >= 0) return at === 0 ? "queued" : "queued_behind";
  return cursorComposerHolds(screen, text) ? "composer" : "joined";
}

/**
 * Submit: after the bracketed paste, Enter in the extended keyboard encoding (sent as raw bytes), then a
 * second one. At idle the first starts the turn and the second finds an empty composer (ignored). While
 * a turn runs the first moves the text into the follow-ups area and the second is "enter steer", which
 * moves it into the running turn. The 300 ms and 400 ms pauses were not measured (no Cursor CLI can be
 * installed where they were last reviewed): they are the values the adapter was first written with against
 * Cursor Agent's TUI. The other CLIs' submit pauses were measured unneeded (tests/probes/submit_pause.ts).
 */
export const CURSOR_SUBMIT_STEPS: KeyStep[] = [
  { pauseMs: 300 },
  { text: CSI_U_ENTER },
  { pauseMs: 400 },
  { text: CSI_U_ENTER },
];

/** The model id the footer under the composer shows first (`composer-2.5 · / commands · …`), or null. */
export function cursorFooterModel(screen: string): string | null {
  const lines = screenLines(screen);
  const c = composerLine(lines, lines.length - 1);
  if (c < 0) return null;
  for (let i = c + 1; i < lines.length; i++) {
    const m = lineAt(lines, i).match(/^\s*(\S+) · \/ commands\b/);
    if (m) return m[1]!;
  }
  return null;
}
