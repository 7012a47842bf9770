/** OpenAI Codex CLI (`codex`). Facts, with where each was verified: docs/harnesses/codex-cli.md. */
import { join } from "node:path";
import {
  isRecord,
  jsonlFilesSince,
  newestFirst,
  parseAllWith,
  parseJsonl,
  readFirstLine,
  realPathOr,
  rec,
  str,
} from "./_jsonl.ts";
import type { DatedFile, JsonRecord } from "./_jsonl.ts";
import {
  holdsPrefix,
  isExitTrailer,
  isLaunchLine,
  lineAt,
  prevNonEmpty,
  screenLines,
  selectByLabel,
} from "./_screen.ts";
import { approvalChoice, escapeRegExp, optionLines, pressInstead } from "./_approval.ts";
import type {
  ApprovalDialog,
  ApprovalKind,
  BinarySpec,
  BlockedReason,
  CatalogModel,
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

export const codexBinary: BinarySpec = { envOverride: "CODEX_BIN", standardPaths: [], pathNames: ["codex"] };

/**
 * Builds the interactive launch: `-m`, `-c model_reasoning_effort="…"`, `-s read-only` for read-only, and
 * one `--image=<path>` per image (the `=` form, because `-i` takes several values and would swallow a
 * following positional argument). The sub-agent notice is the session's developer instructions
 * (`-c developer_instructions="…"`, a developer message of its own in every request), and fast mode is
 * `-c service_tier="fast"` (`"default"` for fast:false) for this session only: `/fast` would also write
 * `service_tier` into config.toml. The TUI keeps its default alternate screen (see the facts document).
 */
export function buildCodexLaunch(o: LaunchOptions): LaunchSpec {
  const argv = [o.bin];
  if (o.model) argv.push("-m", o.model);
  if (o.reasoningEffort) argv.push("-c", `model_reasoning_effort="${o.reasoningEffort}"`);
  // A JSON string literal is a TOML basic string (the same escapes), so any notice text survives -c.
  if (o.notice) argv.push("-c", `developer_instructions=${JSON.stringify(o.notice)}`);
  if (o.fast !== null) argv.push("-c", `service_tier="${o.fast ? "fast" : "default"}"`);
  let writeScopeEnforcement: LaunchSpec["writeScopeEnforcement"] = null;
  if (o.writeScope === "read-only") {
    argv.push("-s", "read-only");
    writeScopeEnforcement = "enforced_read_only";
  } else if (o.writeScope !== null) {
    writeScopeEnforcement = "declaration_only_unsupported";
  }
  for (const image of o.images) argv.push(`--image=${image}`);
  return {
    argv,
    env: {},
    writeScopeEnforcement,
    pinnedSessionId: null,
    noticeChannel: o.notice ? "developer_instructions" : null,
    fastBy: o.fast === true ? "launch_option" : null,
  };
}

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

const blocked = (reason: BlockedReason, detail: string | null): ScreenState => ({ kind: "blocked", reason, detail });

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
function liveComposer(lines: string[], top: number): number {
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

/** `YYYY/MM/DD` of `ms` in UTC or local time. */
function dateDir(ms: number, utc: boolean): string {
  const d = new Date(ms);
  const [y, m, day] = utc
    ? [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()]
    : [d.getFullYear(), d.getMonth(), d.getDate()];
  return `${y}/${String(m + 1).padStart(2, "0")}/${String(day).padStart(2, "0")}`;
}

/** `<CODEX_HOME or ~/.codex>/sessions/Y/M/D/rollout-*.jsonl` written since launch for this cwd, newest first. */
export async function locateCodexRollouts(ctx: TranscriptContext, now = Date.now()): Promise<string[]> {
  const home = ctx.env.HOME ?? ctx.env.USERPROFILE ?? "";
  const codexHome = ctx.env.CODEX_HOME || (home ? join(home, ".codex") : "");
  if (!codexHome) return [];
  const cwds = new Set([ctx.cwd, await realPathOr(ctx.cwd)]);
  const days = new Set<string>();
  for (const t of [now, now - 86_400_000, ctx.since]) for (const utc of [true, false]) days.add(dateDir(t, utc));
  const found: DatedFile[] = [];
  for (const day of days) {
    for (
      const f of await jsonlFilesSince(join(codexHome, "sessions", ...day.split("/")), ctx.since, /^rollout-.*\.jsonl$/)
    ) {
      const first = parseJsonl((await readFirstLine(f.path)) ?? "")[0];
      const meta = first?.type === "session_meta" ? rec(first, "payload") : null;
      const cwd = str(meta, "cwd");
      // A session that began before this launch is another launch's, however recently it was written.
      const began = Date.parse(str(meta, "timestamp") ?? "");
      if (cwd !== null && cwds.has(cwd) && !(began < ctx.since)) found.push(f);
    }
  }
  return newestFirst(found);
}

/** Text of Codex content items (`text`, `input_text`, `Text` …). */
function itemsText(content: unknown): string | null {
  if (!Array.isArray(content)) return null;
  const parts = content.filter((c) => isRecord(c) && typeof c.text === "string").map((c) => (c as JsonRecord).text);
  return parts.length > 0 ? parts.join("\n") : null;
}

interface OpenTurn {
  turn: TranscriptTurn;
  lastAgent: string | null;
  ended: boolean;
  /** Opened by a legacy `user_message` before any `task_started`. */
  legacy: boolean;
}

/** Parses a Codex rollout into turns (`task_started` → `task_complete` / `turn_aborted`), both layouts. */
export function parseCodexTurns(text: string): TranscriptTurn[] {
  return parseAllWith(codexTurnParser(), text);
}

/** The incremental form of {@link parseCodexTurns}: the same fold, one record at a time. */
export function codexTurnParser(): TurnParser {
  const turns: TranscriptTurn[] = [];
  const byId = new Map<string, OpenTurn>();
  let cur: OpenTurn | null = null;
  const open = (id: string | null, legacy: boolean): OpenTurn => {
    const turn: TranscriptTurn = {
      turnId: id ?? `turn-${turns.length}`,
      index: turns.length,
      prompt: null,
      status: "running",
      answer: null,
      error: null,
    };
    turns.push(turn);
    const o: OpenTurn = { turn, lastAgent: null, ended: false, legacy };
    byId.set(turn.turnId, o);
    return o;
  };
  const target = (p: JsonRecord): OpenTurn | null => {
    const id = str(p, "turn_id");
    return (id !== null ? byId.get(id) : undefined) ?? (cur && !cur.ended ? cur : null);
  };
  const push = (r: JsonRecord): void => {
    const p = rec(r, "payload");
    if (!p) return;
    if (r.type === "response_item") {
      const kinds = rec(p, "internal_chat_message_metadata_passthrough")?.content_item_kinds;
      const userText = Array.isArray(kinds) && kinds.length === 1 && kinds[0] === "user.text";
      if (cur && !cur.ended && cur.turn.prompt === null && p.role === "user" && userText) {
        cur.turn.prompt = itemsText(p.content);
      }
      return;
    }
    if (r.type !== "event_msg") return;
    const t = target(p);
    switch (p.type) {
      case "task_started": {
        const id = str(p, "turn_id");
        if (cur && !cur.ended && cur.legacy) {
          cur.legacy = false;
          if (id !== null) {
            byId.delete(cur.turn.turnId);
            cur.turn.turnId = id;
            byId.set(id, cur);
          }
        } else cur = open(id, false);
        break;
      }
      case "user_message":
        if (!cur || cur.ended) cur = open(null, true);
        if (cur.turn.prompt === null) cur.turn.prompt = str(p, "message");
        break;
      case "agent_message":
        if (t) t.lastAgent = str(p, "message") ?? t.lastAgent;
        break;
      case "item_completed": {
        const item = rec(p, "item");
        if (t && item?.type === "UserMessage" && t.turn.prompt === null) t.turn.prompt = itemsText(item.content);
        if (t && item?.type === "AgentMessage") t.lastAgent = itemsText(item.content) ?? t.lastAgent;
        break;
      }
      case "task_complete":
        if (!t || t.ended) break;
        t.ended = true;
        if (p.error !== undefined && p.error !== null) {
          t.turn.status = "error";
          t.turn.error = str(p.error, "message") ?? (typeof p.error === "string" ? p.error : JSON.stringify(p.error));
        } else {
          t.turn.status = "done";
          t.turn.answer = str(p, "last_agent_message") ?? t.lastAgent ?? "";
        }
        break;
      case "turn_aborted":
        if (!t || t.ended) break;
        t.ended = true;
        t.turn.status = "interrupted";
        break;
    }
  };
  return { push, turns: () => turns };
}

/** Parses `codex debug models` JSON (stdout; leading non-JSON noise is skipped) into a catalog. */
export function parseCodexModelCatalog(stdout: string): ModelCatalog {
  const start = stdout.indexOf("{");
  const data: unknown = JSON.parse(start >= 0 ? stdout.slice(start) : stdout);
  const raw = isRecord(data) && Array.isArray(data.models) ? data.models.filter(isRecord) : [];
  const models: CatalogModel[] = [];
  let best: { slug: string; priority: number } | null = null;
  for (const m of raw) {
    const slug = str(m, "slug");
    if (!slug) continue;
    const levels = Array.isArray(m.supported_reasoning_levels) ? m.supported_reasoning_levels : [];
    const tiers = Array.isArray(m.additional_speed_tiers) ? m.additional_speed_tiers : [];
    const service = Array.isArray(m.service_tiers) ? m.service_tiers.filter(isRecord) : [];
    const hidden = str(m, "visibility") !== "list";
    models.push({
      id: slug,
      displayName: str(m, "display_name"),
      efforts: levels.map((l) => str(l, "effort")).filter((e): e is string => e !== null),
      defaultEffort: str(m, "default_reasoning_level"),
      hidden,
      fast: tiers.includes("fast") || service.some((s) => /^fast$/i.test(str(s, "name") ?? "") || s.id === "fast"),
    });
    const priority = typeof m.priority === "number" ? m.priority : Infinity;
    if (!hidden && (best === null || priority < best.priority)) best = { slug, priority };
  }
  return { source: "codex-debug-models", defaultModel: best?.slug ?? null, models };
}

/** Runs `codex debug models` (15 s limit) and parses its catalog. */
export async function readCodexModelCatalog(bin: string, env: Record<string, string>): Promise<ModelCatalog> {
  const out = await new Deno.Command(bin, {
    args: ["debug", "models"],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(15_000),
  }).output();
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" / ");
    throw new Error(`codex debug models failed (exit ${out.code}): ${err}`);
  }
  return parseCodexModelCatalog(new TextDecoder().decode(out.stdout));
}

// ── Approval dialogs (agent_approval) ──

/** Footers of Codex's approval views: command and edit approvals (0.169.0), the MCP tool approval (0.171.0). */
const APPROVAL_FOOTER = /^\s*(?:Press enter to confirm or esc to cancel|enter to submit \| esc to cancel)\s*$/;
/** Titles of Codex's approval views and what each one asks about. */
const APPROVAL_TITLES: [RegExp, ApprovalKind][] = [
  [/^Would you like to run the following command\?/, "command"],
  [/^Allow the .+ MCP server to run tool\b/, "mcp_tool"],
  [/^Would you like to make the following edits\?/, "file_edit"],
];
/** Option labels → choice ids. Anything remembered (session, prefix rule, always) is never single-shot. */
const CODEX_CHOICES: [RegExp, string][] = [
  [/^(?:Yes, proceed|Allow)$/, "approve_once"],
  [/for this session\b/i, "approve_session"],
  [/^Always allow\b|don't ask again/i, "approve_always"],
  [/^(?:No\b|Cancel$)/, "deny"],
];
/** A transcript cell (`• Running …`, `✔ You approved …`) in column 0: never part of a dialog. */
const HISTORY_CELL = /^[•◦✔✗■›]/;

/**
 * The approval dialog that is the live bottom of a Codex screen: its footer is the last line, the
 * numbered options sit right above it, and its title (the question) above those. A dialog left in
 * scrollback has something under its footer and is not read.
 */
export function parseCodexApproval(screen: string): ApprovalDialog | null {
  const lines = screenLines(screen);
  const foot = prevNonEmpty(lines, lines.length - 1);
  if (foot < 0 || !APPROVAL_FOOTER.test(lineAt(lines, foot))) return null;
  const options = optionLines(lines, prevNonEmpty(lines, foot - 1), "›");
  if (!options) return null;
  const first = options[0]!.line;
  let top = -1;
  let kind: ApprovalKind = "unknown";
  for (let i = first - 1; i >= 0 && i >= first - 40; i--) {
    if (HISTORY_CELL.test(lineAt(lines, i))) break;
    const title = APPROVAL_TITLES.find(([re]) => re.test(lineAt(lines, i).trim()));
    if (title) {
      [top, kind] = [i, title[1]];
      break;
    }
  }
  if (top < 0) {
    // No known title: the text is what lies between the last transcript cell and the options.
    top = first;
    while (top > 0 && top > first - 15 && !HISTORY_CELL.test(lineAt(lines, top - 1))) top--;
  }
  const selected = options.findIndex((o) => o.marked);
  return {
    kind,
    text: lines.slice(top, first).map((l) => l.trim()).filter((l) => l !== ""),
    choices: options.map((o) => approvalChoice(o, CODEX_CHOICES)),
    selected: selected >= 0 ? selected : null,
  };
}

// ── In-place model and effort (agent_configure, the `/model` picker) ──

/** Footers of the `/model` views: `enter select · esc back`, `enter default · s session · esc back`. */
const PICKER_FOOTER = /^\s*enter \w+(?: · s session)? · esc back\s*$/;
/** Titles of the `/model` views. */
const PICKER_TITLES: [RegExp, "model" | "effort" | "advanced"][] = [
  [/^\s*Select Model and Effort\s*$/, "model"],
  [/^\s*Select Reasoning Level\b/, "effort"],
  [/^\s*Advanced Reasoning\s*$/, "advanced"],
];
/** How the reasoning views label each effort (0.169.0); max and ultra sit behind "More reasoning…". */
export const CODEX_EFFORT_LABELS: Record<string, string> = {
  none: "None",
  minimal: "Minimal",
  low: "Low",
  medium: "Medium",
  high: "High",
  xhigh: "Extra high",
  max: "Max",
  ultra: "Ultra",
};
const ADVANCED_EFFORTS = new Set(["max", "ultra"]);
/** The line Codex prints once a model/effort is applied. */
const MODEL_CHANGED = /^• Model changed to (\S+)(?: (\S+))?( for this session only)?\s*$/;

/** The `/model` view that is the live bottom of the screen, or null. */
function codexPicker(
  screen: string,
): { view: "model" | "effort" | "advanced"; lines: string[]; top: number; foot: number } | null {
  const lines = screenLines(screen);
  const foot = prevNonEmpty(lines, lines.length - 1);
  if (foot < 0 || !PICKER_FOOTER.test(lineAt(lines, foot))) return null;
  for (let i = foot - 1; i >= 0 && i >= foot - 30; i--) {
    const title = PICKER_TITLES.find(([re]) => re.test(lineAt(lines, i)));
    if (title) return { view: title[1], lines, top: i, foot };
  }
  return null;
}

/** A picker row whose name column is exactly `label` (optionally marked "(default)" or "(current)"). */
function pickerRow(label: string): RegExp {
  return new RegExp(`^\\s*(?:›\\s*)?\\d+\\.\\s+${escapeRegExp(label)}(?: \\((?:default|current)\\))*(?:\\s{2,}|$)`);
}
const CURRENT_ROW = /^\s*(?:›\s*)?\d+\.\s+\S.*? \(current\)(?:\s{2,}|$)/;
const MORE_ROW = /^\s*(?:›\s*)?\d+\.\s+More reasoning\b/;

/** Keys that put the selection on the row matching `row` (scrolling the list when needed), then `press`. */
function pickRow(p: NonNullable<ReturnType<typeof codexPicker>>, row: RegExp, press: KeyStep[]): KeyStep[] | null {
  const { lines, top, foot } = p;
  const steps = selectByLabel(lines, top + 1, foot - 1, "›", row);
  if (steps) return pressInstead(steps, press);
  if (lines.slice(top + 1, foot).some((l) => row.test(l))) return null;
  // Not in view: the list scrolls when the selection moves past its edge (`↓`/`↑` mark more rows).
  const rows = lines.slice(top + 1, foot).filter((l) => /^\s*(?:›\s*)?\d+\.\s/.test(l)).length;
  const more = lines.slice(top + 1, foot).find((l) => /^\s*[↓↑]\s*$/.test(l))?.trim();
  if (!more || rows === 0) return null;
  return [...Array.from({ length: rows }, () => ({ key: more === "↓" ? "Down" : "Up" })), { pauseMs: 200 }];
}

/** Reads the confirmation after the picker closed: done when it matches the goal, else failed. */
function modelChanged(screen: string, goal: ConfigureGoal): ConfigureVerdict {
  if (codexPicker(screen)) return { kind: "again" };
  const lines = screenLines(screen);
  const at = lines.findLastIndex((l) => MODEL_CHANGED.test(l));
  if (at < 0 || liveComposer(lines, lines.length - 1) < 0) return { kind: "wait" };
  const m = lineAt(lines, at).match(MODEL_CHANGED)!;
  const message = lineAt(lines, at).replace(/^•\s*/, "").trim();
  if ((goal.model && m[1] !== goal.model) || (goal.effort && m[2] !== goal.effort)) {
    return { kind: "failed", message: `the picker closed with: ${message}` };
  }
  return { kind: "done", model: m[1] ?? null, effort: m[2] ?? null, persistedDefault: !m[3], message };
}

/**
 * `/model` opens "Select Model and Effort" (rows by display name, the running one marked "(current)"),
 * then "Select Reasoning Level for <name>" (max and ultra behind "More reasoning…" → "Advanced
 * Reasoning"). Every selection moves the marker and presses only once the screen shows it on the row;
 * the effort is applied with `s` ("for this session only"), never Enter, which would also save it as
 * the user's default in config.toml. An effort alone keeps the "(current)" model.
 */
function codexConfigureStages(goal: ConfigureGoal): ConfigureStage[] {
  const open: ConfigureStage = {
    name: "open_model_picker",
    keys: (screen) =>
      codexComposerText(screen) === "" && classifyCodexScreen(screen).kind === "ready"
        ? [{ text: "/model" }, { pauseMs: 500 }, { key: "Enter" }]
        : null,
    check: (screen) => (codexPicker(screen)?.view === "model" ? { kind: "next" } : { kind: "wait" }),
  };
  const model: ConfigureStage = {
    name: "pick_model",
    keys: (screen) => {
      const p = codexPicker(screen);
      if (p?.view !== "model") return null;
      return pickRow(p, goal.modelLabel ? pickerRow(goal.modelLabel) : CURRENT_ROW, [{ key: "Enter" }]);
    },
    check: (screen) => {
      const view = codexPicker(screen)?.view;
      if (view === "model") return { kind: "again" };
      if (view === "effort") return { kind: "next" };
      return modelChanged(screen, goal); // a model without reasoning levels is applied at once
    },
  };
  const effort: ConfigureStage = {
    name: "pick_effort",
    keys: (screen) => {
      const p = codexPicker(screen);
      if (!p || p.view === "model") return null;
      // Without an effort asked for, the one in use stays when this model lists it in this view;
      // otherwise the level the view has selected (the model's default) is applied.
      const rows = p.lines.slice(p.top + 1, p.foot);
      const cur = goal.currentEffort;
      const kept = cur !== null && CODEX_EFFORT_LABELS[cur] &&
        rows.some((l) =>
          pickerRow(CODEX_EFFORT_LABELS[cur]!).test(l) || (ADVANCED_EFFORTS.has(cur) && MORE_ROW.test(l))
        );
      const want = goal.effort ?? (kept ? cur : null);
      if (want === null) return [{ key: "s" }];
      const label = CODEX_EFFORT_LABELS[want];
      if (!label) return null;
      if (p.view === "effort" && ADVANCED_EFFORTS.has(want)) {
        return pickRow(p, MORE_ROW, [{ key: "Enter" }]);
      }
      return pickRow(p, pickerRow(label), [{ key: "s" }]);
    },
    check: (screen) => modelChanged(screen, goal),
  };
  return [open, model, effort];
}

/** Codex's in-place configuration through its `/model` picker. */
export const CODEX_CONFIGURE: ConfigureRules = {
  effort: "supported",
  model: true,
  stages: codexConfigureStages,
  leave: (screen) => (codexPicker(screen) ? [{ key: "Escape" }] : null),
};

/** The Codex CLI adapter. */
export const codex: HarnessAdapter = {
  id: "codex-cli",
  provider: "codex",
  binary: codexBinary,
  efforts: null,
  readOnlyMode: true,
  buildLaunch: buildCodexLaunch,
  classifyScreen: classifyCodexScreen,
  answerStartupDialog: answerCodexStartupDialog,
  submitSteps: [{ pauseMs: 700 }, { key: "Enter" }],
  composerHolds: codexComposerHolds,
  modelCatalog: readCodexModelCatalog,
  fastShown: codexFastShown,
  parseApproval: parseCodexApproval,
  composerText: codexComposerText,
  configure: CODEX_CONFIGURE,
  transcript: { locate: (ctx) => locateCodexRollouts(ctx), parseTurns: parseCodexTurns, parser: codexTurnParser },
};
