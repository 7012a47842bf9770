/**
 * Private screen helpers shared by the harness adapters. A "screen" is the text of `tmux capture-pane`
 * without escapes: the bottom of it is the present, everything above may be stale scrollback.
 */
import type { KeyStep } from "./types.ts";

/** Splits a captured screen into lines: CR removed, NBSP turned into a space, trailing blanks trimmed. */
export function screenLines(screen: string): string[] {
  const lines = screen.replace(/\r/g, "").replace(/\u00a0/g, " ").split("\n").map((l) => l.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
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

/**
 * Keys that move a numbered selection from the marked option to `target` and confirm it.
 * `marker` is the selection glyph (`❯` for Claude, `›` for Codex). Null when no option is marked.
 */
export function selectOption(
  lines: string[],
  from: number,
  to: number,
  marker: string,
  target: number,
): KeyStep[] | null {
  let current: number | null = null;
  for (let i = Math.max(0, from); i <= to && i < lines.length; i++) {
    const m = lineAt(lines, i).match(/^\s*(\S)\s*(\d+)\.\s/);
    if (m && m[1] === marker) current = Number(m[2]);
  }
  if (current === null) return null;
  const steps: KeyStep[] = [];
  const key = current < target ? "Down" : "Up";
  for (let n = Math.abs(target - current); n > 0; n--) steps.push({ key });
  if (steps.length > 0) steps.push({ pauseMs: 150 });
  steps.push({ key: "Enter" });
  return steps;
}

/** Finds the nearest line at or above `from` (down to `stop`) that matches `re`; -1 when none does. */
export function findUp(lines: string[], from: number, stop: number, re: RegExp): number {
  for (let i = from; i >= Math.max(0, stop); i--) if (re.test(lineAt(lines, i))) return i;
  return -1;
}
