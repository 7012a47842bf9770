/**
 * Screen helpers shared by the harness adapters. A "screen" is the text of `tmux capture-pane`
 * without escapes: the bottom of it is the present, everything above may be stale scrollback.
 */
import type { BlockedReason, KeyStep, ScreenState } from "./types.ts";

/** Splits a captured screen into lines: CR removed, NBSP turned into a space, trailing blanks trimmed. */
export function screenLines(screen: string): string[] {
  const lines = screen.replace(/\r/g, "").replace(/\u00a0/g, " ").split("\n").map((l) => l.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * The longest a submit waits for the composer to show a pasted prompt before its submit key is pressed
 * anyway (a composer the harness's rules cannot read must not stop a dispatch). On the real CLIs the
 * paste shows within 10–30 ms (median) and 60–190 ms at worst on a loaded 2-core machine
 * (tests/probes/submit_pause.ts, ADR 0023's amendment).
 */
export const SHOWN_MS = 1000;

/**
 * Submit steps: once the composer shows the pasted prompt, Enter — with no fixed pause: measured with the
 * real Claude Code 2.1.328, Codex 0.169.0 and Grok 1.0.41, an Enter pressed at 0 ms after the composer
 * showed a bracketed paste was never swallowed (see each adapter for its numbers).
 */
export const ENTER_WHEN_SHOWN: readonly KeyStep[] = [{ shownMs: SHOWN_MS }, { key: "Enter" }];

/** The `blocked` screen state for `reason`, with the screen text that says so. */
export function blocked(reason: BlockedReason, detail: string | null): ScreenState {
  return { kind: "blocked", reason, detail };
}

/** Index of the nearest non-empty line at or above `from`, or -1. */
export function prevNonEmpty(lines: string[], from: number): number {
  for (let i = Math.min(from, lines.length - 1); i >= 0; i--) {
    if ((lines[i] ?? "").trim() !== "") return i;
  }
  return -1;
}

/** The line at `i` ("" when out of range). */
export function lineAt(lines: string[], i: number): string {
  return lines[i] ?? "";
}

/** The lab's exit marker (`echo EXITED rc=$?` after the CLI, sometimes after a stray `^C`). */
const LAB_EXIT = /^(?:\^C)*EXITED rc=\d+$/;

/**
 * A bare shell prompt as the last line: sh/bash/zsh defaults (`user@host:~/dir$`, `#`, `%`) and
 * PowerShell (`PS C:\dir>`). Heuristic; the core also watches the pane's foreground process.
 */
export function isBareShellPrompt(line: string): boolean {
  const l = line.trim();
  if (l === "" || l.length > 160 || /^[❯›>│─•·■]/.test(l) || l.includes(" · ")) return false;
  return /^\S.{0,150}[$#%]$/.test(l) || /^PS [^\s].{0,150}>$/.test(l) || /^[$#%]$/.test(l);
}

/**
 * A shell line that launched `name` (`user@host:~/p$ /path/to/claude --session-id …`): everything above it
 * is from before this launch.
 */
export function isLaunchLine(line: string, name: string): boolean {
  const m = line.match(/^(?:[^\s❯›•◦■●⎿✻│─>].{0,200}?)?[$#%>] (.*)$/);
  return m !== null && new RegExp(`(?:^|[/\\\\])${name}(?:\\.exe)?(?:\\s|$)`).test(m[1] ?? "");
}

/** True when `line` ends a dead TUI: the lab exit marker or a bare shell prompt. */
export function isExitTrailer(line: string): boolean {
  return LAB_EXIT.test(line.trim()) || isBareShellPrompt(line);
}

/** True for a horizontal rule drawn with U+2500 (Claude's composer borders). */
export function isRule(line: string): boolean {
  const l = line.trim();
  return l.length >= 10 && /^─+$/.test(l);
}

/** Collapses whitespace runs to single spaces and trims. */
export function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Whether the composer content `shown` still holds (a prefix of) `text`: the whitespace-squashed composer
 * text is non-empty and starts the squashed `text`, or `text` starts it (the composer may wrap or add
 * a trailing cursor cell), or the composer shows a collapsed-paste placeholder.
 */
export function holdsPrefix(shown: string, text: string): boolean {
  const c = squash(shown);
  const t = squash(text);
  if (c === "" || t === "") return false;
  if (/^\[Pasted (?:text|Content)\b/i.test(c)) return true;
  return t.startsWith(c) || c.startsWith(t);
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Column where a selection-list line's option starts (the marker counted as a blank); -1 for a blank line. */
function optionColumn(line: string, marker: string): number {
  if (line.trim() === "") return -1;
  const l = line.replace(new RegExp(`^(\\s*)${escapeRe(marker)}`), (_m, sp: string) => `${sp} `);
  return l.length - l.trimStart().length;
}

/**
 * Keys that move the selection of a list (numbered or not, in any order) onto the option whose line
 * matches `label`, found between lines `from` and `to`; the selected option is the one `marker`
 * points at (`❯` for Claude, `›` for Codex). When the marker is already on that option the answer is
 * Enter; otherwise it is only the Up/Down moves (and a short pause), so the caller looks again and
 * confirms once the screen shows the marker on the option: Enter is never pressed on a guess.
 * Options are the lines that start in the same column as the labelled one. Null when the labelled
 * option or the marker is not there, or they are not in one list.
 */
export function selectByLabel(
  lines: string[],
  from: number,
  to: number,
  marker: string,
  label: RegExp,
): KeyStep[] | null {
  const lo = Math.max(0, from);
  const hi = Math.min(to, lines.length - 1);
  let target = -1;
  let selected = -1;
  const markerRe = new RegExp(`^\\s*${escapeRe(marker)}\\s*\\S`);
  for (let i = lo; i <= hi; i++) {
    const l = lineAt(lines, i);
    if (label.test(l)) target = i;
    if (markerRe.test(l)) selected = i;
  }
  if (target < 0 || selected < 0) return null;
  if (target === selected) return [{ key: "Enter" }];
  const col = optionColumn(lineAt(lines, target), marker);
  if (optionColumn(lineAt(lines, selected), marker) !== col) return null;
  let moves = 0;
  const [a, b] = selected < target ? [selected, target] : [target, selected];
  for (let i = a + 1; i <= b; i++) {
    const c = optionColumn(lineAt(lines, i), marker);
    if (c === col) moves++;
    else if (c >= 0 && c < col) return null; // something outside the list lies between them
  }
  const key = selected < target ? "Down" : "Up";
  // The pause lets the list redraw before the caller looks again (a look at the old screen would move
  // again). In agent_configure it is not needed: there the stage waits 100 ms before its next look, and
  // with this pause at 0 Codex 0.169.0's pickers worked 48 of 48 (tests/probes/configure_pause.ts
  // --harness codex).
  // The start-up dialogs and pane recovery that also use it were not measured, so it stays.
  const steps: KeyStep[] = [];
  for (let n = moves; n > 0; n--) steps.push({ key });
  steps.push({ pauseMs: 250 });
  return steps;
}

/** Finds the nearest line at or above `from` (down to `stop`) that matches `re`; -1 when none does. */
export function findUp(lines: string[], from: number, stop: number, re: RegExp): number {
  for (let i = from; i >= Math.max(0, stop); i--) if (re.test(lineAt(lines, i))) return i;
  return -1;
}

/**
 * A view drawn at the bottom of the screen: its footer (matching `footer`) is the last non-empty line
 * and its title (matching `title`) the nearest line above it, at most `span` lines up. The lines with
 * the title's and footer's indexes; null when the footer is not the last line or no title is found.
 */
export function viewAtBottom(
  screen: string,
  footer: RegExp,
  title: RegExp,
  span: number,
): { lines: string[]; top: number; foot: number } | null {
  const lines = screenLines(screen);
  const foot = prevNonEmpty(lines, lines.length - 1);
  if (foot < 0 || !footer.test(lineAt(lines, foot))) return null;
  const top = findUp(lines, foot - 1, foot - span, title);
  return top < 0 ? null : { lines, top, foot };
}
