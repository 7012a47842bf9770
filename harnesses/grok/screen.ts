/**
 * Grok Build's screen rules: ready/busy/blocked from the bottom of a capture, the folder-trust answer,
 * and the composer box with its key-hint footer.
 */
import { blocked, holdsPrefix, isExitTrailer, isLaunchLine, lineAt, prevNonEmpty, screenLines } from "../common/mod.ts";
import type { KeyStep, ScreenState } from "../common/mod.ts";
import { grokRateLimitDialog } from "./dialogs.ts";

/** The composer's key-hint footer (idle, draft, suggestion and busy variants all carry `Shift+Tab:mode`). */
export const FOOTER = /Shift\+Tab:mode\s+│.*Ctrl\+x:shortcuts|^\s+Logged in with (?:API key|\S+)/;
/** The in-progress display: the spinner status line above the composer, or `Ctrl+c:cancel` in the footer. */
const BUSY_FOOTER = /│\s+Ctrl\+c:cancel\s+│/;
const BUSY_LINE = /^\s*\S\s+Waiting for response…|^\s*\S\s+.+… \d+(?:\.\d+)?s(?:\s|$)/;
const TRUST_TITLE = /Do you trust the contents of this directory\?/;
/** The tool-permission dialog's footer (`1/4:select │ Tab:next option │ …`). */
const PERMISSION_FOOTER = /^\s*\d+\/\d+:select\s+│/;
const EXIT_LINE = /^\s*(?:Resume this session with:|grok --resume \S+)\s*$/;
/** tmux's remain-on-exit banner. */
const PANE_DEAD = /^Pane is dead \(status \d+/;

/** The composer box (`╭…` / `│ ❯ …` / `╰…`) right above the footer line `footer`, as line indexes. */
export function composerBox(lines: string[], footer: number): { top: number; bottom: number } | null {
  const bottom = prevNonEmpty(lines, footer - 1);
  if (bottom < 0 || !/^\s*╰─/.test(lineAt(lines, bottom))) return null;
  for (let i = bottom - 1; i >= 0 && i >= bottom - 30; i--) {
    const l = lineAt(lines, i);
    if (/^\s*╭─/.test(l)) return { top: i, bottom };
    if (!/^\s*│/.test(l)) return null;
  }
  return null;
}

/** Classifies a Grok Build screen from its bottom up; scrollback above the current view never decides. */
export function classifyGrokScreen(screen: string): ScreenState {
  const lines = screenLines(screen);
  let top = lines.length - 1;
  if (top < 0) return { kind: "starting" };
  const trailer = PANE_DEAD.test(lineAt(lines, top).trim()) || isExitTrailer(lineAt(lines, top));
  if (trailer) top = prevNonEmpty(lines, top - 1);
  for (let i = top; i >= 0 && i >= top - 4; i--) {
    const m = lineAt(lines, i).match(/grok --resume (\S+)/);
    if (m) return { kind: "exited", detail: `grok --resume ${m[1]}` };
    if (!EXIT_LINE.test(lineAt(lines, i)) && lineAt(lines, i).trim() !== "") break;
  }
  if (trailer) return { kind: "exited", detail: null };
  const card = grokRateLimitDialog(screen);
  if (card) return blocked("rate_limited", card);
  for (let i = top; i >= 0 && i >= top - 80; i--) {
    const l = lineAt(lines, i);
    // This launch's command line or an earlier run's exit text: the TUI has not drawn yet.
    if (EXIT_LINE.test(l) || isLaunchLine(l, "grok")) break;
    if (TRUST_TITLE.test(l)) return blocked("trust_required", l.trim());
    if (PERMISSION_FOOTER.test(l)) {
      let first = Math.max(0, prevNonEmpty(lines, i - 1) + 1);
      while (first > 0 && /^\s*┃/.test(lineAt(lines, first - 1))) first--;
      const title = lines.slice(first, i).find((x) => /^\s*┃\s+\S/.test(x));
      return blocked("approval_required", (title ?? l).replace(/^\s*┃\s*/, "").trim());
    }
    // One Escape on a typed composer replaces the key hints with `Esc:press again to clear`: still the composer.
    if (!FOOTER.test(l) && !ESC_ARMED_FOOTER.test(l)) continue;
    const box = composerBox(lines, i);
    if (!box) return blocked("unknown_dialog", l.trim());
    if (BUSY_FOOTER.test(l)) return { kind: "busy" };
    const above = prevNonEmpty(lines, box.top - 1);
    if (above >= 0 && BUSY_LINE.test(lineAt(lines, above))) return { kind: "busy" };
    return { kind: "ready" };
  }
  return { kind: "starting" };
}

/**
 * Keys for the start-up dialog aiterm may answer: folder trust, only with trustProject (`y` is the
 * dialog's own key for "Yes, proceed"). Managed launches pass `--trust`, so this is a fallback.
 */
export function answerGrokStartupDialog(screen: string, trustProject: boolean): KeyStep[] | null {
  if (!trustProject) return null;
  const state = classifyGrokScreen(screen);
  if (state.kind !== "blocked" || state.reason !== "trust_required") return null;
  const lines = screenLines(screen);
  return lines.some((l) => /^\s*Yes, proceed\s+y\s*$/.test(l)) ? [{ text: "y" }] : null;
}

/**
 * The text typed into the live composer, or null when there is no composer. A ghost suggestion
 * (footer `Tab/→:accept suggestion`) is not typed text: the composer counts as empty.
 */
export function grokComposerText(screen: string): string | null {
  const lines = screenLines(screen);
  const top = lines.length - 1;
  for (let i = top; i >= 0 && i >= top - 3; i--) {
    const l = lineAt(lines, i);
    if (!FOOTER.test(l) && !ESC_ARMED_FOOTER.test(l)) continue;
    const box = composerBox(lines, i);
    if (!box) return null;
    if (/accept suggestion/.test(l)) return "";
    const out: string[] = [];
    for (let j = box.top + 1; j < box.bottom; j++) {
      out.push(lineAt(lines, j).replace(/^\s*│\s?/, "").replace(/^❯\s?/, "").replace(/\s*│\s*$/, ""));
    }
    return out.join("\n").trim();
  }
  return null;
}

/** A large paste collapsed in the composer: `[Pasted: 80 lines]` (real 1.0.41). */
const PASTED_PLACEHOLDER = /^\[Pasted: \d+ lines?\]/;

/** True when the live composer still shows (a prefix of) `text`, or the placeholder of a collapsed paste. */
export function grokComposerHolds(screen: string, text: string): boolean {
  const shown = grokComposerText(screen);
  if (shown === null) return false;
  return PASTED_PLACEHOLDER.test(shown) || holdsPrefix(shown, text);
}

/** The key-hint footer after one Escape on a typed composer (a second Escape clears it). */
export const ESC_ARMED_FOOTER = /^\s*Esc:press again to clear\s*$/;
