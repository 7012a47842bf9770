/**
 * The Codex CLI's screen rules: ready/busy/blocked from the bottom of a capture, the start-up dialogs
 * aiterm may answer (folder trust, hooks review), the live composer and the fast-mode status line.
 */
import {
  blocked,
  holdsPrefix,
  isExitTrailer,
  isLaunchLine,
  lineAt,
  prevNonEmpty,
  screenLines,
  selectByLabel,
} from "../common/mod.ts";
import type { BlockedReason, KeyStep, ScreenState } from "../common/mod.ts";

/**
 * Whether the ready screen shows fast mode: the status line under the live composer reads
 * `<Model> <effort> Fast · <cwd>` in fast mode and `<Model> <effort> · <cwd>` otherwise (0.169.0).
 * Null without a live composer and its status line.
 */
export function codexFastShown(screen: string): boolean | null {
  const lines = screenLines(screen);
  const c = liveComposer(lines, lines.length - 1);
  if (c < 0) return null;
  for (let i = c + 1; i < lines.length; i++) {
    const l = lineAt(lines, i);
    const head = l.split(" · ")[0]!;
    if (head === l || /^\s*(?:←|\?)/.test(l)) continue;
    return /\sFast$/.test(head);
  }
  return null;
}

/** Titles of Codex's modal views, matched per line from the bottom up. */
const TITLE_CUES: [RegExp, BlockedReason][] = [
  [/Trust this folder\?/, "trust_required"],
  [/Hooks need review/, "hooks_review_required"],
  [/Sign in with ChatGPT|Sign in with Device Code|Choose how you want to use Codex/, "vendor_onboarding_required"],
  [
    /Allow the .+ MCP server to run tool|Would you like to run the following command\?|Would you like to make the following edits\?/,
    "approval_required",
  ],
  [/^\s*Warnings · \d+ of \d+/, "unknown_dialog"],
];
/** Key-hint footers of Codex's modal views. */
const DIALOG_FOOTER =
  /enter continue · esc back|enter confirm · esc skip|enter to submit \| esc to cancel|Press enter to (?:continue|confirm)|esc dismiss & close/i;
/** A composer line: `›` in column 0, not a numbered option of a selection list. */
const COMPOSER = /^›(?: (?!\d+\.\s)|$)/;
/** Things drawn in the transcript or a dialog, never between the live composer and the footer. */
const NOT_BELOW_COMPOSER = /^[•◦■›]|^\s*└|^\s*Worked for |^\s*›?\s*\d+\.\s/;
/** The block Codex prints on the way out ("To reconnect, run: codex resume <id>"). */
const EXIT_BLOCK =
  /^(?:To reconnect, run:|\s+codex resume \S+|Stop the current turn:.*|Token usage.*|Disconnected from this task.*|To continue this session, run codex resume \S+)$/;

/** Index of the live composer line (near the bottom, with only footer-like lines under it), or -1. */
export function liveComposer(lines: string[], top: number): number {
  for (let i = top; i >= 0 && i >= top - 60; i--) {
    if (!COMPOSER.test(lineAt(lines, i))) continue;
    const below = lines.slice(i + 1, top + 1);
    return below.some((l) => NOT_BELOW_COMPOSER.test(l)) ? -1 : i;
  }
  return -1;
}

/** The in-progress status line (`• Working (2s • esc to interrupt)`) sits right above the composer. */
function busyAbove(lines: string[], composer: number): boolean {
  let seen = 0;
  for (let i = composer - 1; i >= 0 && seen < 6; i--) {
    const l = lineAt(lines, i);
    if (l.trim() === "") continue;
    seen++;
    if (/esc to interrupt/.test(l)) return true;
    if (/^›|^\s*Worked for |^■ /.test(l)) return false;
  }
  return false;
}

/**
 * 0.169.0 draws a provisional composer for about half a second before its session is configured
 * (header `loading`, then the path; footer a bare `? for shortcuts`, no status line) and only then
 * shows the trust dialog over it. The configured composer always has the status line
 * (`<model> <effort> · <cwd>`) or the `← for agents · ? for shortcuts` footer under it: with nothing
 * containing ` · ` below the composer, input is not accepted yet.
 */
function provisional(lines: string[], composer: number, top: number): boolean {
  const below = lines.slice(composer + 1, top + 1).filter((l) => l.trim() !== "");
  return below.length > 0 && below.every((l) => !l.includes(" · ")) &&
    below.some((l) => /^\s*\? for shortcuts\s*$/.test(l));
}

/** The exit block at the bottom, if it is there, with its `codex resume <id>` command (null when absent). */
function exitBlock(lines: string[], top: number): { detail: string | null } | null {
  let detail: string | null = null;
  for (let i = top; i >= 0 && i >= top - 8; i--) {
    const l = lineAt(lines, i);
    if (l.trim() === "" || /^WARNING: /.test(l)) continue;
    if (!EXIT_BLOCK.test(l)) break;
    const m = l.match(/codex resume \S+/);
    if (m && detail === null) detail = m[0];
    if (/^To reconnect, run:|^To continue this session/.test(l)) return { detail };
  }
  return null;
}

/** Classifies a Codex screen from its bottom up; scrollback above the current view never decides. */
export function classifyCodexScreen(screen: string): ScreenState {
  const lines = screenLines(screen);
  let top = lines.length - 1;
  if (top < 0) return { kind: "starting" };
  const trailer = isExitTrailer(lineAt(lines, top));
  if (trailer) top = prevNonEmpty(lines, top - 1);
  const exit = exitBlock(lines, top);
  if (exit) return { kind: "exited", detail: exit.detail };
  if (trailer) return { kind: "exited", detail: null };
  let dialogFooter = false;
  for (let i = top; i >= 0 && i >= top - 80; i--) {
    const l = lineAt(lines, i);
    // An earlier run's exit text or this launch's command line: the new TUI has not drawn yet.
    if (/^To reconnect, run:/.test(l) || isLaunchLine(l, "codex")) break;
    const cue = TITLE_CUES.find(([re]) => re.test(l));
    if (cue) return blocked(cue[1], l.trim());
    if (DIALOG_FOOTER.test(l)) dialogFooter = true;
    if (!COMPOSER.test(l)) continue;
    if (dialogFooter || liveComposer(lines, top) !== i) return blocked("unknown_dialog", lineAt(lines, top).trim());
    if (busyAbove(lines, i)) return { kind: "busy" };
    return provisional(lines, i, top) ? { kind: "starting" } : { kind: "ready" };
  }
  if (dialogFooter) return blocked("unknown_dialog", lineAt(lines, top).trim());
  return lines.slice(Math.max(0, top - 5), top + 1).some((l) => /esc to interrupt/.test(l))
    ? { kind: "busy" }
    : { kind: "starting" };
}

/**
 * Keys for the start-up dialogs aiterm may answer, only with trustProject: folder trust ("Trust and
 * continue") and hooks review ("Trust all and continue"). The option is found by its label, never by
 * its number or position; the answer moves the selection onto it and returns, and Enter follows only
 * once the screen shows the `›` marker on it. 0.169.0 shows the trust dialog only inside a git repository.
 */
export function answerCodexStartupDialog(screen: string, trustProject: boolean): KeyStep[] | null {
  if (!trustProject) return null;
  const state = classifyCodexScreen(screen);
  if (state.kind !== "blocked") return null;
  const wanted = state.reason === "trust_required"
    ? /^\s*(?:›\s*)?(?:\d+\.\s+)?Trust and continue\b/
    : state.reason === "hooks_review_required"
    ? /^\s*(?:›\s*)?(?:\d+\.\s+)?Trust all and continue\b/
    : null;
  if (!wanted) return null;
  const lines = screenLines(screen);
  const at = lines.findLastIndex((l) => wanted.test(l));
  if (at < 0) return null;
  return selectByLabel(lines, at - 6, at + 6, "›", wanted);
}

/** The placeholders 0.169.0 shows in an empty composer. */
const COMPOSER_PLACEHOLDERS = new Set(["Ask Codex to do anything", "Ask a follow-up question"]);

/**
 * The text in the live composer (first line after `› ` plus its continuation lines), "" when it shows
 * only its placeholder, or null without a live composer.
 */
export function codexComposerText(screen: string): string | null {
  const lines = screenLines(screen);
  const c = liveComposer(lines, lines.length - 1);
  if (c < 0) return null;
  const head = lineAt(lines, c).replace(/^›\s?/, "");
  if (COMPOSER_PLACEHOLDERS.has(head.trim())) return "";
  const out = [head];
  for (let i = c + 1; i < lines.length && /^ {2}\S/.test(lineAt(lines, i)) && !lineAt(lines, i).includes(" · "); i++) {
    out.push(lineAt(lines, i).trim());
  }
  return out.join("\n");
}

/** True when the live composer still shows (a prefix of) `text`. */
export function codexComposerHolds(screen: string, text: string): boolean {
  const shown = codexComposerText(screen);
  return shown !== null && holdsPrefix(shown, text);
}
