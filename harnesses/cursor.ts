/**
 * Cursor CLI (`cursor-agent`, also installed as `agent`). The CLI could not be installed where this was
 * written: every fact comes from vendor docs, third-party sources or the project's seeds, and each one
 * is listed with its source in docs/harnesses/cursor.md. Composer models (composer-2.5, composer-2.5-fast)
 * are Cursor models run by this harness, not a harness of their own.
 */
import { join } from "node:path";
import { isRecord, newestFirst, parseAllWith, realPathOr, rec, str } from "./_jsonl.ts";
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
import { escapeRegExp, pressInstead } from "./_approval.ts";
import type {
  BinarySpec,
  BlockedReason,
  CatalogModel,
  ConfigureGoal,
  ConfigureRules,
  ConfigureStage,
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

export const cursorBinary: BinarySpec = {
  envOverride: "CURSOR_AGENT_BIN",
  standardPaths: ["~/.local/bin/cursor-agent"],
  pathNames: ["cursor-agent"],
};

/** Enter as the extended keyboard protocol (CSI u) encodes it: `ESC [ 13 u`. The CLI submits on it. */
export const CSI_U_ENTER = "\x1b[13u";

/**
 * Builds the interactive launch. Effort rides on the model id in brackets (`<model>[effort=<e>]`); fast
 * picks the model's `-fast` sibling (composer-2.5 → composer-2.5-fast); read-only is `--mode ask`.
 * Workspace trust is not bypassed with `--trust`: the dialog is answered only with trust_project.
 */
export function buildCursorLaunch(o: LaunchOptions): LaunchSpec {
  const argv = [o.bin];
  let model = o.model;
  if (model && o.fast === true && !/-fast$/.test(model)) model = `${model}-fast`;
  if (model && o.reasoningEffort) model = `${model}[effort=${o.reasoningEffort}]`;
  if (model) argv.push("--model", model);
  let writeScopeEnforcement: LaunchSpec["writeScopeEnforcement"] = null;
  if (o.writeScope === "read-only") {
    argv.push("--mode", "ask");
    writeScopeEnforcement = "enforced_read_only";
  } else if (o.writeScope !== null) {
    writeScopeEnforcement = "declaration_only_unsupported";
  }
  // No system-prompt option is documented for the CLI: the sub-agent notice is typed before the first prompt.
  return {
    argv,
    env: {},
    writeScopeEnforcement,
    pinnedSessionId: null,
    noticeChannel: null,
    fastBy: o.fast === true && model ? "model_variant" : null,
  };
}

const blocked = (reason: BlockedReason, detail: string | null): ScreenState => ({ kind: "blocked", reason, detail });

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
function composerLine(lines: string[], top: number): number {
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
 * The folder id of a workspace under `projects/`: the absolute path with `/` and `.` turned into `-`,
 * runs of `-` collapsed and leading or trailing `-` removed (`/home/me/my.app` → `home-me-my-app`).
 */
export function cursorFolderId(cwd: string): string {
  return cwd.replace(/[/\\.:]/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, "");
}

/** `CURSOR_CONFIG_DIR`, else `~/.cursor`; "" when neither can be derived. */
function cursorRoot(env: Record<string, string | undefined>): string {
  const home = env.HOME ?? env.USERPROFILE ?? "";
  return env.CURSOR_CONFIG_DIR || (home ? join(home, ".cursor") : "");
}

/** `<root>/projects/<folder-id>/agent-transcripts/<chatId>/<chatId>.jsonl` written since launch, newest first. */
export async function locateCursorTranscripts(ctx: TranscriptContext): Promise<string[]> {
  const root = cursorRoot(ctx.env);
  if (!root) return [];
  const found: DatedFile[] = [];
  for (const cwd of new Set([ctx.cwd, await realPathOr(ctx.cwd)])) {
    const base = join(root, "projects", cursorFolderId(cwd), "agent-transcripts");
    try {
      for await (const entry of Deno.readDir(base)) {
        if (!entry.isDirectory) continue;
        if (ctx.pinnedSessionId && entry.name !== ctx.pinnedSessionId) continue;
        const path = join(base, entry.name, `${entry.name}.jsonl`);
        try {
          const mtime = (await Deno.stat(path)).mtime?.getTime() ?? 0;
          if (mtime >= ctx.since) found.push({ path, mtime });
        } catch {
          // no transcript in this chat yet
        }
      }
    } catch {
      // nothing written for this workspace yet
    }
  }
  return newestFirst(found);
}

/** Text of a transcript line's `message.content` text parts. */
function contentText(r: JsonRecord): string | null {
  const content = rec(r, "message")?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const parts = content.filter((c) => isRecord(c) && c.type === "text" && typeof c.text === "string")
    .map((c) => (c as JsonRecord).text as string);
  return parts.length > 0 ? parts.join("\n") : null;
}

/** Removes the `<user_query>` wrapper the CLI puts around user text. */
function unwrapQuery(text: string): string {
  const m = text.match(/<user_query>\n?([\s\S]*?)\n?<\/user_query>/);
  return m ? m[1]! : text;
}

/**
 * Parses a Cursor agent transcript. A user line opens a turn; a user line while that turn is open is
 * text steered into it (the follow-up moved in with "enter steer") and opens nothing. The turn ends at
 * its single `turn_ended` record: `completed` → done with the last assistant text, `error` → error,
 * `aborted` → interrupted.
 */
export function parseCursorTurns(text: string): TranscriptTurn[] {
  return parseAllWith(cursorTurnParser(), text);
}

/** The incremental form of {@link parseCursorTurns}: the same fold, one record at a time. */
export function cursorTurnParser(): TurnParser {
  const turns: TranscriptTurn[] = [];
  let cur: { turn: TranscriptTurn; lastAssistant: string | null } | null = null;
  const push = (r: JsonRecord): void => {
    if (r.role === "user") {
      if (cur) return;
      const prompt = contentText(r);
      cur = {
        turn: {
          turnId: str(r, "generation_id") ?? `turn-${turns.length}`,
          index: turns.length,
          prompt: prompt === null ? null : unwrapQuery(prompt),
          status: "running",
          answer: null,
          error: null,
        },
        lastAssistant: null,
      };
      turns.push(cur.turn);
    } else if (r.role === "assistant") {
      if (cur) cur.lastAssistant = contentText(r) ?? cur.lastAssistant;
    } else if (r.type === "turn_ended") {
      if (!cur) return;
      const status = str(r, "status");
      if (status === "error") {
        cur.turn.status = "error";
        cur.turn.error = str(r, "error") ?? "the Cursor CLI reported an error";
      } else if (status === "aborted") {
        cur.turn.status = "interrupted";
      } else {
        cur.turn.status = "done";
        cur.turn.answer = cur.lastAssistant ?? "";
      }
      cur = null;
    }
  };
  return { push, turns: () => turns };
}

/**
 * Parses `cursor-agent --list-models`: lines `<id> - <Display name>` with `(default)` or `(current)`
 * marks. Effort variants (`<id>[effort=<e>]`) are folded into their base model's efforts, and a model
 * with a `<id>-fast` sibling has a fast tier.
 */
export function parseCursorModelCatalog(stdout: string): ModelCatalog {
  const byId = new Map<string, CatalogModel>();
  let defaultModel: string | null = null;
  for (const line of stdout.split("\n")) {
    const m = line.trim().match(/^([A-Za-z0-9][\w.:/-]*)(?:\[effort=([\w-]+)\])?\s+-\s+(.+)$/);
    if (!m) continue;
    const [, id, effort, rest] = m as unknown as [string, string, string | undefined, string];
    const isDefault = /\((?:default|current)\)/.test(rest);
    const displayName = rest.replace(/\s*\((?:default|current)\)/g, "").trim() || null;
    let model = byId.get(id);
    if (!model) {
      model = {
        id,
        displayName: effort ? null : displayName,
        efforts: [],
        defaultEffort: null,
        hidden: false,
        fast: false,
      };
      byId.set(id, model);
    }
    if (effort) {
      if (!model.efforts.includes(effort)) model.efforts.push(effort);
      if (isDefault) model.defaultEffort = effort;
    } else if (displayName) model.displayName = displayName;
    if (isDefault) defaultModel = id;
  }
  for (const model of byId.values()) if (byId.has(`${model.id}-fast`)) model.fast = true;
  return { source: "cursor-agent-list-models", defaultModel, models: [...byId.values()] };
}

/** Runs `cursor-agent --list-models` (15 s limit) and parses its catalog. */
export async function readCursorModelCatalog(bin: string, env: Record<string, string>): Promise<ModelCatalog> {
  const out = await new Deno.Command(bin, {
    args: ["--list-models"],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(15_000),
  }).output();
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" / ");
    throw new Error(`cursor-agent --list-models failed (exit ${out.code}): ${err}`);
  }
  return parseCursorModelCatalog(new TextDecoder().decode(out.stdout));
}

/**
 * Submit: after the bracketed paste, Enter in the extended keyboard encoding (sent as raw bytes), then a
 * second one. At idle the first starts the turn and the second finds an empty composer (ignored). While
 * a turn runs the first moves the text into the follow-ups area and the second is "enter steer", which
 * moves it into the running turn.
 */
export const CURSOR_SUBMIT_STEPS: KeyStep[] = [
  { pauseMs: 300 },
  { text: CSI_U_ENTER },
  { pauseMs: 400 },
  { text: CSI_U_ENTER },
];

// ── In-place model and effort (agent_configure: `/model <filter>`) ──
// Docs only (the CLI could not be installed): `/model [filter]` opens the model picker pre-filtered.
// The picker's layout, its `›` marker, the effort variants listed as `<id>[effort=<e>]` rows (as in
// `--list-models`) and the model shown first in the footer are this adapter's assumptions, drawn the
// same way by the fake `cursor-agent`; on a CLI that differs the flow fails closed (the row is not
// found, the picker is left with Escape, nothing changes).

/** The picker's footer. */
const PICKER_FOOTER = /^\s*↑\/↓ choose · enter select\b/;
const PICKER_TITLE = /^\s*Select model\s*$/;

/** The model picker that is the live bottom of the screen, or null. */
function cursorPicker(screen: string): { lines: string[]; top: number; foot: number } | null {
  const lines = screenLines(screen);
  const foot = prevNonEmpty(lines, lines.length - 1);
  if (foot < 0 || !PICKER_FOOTER.test(lineAt(lines, foot))) return null;
  for (let i = foot - 1; i >= 0 && i >= foot - 40; i--) {
    if (PICKER_TITLE.test(lineAt(lines, i))) return { lines, top: i, foot };
  }
  return null;
}

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

function cursorConfigureStages(goal: ConfigureGoal): ConfigureStage[] {
  if (!goal.model) return [];
  const target = goal.effort ? `${goal.model}[effort=${goal.effort}]` : goal.model;
  const row = new RegExp(`^\\s*(?:›\\s*)?${escapeRegExp(target)}(?:\\s{2,}|$)`);
  const open: ConfigureStage = {
    name: "open_model_picker",
    keys: (screen) =>
      classifyCursorScreen(screen).kind === "ready" && cursorComposerText(screen) === ""
        ? [{ text: `/model ${target}` }, { pauseMs: 300 }, { text: CSI_U_ENTER }]
        : null,
    check: (screen) => (cursorPicker(screen) ? { kind: "next" } : { kind: "wait" }),
  };
  const pick: ConfigureStage = {
    name: "pick_model",
    keys: (screen) => {
      const p = cursorPicker(screen);
      const steps = p ? selectByLabel(p.lines, p.top + 1, p.foot - 1, "›", row) : null;
      return steps ? pressInstead(steps, [{ text: CSI_U_ENTER }]) : null;
    },
    check: (screen) => {
      if (cursorPicker(screen)) return { kind: "again" };
      const shown = cursorFooterModel(screen);
      if (shown === null) return { kind: "wait" };
      const message = `the footer shows ${shown}`;
      return shown === target
        ? { kind: "done", model: goal.model, effort: goal.effort, persistedDefault: null, message }
        : { kind: "failed", message };
    },
  };
  return [open, pick];
}

/** Cursor's in-place configuration: an effort only together with its model (`<id>[effort=<e>]`). */
export const CURSOR_CONFIGURE: ConfigureRules = {
  effort: "requires_model",
  model: true,
  stages: cursorConfigureStages,
  leave: (screen) => (cursorPicker(screen) ? [{ key: "Escape" }] : null),
};

/** The Cursor CLI adapter. */
export const cursor: HarnessAdapter = {
  id: "cursor-cli",
  provider: "cursor",
  binary: cursorBinary,
  efforts: null,
  readOnlyMode: true,
  effortRequiresModel: true,
  buildLaunch: buildCursorLaunch,
  classifyScreen: classifyCursorScreen,
  answerStartupDialog: answerCursorStartupDialog,
  submitSteps: CURSOR_SUBMIT_STEPS,
  // Steering: text still waiting first in the follow-ups area after submit gets one more "enter steer".
  steerSteps: [{ text: CSI_U_ENTER }],
  steerPlace: (screen, text) => {
    const at = cursorFollowUps(screen).findIndex((f) => holdsPrefix(f, text));
    if (at >= 0) return at === 0 ? "queued" : "queued_behind";
    return cursorComposerHolds(screen, text) ? "composer" : "joined";
  },
  composerHolds: cursorComposerHolds,
  modelCatalog: readCursorModelCatalog,
  composerText: cursorComposerText,
  configure: CURSOR_CONFIGURE,
  transcript: { locate: (ctx) => locateCursorTranscripts(ctx), parseTurns: parseCursorTurns, parser: cursorTurnParser },
};
