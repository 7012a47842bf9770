/** Claude Code (`claude`). Facts, with where each was verified: docs/harnesses/claude-code.md. */
import { join } from "node:path";
import { isRecord, jsonlFilesSince, newestFirst, parseAllWith, realPathOr, rec, str } from "./_jsonl.ts";
import type { JsonRecord } from "./_jsonl.ts";
import {
  findUp,
  holdsPrefix,
  isExitTrailer,
  isLaunchLine,
  isRule,
  lineAt,
  prevNonEmpty,
  screenLines,
  selectByLabel,
  squash,
} from "./_screen.ts";
import { approvalChoice, escapeRegExp, optionLines } from "./_approval.ts";
import type {
  ApprovalDialog,
  ApprovalKind,
  BinarySpec,
  BlockedReason,
  ConfigureGoal,
  ConfigureRules,
  ConfigureStage,
  ConfigureVerdict,
  HarnessAdapter,
  KeyStep,
  LaunchOptions,
  LaunchSpec,
  ModelCatalog,
  ScreenState,
  TranscriptContext,
  TranscriptTurn,
  TurnParser,
} from "./types.ts";

export const claudeBinary: BinarySpec = {
  envOverride: "CLAUDE_BIN",
  standardPaths: ["~/.claude/local/claude", "~/.local/bin/claude"],
  pathNames: ["claude"],
};

/** `--effort` values accepted by Claude Code 2.1.197 (`claude --help`). */
export const CLAUDE_EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;

/**
 * Builds the interactive launch: pinned session id, model, effort, plan mode for read-only, the
 * sub-agent notice appended to the system prompt (`--append-system-prompt`), and fast mode for this
 * session only (`--settings '{"fastMode":…}'`: the `/fast` command would also save it as the user's
 * default for every later session; checked on 2.1.328, docs/harnesses/claude-code.md).
 */
export function buildClaudeLaunch(o: LaunchOptions): LaunchSpec {
  const argv = [o.bin, "--session-id", o.sessionUuid];
  if (o.model) argv.push("--model", o.model);
  if (o.reasoningEffort) argv.push("--effort", o.reasoningEffort);
  if (o.notice) argv.push("--append-system-prompt", o.notice);
  if (o.fast !== null) argv.push("--settings", JSON.stringify({ fastMode: o.fast }));
  let writeScopeEnforcement: LaunchSpec["writeScopeEnforcement"] = null;
  if (o.writeScope === "read-only") {
    argv.push("--permission-mode", "plan");
    writeScopeEnforcement = "enforced_read_only";
  } else if (o.writeScope !== null) {
    writeScopeEnforcement = "declaration_only_unsupported";
  }
  // No image flag exists for the TUI: images are referenced by path in the prompt.
  return {
    argv,
    env: {},
    writeScopeEnforcement,
    pinnedSessionId: o.sessionUuid,
    noticeChannel: o.notice ? "append_system_prompt" : null,
    fastBy: o.fast === true ? "launch_option" : null,
  };
}

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

/** The project directory name Claude Code derives from a (real) cwd, including the long-path hash. */
export function claudeProjectSlug(cwd: string): string {
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, "-");
  if (slug.length <= 200) return slug;
  let h = 0;
  for (let i = 0; i < cwd.length; i++) h = ((h << 5) - h + cwd.charCodeAt(i)) | 0;
  return `${slug.slice(0, 200)}-${Math.abs(h).toString(36)}`;
}

const blocked = (reason: BlockedReason, detail: string | null): ScreenState => ({ kind: "blocked", reason, detail });
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

/** `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<slug>/`: the pinned session file, else recent files. */
export async function locateClaudeTranscripts(ctx: TranscriptContext): Promise<string[]> {
  const home = ctx.env.HOME ?? ctx.env.USERPROFILE ?? "";
  const configDir = ctx.env.CLAUDE_CONFIG_DIR || (home ? join(home, ".claude") : "");
  if (!configDir) return [];
  const dir = join(configDir.normalize("NFC"), "projects", claudeProjectSlug(await realPathOr(ctx.cwd)));
  if (ctx.pinnedSessionId) return [join(dir, `${ctx.pinnedSessionId}.jsonl`)];
  return newestFirst(await jsonlFilesSince(dir, ctx.since));
}

/** Text of a message's content: a string, or its `text` blocks joined. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((b) => isRecord(b) && b.type === "text" && typeof b.text === "string")
    .map((b) => (b as JsonRecord).text as string).join("\n");
}

const LOCAL_COMMAND = /^\s*<(?:command-name|command-message|command-args|local-command-[a-z]+|bash-[a-z]+)>/;
const INTERRUPT = /^\s*\[Request interrupted by user/;

/** A prompt the user typed (not a tool result, meta/caveat record, slash command or interrupt note). */
function isHumanPrompt(r: JsonRecord): boolean {
  if (r.type !== "user" || r.isMeta === true || r.isSidechain === true || r.isCompactSummary === true) return false;
  if (r.toolUseResult !== undefined) return false;
  const origin = rec(r, "origin");
  if (origin && origin.kind !== "human") return false;
  const content = rec(r, "message")?.content;
  if (Array.isArray(content) && content.some((b) => isRecord(b) && b.type === "tool_result")) return false;
  if (typeof content !== "string" && !Array.isArray(content)) return false;
  const text = contentText(content);
  return !LOCAL_COMMAND.test(text) && !INTERRUPT.test(text);
}

interface OpenTurn {
  turn: TranscriptTurn;
  texts: string[];
  apiError: string | null;
  ended: boolean;
}

/**
 * Parses a Claude Code session transcript into turns. A turn starts at a human prompt and ends at
 * `system/turn_duration`, or at an `isApiErrorMessage` assistant record (2.1.328 writes no
 * turn_duration after an API error; 2.1.197 does, and it is then ignored), or at an interrupt note.
 *
 * A prompt submitted while a turn runs is queued by Claude Code (`queue-operation` records). Either it
 * is folded into the running request (`remove`, then a `queued_command` attachment), or it waits for
 * the turn to end (`dequeue`) and is recorded as a new human prompt. Both are a steer of the running
 * turn: the turn stays open while a queued prompt is pending, and a dequeued prompt continues it, so
 * a steer never adds a turn of its own and the turn ends once, after the steer is answered.
 */
export function parseClaudeTurns(text: string): TranscriptTurn[] {
  return parseAllWith(claudeTurnParser(), text);
}

/** The incremental form of {@link parseClaudeTurns}: the same fold, one record at a time. */
export function claudeTurnParser(): TurnParser {
  const turns: TranscriptTurn[] = [];
  let cur: OpenTurn | null = null;
  /** Queued prompts not yet taken (enqueue minus remove/dequeue). */
  let queued = 0;
  /** Prompts taken off the queue that will be recorded as a human prompt continuing the turn. */
  let dequeued = 0;
  const finish = (o: OpenTurn) => {
    // A queued prompt still follows: the turn reached an end record but is not over.
    if (queued > 0 || dequeued > 0) return;
    o.ended = true;
    if (o.apiError !== null) {
      o.turn.status = "error";
      o.turn.error = o.apiError;
    } else {
      o.turn.status = "done";
      o.turn.answer = o.texts.join("\n\n");
    }
  };
  const push = (r: JsonRecord): void => {
    if (r.type === "queue-operation") {
      if (r.operation === "enqueue") queued++;
      else if (r.operation === "remove") queued = Math.max(0, queued - 1);
      else if (r.operation === "dequeue" && queued > 0) {
        queued--;
        if (cur && !cur.ended) dequeued++;
      }
      return;
    }
    if (r.type === "user") {
      if (isHumanPrompt(r)) {
        const id = str(r, "promptId") ?? str(r, "uuid") ?? `prompt-${turns.length}`;
        if (cur && cur.turn.turnId === id) return;
        if (cur && !cur.ended && dequeued > 0) {
          // The queued prompt of a steer: it continues the running turn.
          dequeued = 0;
          cur.apiError = null;
          return;
        }
        queued = 0;
        dequeued = 0;
        const turn: TranscriptTurn = {
          turnId: id,
          index: turns.length,
          prompt: contentText(rec(r, "message")?.content),
          status: "running",
          answer: null,
          error: null,
        };
        turns.push(turn);
        cur = { turn, texts: [], apiError: null, ended: false };
      } else if (cur && !cur.ended && INTERRUPT.test(contentText(rec(r, "message")?.content))) {
        cur.turn.status = "interrupted";
        cur.ended = true;
        queued = 0;
        dequeued = 0;
      }
      return;
    }
    if (!cur || cur.ended) return;
    if (r.type === "assistant") {
      const msg = rec(r, "message");
      const said = contentText(msg?.content);
      if (r.isApiErrorMessage === true) {
        cur.apiError = said || str(r, "error") || "API error";
        finish(cur);
      } else if (str(msg, "model") !== "<synthetic>" && said !== "") {
        cur.texts.push(said);
      }
    } else if (r.type === "system" && r.subtype === "turn_duration") {
      finish(cur);
    }
  };
  return { push, turns: () => turns };
}

// ── Live model catalog: the CLI's own `initialize` answer (stream-json control protocol) ──

/** The `initialize` control request Claude Code answers in `--input-format stream-json` mode. */
const INITIALIZE_ID = "aiterm-models";

/**
 * Reads the catalog out of Claude Code's stream-json output: the `control_response` to the
 * `initialize` request carries `models` (`value`, `resolvedModel`, `displayName`,
 * `supportedEffortLevels`, `supportsFastMode`), the list its `/model` picker offers for this account.
 * `default` (the account's default model) is listed first and is the default.
 * @throws {Error} when no such answer is in `stdout`
 */
export function parseClaudeInitialize(stdout: string): ModelCatalog {
  for (const line of stdout.split("\n")) {
    if (!line.includes('"control_response"')) continue;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      continue;
    }
    const outer = isRecord(msg) ? rec(msg, "response") : null;
    if (!outer || str(outer, "request_id") !== INITIALIZE_ID) continue;
    if (str(outer, "subtype") !== "success") throw new Error(`initialize failed: ${str(outer, "error") ?? "error"}`);
    const raw = rec(outer, "response")?.models;
    if (!Array.isArray(raw)) throw new Error("the initialize answer has no models list");
    const models = raw.filter(isRecord).flatMap((m) => {
      const id = str(m, "value");
      if (!id) return [];
      const levels = Array.isArray(m.supportedEffortLevels) ? m.supportedEffortLevels : [];
      return [{
        id,
        displayName: str(m, "displayName"),
        efforts: levels.filter((e): e is string => typeof e === "string"),
        defaultEffort: null,
        hidden: false,
        fast: m.supportsFastMode === true,
        resolvedModel: str(m, "resolvedModel"),
      }];
    });
    return {
      source: "claude-code-initialize",
      defaultModel: models.find((m) => m.id === "default")?.id ?? null,
      models,
    };
  }
  throw new Error("no answer to the initialize request");
}

/**
 * Runs `claude -p` in stream-json mode and asks it `initialize` (no prompt, no model request; about
 * 0.6 s on 2.1.328). Hooks and MCP servers are off for this run and nothing is saved as a session.
 */
export async function readClaudeModelCatalog(bin: string, env: Record<string, string>): Promise<ModelCatalog> {
  const child = new Deno.Command(bin, {
    args: [
      "-p",
      "--input-format",
      "stream-json",
      "--output-format",
      "stream-json",
      "--verbose",
      "--no-session-persistence",
      "--strict-mcp-config",
      "--settings",
      JSON.stringify({ disableAllHooks: true }),
    ],
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    // Offline (no network at all) 2.1.328 answers only after its own connection attempts time out (~19 s).
    signal: AbortSignal.timeout(30_000),
  }).spawn();
  const request = { type: "control_request", request_id: INITIALIZE_ID, request: { subtype: "initialize" } };
  const stderr = new Response(child.stderr).text().catch(() => "");
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n")).catch(() => {});
  let out = "";
  let answered = false;
  // Read to the end: once the answer is in, closing stdin ends the CLI (its pipes are drained meanwhile).
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    out += chunk;
    if (!answered && out.includes(`"${INITIALIZE_ID}"`) && out.endsWith("\n")) {
      answered = true;
      await writer.close().catch(() => {});
    }
  }
  if (!answered) await writer.close().catch(() => {});
  const status = await child.status;
  try {
    return parseClaudeInitialize(out);
  } catch (err) {
    const why = (await stderr).trim().split("\n").slice(-3).join(" / ");
    throw new Error(`claude initialize (exit ${status.code}): ${(err as Error).message}${why ? `: ${why}` : ""}`);
  }
}

// ── Approval dialogs (agent_approval) ──

/** The permission dialog's footer (2.1.197 and 2.1.328). */
const APPROVAL_FOOTER = /^\s*Esc to cancel(?: · Tab to amend)?\s*$/;
/** The permission question right above the options. */
const APPROVAL_QUESTION = /^Do you want to (?:proceed|make this edit|create|overwrite|allow)\b.*\?$/;
/** Option labels → choice ids. Anything remembered (this session, don't ask again) is never single-shot. */
const CLAUDE_CHOICES: [RegExp, string][] = [
  [/^Yes$/, "approve_once"],
  [/\b(?:during|for) this session\b/i, "approve_session"],
  [/don't ask again|\balways\b/i, "approve_always"],
  [/^No\b/, "deny"],
];

/**
 * The permission dialog that is the live bottom of a Claude Code screen: the footer is the last line,
 * the numbered options and the question sit right above it, and the dialog's text starts under the
 * rule that opens it (`Bash command` / `Tool use … (MCP)` / a file edit). Pure.
 */
export function parseClaudeApproval(screen: string): ApprovalDialog | null {
  const lines = screenLines(screen);
  const foot = prevNonEmpty(lines, lines.length - 1);
  if (foot < 0 || !APPROVAL_FOOTER.test(lineAt(lines, foot))) return null;
  const options = optionLines(lines, prevNonEmpty(lines, foot - 1), "❯");
  if (!options) return null;
  const question = prevNonEmpty(lines, options[0]!.line - 1);
  if (question < 0 || !APPROVAL_QUESTION.test(lineAt(lines, question).trim())) return null;
  const rule = findUp(lines, question - 1, question - 40, /^\s*─{10,}\s*$/);
  const text = lines.slice(rule + 1, question + 1).map((l) => l.trim())
    .filter((l) => l !== "" && !/^╌+$/.test(l));
  const q = lineAt(lines, question);
  const kind: ApprovalKind = text.some((l) => /\(MCP\)$/.test(l))
    ? "mcp_tool"
    : text[0] === "Bash command"
    ? "command"
    : /^(?:Edit|Create|Write|Update) file\b/.test(text[0] ?? "") || /make this edit|create|overwrite/.test(q)
    ? "file_edit"
    : "unknown";
  const selected = options.findIndex((o) => o.marked);
  return {
    kind,
    text,
    choices: options.map((o) => approvalChoice(o, CLAUDE_CHOICES)),
    selected: selected >= 0 ? selected : null,
  };
}

// ── In-place model and effort (agent_configure: `/model <id>`, `/effort <level>`) ──

/** Index of the live composer's upper rule, or -1. */
function composerTop(lines: string[]): number {
  const lower = findUp(lines, lines.length - 1, lines.length - 80, /^\s*─{10,}\s*$/);
  return lower < 0 ? -1 : closesComposer(lines, lower);
}

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
      return classifyClaudeScreen(screen).kind === "ready" && claudeComposerText(screen) === ""
        ? [{ text: command }, { pauseMs: 400 }, { key: "Enter" }]
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

/** The Claude Code adapter. */
export const claude: HarnessAdapter = {
  id: "claude-code",
  provider: "claude",
  binary: claudeBinary,
  efforts: CLAUDE_EFFORTS,
  readOnlyMode: true,
  buildLaunch: buildClaudeLaunch,
  classifyScreen: classifyClaudeScreen,
  answerStartupDialog: answerClaudeStartupDialog,
  submitSteps: [{ pauseMs: 400 }, { key: "Enter" }],
  composerHolds: claudeComposerHolds,
  modelCatalog: readClaudeModelCatalog,
  fastShown: claudeFastShown,
  parseApproval: parseClaudeApproval,
  composerText: claudeComposerText,
  configure: CLAUDE_CONFIGURE,
  transcript: { locate: locateClaudeTranscripts, parseTurns: parseClaudeTurns, parser: claudeTurnParser },
};
