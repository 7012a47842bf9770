/**
 * Token-reduced terminal output.
 *
 * `reduceOutput(raw, options)` turns raw pane output into a compact view plus a one-line meta
 * summary:
 *  1. `stripControl` (escape sequences, \r and backspace overwrites, C0 controls);
 *  2. when a command is known: the echoed command line is dropped; trailing prompt-only lines are
 *     dropped, except the last line while the program waits (`waiting`: its question or prompt);
 *  3. a semantic reducer chosen from the command (see classify.ts) condenses the output so that the
 *     verdict survives (counts, failing tests with both sides of their assertions, errors with
 *     file:line); the lines that read as errors which it did not keep follow its view, and while the
 *     program waits its last line ends it; it is used only if it recognises the output and its
 *     unfolded view (step 4) has no more tokens than the generic unfolded view;
 *  4. generic steps: blank runs collapsed, runs of ≥3 identical lines shown once as `line  (×N)`;
 *     this is the "unfolded view";
 *  5. when `elide` (default): more than 60 lines → first 30 + the lines between that read as errors
 *     (with 1 line before and 2 after, at most 300) + last 20; each hidden run becomes one marker line
 *     naming its 1-based, inclusive line range of the unfolded view, which is exactly
 *     `reduceOutput(raw, { ...options, elide: false }).text.split("\n")`; lines longer than 2000
 *     UTF-16 units keep their first 1200 and last 600 units around `…[N chars omitted]…`.
 *
 * Raw counts (`rawLines`, `rawTokens`) are measured on the control-stripped text, so the reported
 * ratio is never inflated by escape sequences.
 */

import { BUILD_REDUCERS } from "./builds.ts";
import { classifyCommand } from "./classify.ts";
import { elideLines, estimateTokens, isHardErrorLine, normalizeLines, stripControl, toLines } from "./generic.ts";
import { GIT_REDUCERS } from "./git.ts";
import { reduceGrep } from "./grep.ts";
import { INSTALL_REDUCERS } from "./installs.ts";
import { JS_RUNNERS } from "./js_runners.ts";
import { OTHER_RUNNERS } from "./test_runners.ts";
import type { Reducer } from "./util.ts";

export {
  estimateTokens,
  isErrorLine,
  isHardErrorLine,
  printedText,
  repeatMarker,
  stripControl,
  toLines,
} from "./generic.ts";
export { classifyCommand } from "./classify.ts";

/** Options of reduceOutput. */
export interface ReduceOptions {
  /** Session id, used in the meta line. */
  sessionId: string;
  /** The last command line sent to the session (chooses a semantic reducer); null/undefined = generic only. */
  command?: string | null;
  /** Fold long outputs and long lines (default true). false = exact lines (used for line_range). */
  elide?: boolean;
  /**
   * The program is still there and waiting (the read ended `nested`, `input_prompt` or `timeout`): the last line it
   * printed is its question or prompt (`Do you want to continue? [Y/n]`, a remote `user@host:~$`), so it is never
   * dropped, neither as a trailing prompt nor by a reducer; it ends the text.
   */
  waiting?: boolean;
}

/** Result of reduceOutput. */
export interface ReduceResult {
  /** The reduced text WITHOUT the meta line. */
  text: string;
  /** One meta line, e.g. `[aiterm t1: 12 lines / ~80 tok (raw 400 lines / ~3100 tok); reducer pytest; 40 lines hidden]` */
  meta: string;
  /** "generic" or the semantic reducer's name ("pytest", "deno-test", "cargo-test", ...). */
  reducer: string;
  rawLines: number;
  rawTokens: number;
  lines: number;
  tokens: number;
  hiddenLines: number;
}

/** Every semantic reducer by name. */
export const REDUCERS: Readonly<Record<string, Reducer>> = {
  ...JS_RUNNERS,
  ...OTHER_RUNNERS,
  ...BUILD_REDUCERS,
  ...GIT_REDUCERS,
  ...INSTALL_REDUCERS,
  grep: reduceGrep,
};

const PROMPT_RES: readonly RegExp[] = [
  /^(\([\w .-]+\)\s*)?[\w.-]+@[\w.-]+(:\S*|\s+\S+)?\s?[$#%>]$/, // user@host:~/x$  (venv) user@host ~ %
  /^(\([\w .-]+\)\s*)?\[[\w.-]+@[\w.-]+[^\]]*\][$#]$/, // [user@host dir]$
  /^(bash|sh|zsh|dash|ash|ksh)(-\d+(\.\d+)*)?[$#]$/, // bash-5.2#
  /^[$#%>❯➜»]$/, // bare prompts
  /^PS [A-Za-z]:\\.*>$/, // PowerShell
];

/** True for a line that holds only a shell prompt (after right-trimming). */
export function isPromptLine(line: string): boolean {
  const t = line.trim();
  return t !== "" && PROMPT_RES.some((re) => re.test(t));
}

/**
 * Drop the echoed command line (searched in the first 3 non-blank lines) and trailing prompt-only lines; with
 * `keepLast`, the last non-blank line stays even when it is a prompt (a waiting program's prompt, see
 * {@link ReduceOptions.waiting}).
 */
export function stripEchoAndPrompts(
  lines: readonly string[],
  command: string | null | undefined,
  keepLast = false,
): string[] {
  let out = [...lines];
  const cmd = command?.trim() ?? "";
  if (cmd !== "") {
    let seen = 0;
    for (let i = 0; i < out.length && seen < 3; i++) {
      const line = out[i] ?? "";
      if (line.trim() === "") continue;
      seen++;
      if (line.includes(cmd)) {
        out = out.slice(i + 1);
        break;
      }
    }
  }
  const blank = (l: string | undefined) => (l ?? "").trim() === "";
  while (out.length > 0 && blank(out[out.length - 1])) out.pop();
  if (keepLast) return out;
  while (out.length > 0 && (blank(out[out.length - 1]) || isPromptLine(out[out.length - 1] ?? ""))) out.pop();
  return out;
}

/** At most this many error lines of one output are checked against a reducer's view. */
export const LOST_CHECK_MAX = 2000;
/**
 * Reducers that show data a command found rather than what it did (grep's matches, git log's commits): a line
 * there that reads as an error is a match or a message, not the command's error, and their caps stand.
 */
const SHOWS_DATA = new Set(["grep", "git-log", "git-diff-stat"]);

/**
 * The lines of `input` that read as errors (`isHardErrorLine` in ./generic.ts) and that `reduced` does not show: neither the
 * line itself (trimmed) nor, for a diagnostic a reducer merged with others (`file:3:1 - error TS2322: msg (×4, also
 * at …)`), its message from the error word on.
 */
export function lostErrorLines(input: readonly string[], reduced: readonly string[]): string[] {
  const shown = reduced.join("\n");
  const exact = new Set(reduced.map((l) => l.trim()));
  const seen = new Set<string>();
  let checked = 0;
  return input.filter((line) => {
    // Bounded work: past LOST_CHECK_MAX error lines the reducer is trusted (a storm it merged).
    if (checked >= LOST_CHECK_MAX || !isHardErrorLine(line)) return false;
    checked++;
    const t = line.trim();
    if (exact.has(t) || shown.includes(t)) return false;
    const at = t.search(/\b(?:error|fatal|panic|FAIL|failed|failure|warning)\b/i);
    const message = at > 0 ? t.slice(at) : "";
    if (message.length >= 12 && shown.includes(message)) return false;
    // Once, however often a live view printed it.
    if (seen.has(t)) return false;
    seen.add(t);
    return true;
  });
}

function view(lines: readonly string[]): { unfolded: string[]; tokens: number } {
  const unfolded = normalizeLines(lines);
  return { unfolded, tokens: estimateTokens(unfolded.join("\n")) };
}

/** Reduce raw terminal output for an AI reader; see the module comment for the exact steps. */
export function reduceOutput(raw: string, options: ReduceOptions): ReduceResult {
  const stripped = stripControl(raw);
  const rawLineList = toLines(stripped);
  const waiting = options.waiting === true;
  const lines = stripEchoAndPrompts(rawLineList, options.command, waiting);
  let chosen = view(lines);
  let reducer = "generic";
  // The semantic view replaces the generic one only when its unfolded view is not larger (folding is
  // the same last step for both, and the choice does not depend on `elide`, so line ranges agree).
  // The choice is always made on the elided size so that elide=false returns the same view.
  for (const name of classifyCommand(options.command)) {
    const fn = REDUCERS[name];
    if (fn === undefined) continue;
    let reduced: string[] | null;
    try {
      reduced = fn(lines);
    } catch {
      reduced = null; // a reducer bug must never lose the output
    }
    if (reduced === null) continue;
    // Every line that reads as an error survives a reducer: the ones it dropped follow its view, in order.
    const lost = SHOWS_DATA.has(name) ? [] : lostErrorLines(lines, reduced);
    if (lost.length > 0) reduced = [...reduced, "", ...lost];
    // A waiting program's last line (its question) ends the view, whatever the reducer kept.
    const last = waiting ? lastNonBlank(lines) : null;
    if (last !== null && lastNonBlank(reduced) !== last) reduced = [...reduced, last];
    const candidate = view(reduced);
    if (candidate.unfolded.length > 0 && candidate.tokens <= chosen.tokens) {
      chosen = candidate;
      reducer = name;
    }
    break;
  }
  const folded = elideLines(chosen.unfolded, options.elide ?? true);
  const text = folded.lines.join("\n");
  const result = {
    text,
    reducer,
    rawLines: rawLineList.length,
    rawTokens: estimateTokens(stripped),
    lines: folded.lines.length,
    tokens: estimateTokens(text),
    hiddenLines: folded.hidden,
  };
  const meta = `[aiterm ${options.sessionId}: ${result.lines} lines / ~${result.tokens} tok ` +
    `(raw ${result.rawLines} lines / ~${result.rawTokens} tok); reducer ${reducer}; ${result.hiddenLines} lines hidden]`;
  return { ...result, meta };
}

/** The last line that holds text, or null. */
function lastNonBlank(lines: readonly string[]): string | null {
  for (let i = lines.length - 1; i >= 0; i--) if ((lines[i] ?? "").trim() !== "") return lines[i] ?? null;
  return null;
}
