/** xAI Grok Build CLI (`grok`). Facts, with where each was verified: docs/harnesses/grok.md. */
import { join } from "node:path";
import { parseAllWith, realPathOr, rec, str } from "./_jsonl.ts";
import type { JsonRecord } from "./_jsonl.ts";
import { holdsPrefix, isExitTrailer, isLaunchLine, lineAt, prevNonEmpty, screenLines, squash } from "./_screen.ts";
import type {
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

export const grokBinary: BinarySpec = {
  envOverride: "GROK_BIN",
  standardPaths: ["~/.grok/bin/grok"],
  pathNames: ["grok"],
};

/** Reasoning efforts `--reasoning-effort` documents (the catalog lists none per model). */
export const GROK_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;

/**
 * Builds the interactive launch: `--trust` (the CLI's own folder-trust bypass), `-s <uuid>` to pin a
 * new session id, `-m`, `--reasoning-effort`, and `--sandbox read-only` for write_scope "read-only".
 * Images are not passed on the command line (Grok Build has no image flag).
 */
export function buildGrokLaunch(o: LaunchOptions): LaunchSpec {
  const argv = [o.bin, "--trust", "-s", o.sessionUuid];
  if (o.model) argv.push("-m", o.model);
  if (o.reasoningEffort) argv.push("--reasoning-effort", o.reasoningEffort);
  // `--rules`: "extra rules to append to the system prompt" (1.0.41); the sub-agent notice goes there.
  if (o.notice) argv.push("--rules", o.notice);
  let writeScopeEnforcement: LaunchSpec["writeScopeEnforcement"] = null;
  if (o.writeScope === "read-only") {
    argv.push("--sandbox", "read-only");
    writeScopeEnforcement = "enforced_read_only";
  } else if (o.writeScope !== null) {
    writeScopeEnforcement = "declaration_only_unsupported";
  }
  // Grok Build has no fast mode (every model of its catalog says so; fast:true is refused before launch).
  return {
    argv,
    env: {},
    writeScopeEnforcement,
    pinnedSessionId: o.sessionUuid,
    noticeChannel: o.notice ? "rules" : null,
    fastBy: null,
  };
}

const blocked = (reason: BlockedReason, detail: string | null): ScreenState => ({ kind: "blocked", reason, detail });

/** The composer's key-hint footer (idle, draft, suggestion and busy variants all carry `Shift+Tab:mode`). */
const FOOTER = /Shift\+Tab:mode\s+│.*Ctrl\+x:shortcuts|^\s+Logged in with (?:API key|\S+)/;
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
function composerBox(lines: string[], footer: number): { top: number; bottom: number } | null {
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

/** The footer while prompts wait in the queue and the composer is empty: Enter sends the first one now. */
const SEND_NOW_FOOTER = /^\s*Enter:send now\s+│/;
/** A queued prompt row above the in-progress line: `#1 <first line>`, then ` (+N lines)` or a cut-off `…`. */
const QUEUE_ROW = /^\s+#(\d+) (.+)$/;

/** Prompts waiting in Grok's queue (rows `#1 …` above the in-progress line), in order; and whether Enter sends now. */
export function grokQueue(screen: string): { rows: string[]; sendNow: boolean } {
  const lines = screenLines(screen);
  const top = lines.length - 1;
  for (let i = top; i >= 0 && i >= top - 3; i--) {
    const footer = lineAt(lines, i);
    if (!FOOTER.test(footer)) continue;
    const box = composerBox(lines, i);
    if (!box) break;
    // Between the composer and the rows: at most the in-progress line and a hint (`Queued · Enter to send now`).
    const rows: { n: number; text: string }[] = [];
    let others = 0;
    for (let j = box.top - 1; j >= 0 && others <= 2; j--) {
      const l = lineAt(lines, j);
      if (l.trim() === "") continue;
      const m = l.match(QUEUE_ROW);
      if (m) rows.push({ n: Number(m[1]), text: m[2]!.trim() });
      else if (rows.length > 0) break; // the rows are one block; anything above them is the conversation
      else others++;
    }
    rows.sort((a, b) => a.n - b.n);
    return { rows: rows.map((r) => r.text), sendNow: SEND_NOW_FOOTER.test(footer) };
  }
  return { rows: [], sendNow: false };
}

/** Whether a queue row shows `text`: its first line, whole or cut off with `…`, with an optional ` (+N lines)`. */
export function grokQueueRowShows(row: string, text: string): boolean {
  const first = squash(text.split("\n").find((l) => l.trim() !== "") ?? "");
  const shown = squash(row.replace(/\s*\(\+\d+ lines?\)$/, ""));
  if (first === "" || shown === "") return false;
  if (shown.endsWith("…")) {
    const head = shown.slice(0, -1).trimEnd();
    return head !== "" && first.startsWith(head);
  }
  return shown === first;
}

/**
 * Where a steer's text is after paste + Enter while a turn runs: Enter puts it in Grok's queue, and only
 * as the first row with the `Enter:send now` footer will the steer step (Enter) send it now. Grok never
 * shows it joined on screen: that is confirmed from the transcript (`steers`).
 */
export function grokSteerPlace(screen: string, text: string): "composer" | "queued" | "queued_behind" | "unseen" {
  if (grokComposerHolds(screen, text)) return "composer";
  const q = grokQueue(screen);
  const at = q.rows.findIndex((r) => grokQueueRowShows(r, text));
  if (at === 0 && q.sendNow) return "queued";
  return at >= 0 ? "queued_behind" : "unseen";
}

/** The footer of Grok's question card (the usage-limit card is one): `Tab:next answer │ … │ Shift+x:dismiss`. */
const CARD_FOOTER = /^\s*Tab:next answer\s+│.*Shift\+x:dismiss\s*$/;
/** Headings of the usage-limit card (weekly seen with 1.0.41 after an HTTP 402; the others are its siblings in the binary). */
const LIMIT_HEADING =
  /^(?:You hit your weekly limit\.|You hit your free usage limit\.|You've hit the credit limit for your plan\.|You've hit your spending cap\.)$/;

/**
 * The usage-limit card when it is the current bottom of the screen: the `┃` card whose first line is a
 * limit heading, with the card footer as the last line. A card with anything drawn under it (scrollback,
 * a later composer) is not the current one. Returns the heading, or null.
 */
export function grokRateLimitDialog(screen: string): string | null {
  const lines = screenLines(screen);
  const footer = prevNonEmpty(lines, lines.length - 1);
  if (footer < 0 || !CARD_FOOTER.test(lineAt(lines, footer))) return null;
  const bottom = prevNonEmpty(lines, footer - 1);
  let top = bottom;
  while (top >= 0 && /^\s*┃/.test(lineAt(lines, top))) top--;
  const body = lines.slice(top + 1, bottom + 1).map((l) => l.replace(/^\s*┃/, "").trim()).filter((l) => l !== "");
  const heading = body[0] ?? "";
  return LIMIT_HEADING.test(heading) ? heading : null;
}

/** Shift+x dismisses the usage-limit card (its footer says so); null when the card is not the current screen. */
export function dismissGrokRateLimitDialog(screen: string): KeyStep[] | null {
  return grokRateLimitDialog(screen) ? [{ key: "X" }] : null;
}

/**
 * The CLI's refusal to start its sandbox (`--sandbox read-only`), printed as `error: …` lines before any TUI
 * and followed by exit 1 (real 1.0.41: `error: sandbox profile resolve failed: symlinked GROK_HOME is not
 * allowed …` / `error: this sandbox could not enforce its deny list on Linux: … Refusing to start with denied
 * paths unprotected.`). Returns the error lines without their `error:` prefix, joined by ` / `; else null.
 */
export function grokSandboxRefusal(screen: string): string | null {
  const errors = screenLines(screen).map((l) => l.trim()).filter((l) => /^error: /.test(l));
  if (!errors.some((l) => /sandbox|bwrap/i.test(l)) || !errors.some((l) => /refus/i.test(l))) return null;
  return errors.map((l) => l.replace(/^error:\s*/, "")).join(" / ");
}

/** Percent-encodes a path the way Grok Build names its per-cwd session folder (RFC 3986 unreserved kept). */
export function grokCwdKey(cwd: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(cwd)) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** GROK_HOME, else `~/.grok` (the CLI canonicalises it; so does this). */
async function grokHome(env: Record<string, string | undefined>): Promise<string | null> {
  if (env.GROK_HOME) return await realPathOr(env.GROK_HOME);
  const home = env.HOME ?? env.USERPROFILE ?? "";
  return home ? join(await realPathOr(home), ".grok") : null;
}

/**
 * The session folder of a launch: `<GROK_HOME>/sessions/<percent-encoded realpath cwd>/<session id>/`.
 * Shared by the turn waiter and the answer reader (both go through {@link locateGrokTranscript}).
 */
export async function grokSessionDir(
  env: Record<string, string | undefined>,
  cwd: string,
  sessionId: string,
): Promise<string | null> {
  const home = await grokHome(env);
  if (!home) return null;
  return join(home, "sessions", grokCwdKey(await realPathOr(cwd)), sessionId);
}

/** `updates.jsonl` of the pinned session (empty before the CLI created it, or without a pinned id). */
export async function locateGrokTranscript(ctx: TranscriptContext): Promise<string[]> {
  if (!ctx.pinnedSessionId) return [];
  const dir = await grokSessionDir(ctx.env, ctx.cwd, ctx.pinnedSessionId);
  if (!dir) return [];
  const path = join(dir, "updates.jsonl");
  try {
    return (await Deno.stat(path)).isFile ? [path] : [];
  } catch {
    return [];
  }
}

interface OpenTurn {
  turn: TranscriptTurn;
  promptId: string | null;
  /** Agent text since the last tool call (the final message of the turn). */
  text: string;
  ended: boolean;
  /** Ended by "send now": the next prompt continues this turn. */
  seam: boolean;
}

/** Sequence number of `_meta.eventId` (`<session>-<n>`), or null. */
function eventSeq(r: JsonRecord): number | null {
  const id = str(rec(rec(r, "params"), "_meta"), "eventId");
  const m = id?.match(/-(\d+)$/);
  return m ? Number(m[1]) : null;
}

/**
 * A `turn_completed` that "send now" wrote: `stop_reason:"cancelled"` with `_meta.cancelTrigger:"send_now"`
 * (real 1.0.41; events.jsonl says the same as `cancellation_context.trigger`).
 */
function isSendNowCancel(update: JsonRecord, meta: JsonRecord | null): boolean {
  if (!/cancel/i.test(str(update, "stop_reason") ?? "")) return false;
  return str(meta, "cancelTrigger") === "send_now" ||
    str(rec(update, "cancellation_context"), "trigger") === "send_now";
}

/**
 * Parses `updates.jsonl` into turns. A turn opens at `user_message_chunk` (`_meta.promptIndex` is the
 * turn id, the same number as chat_history's `prompt_index`); records carrying a prompt id
 * (`agent_message_chunk` `_meta.promptId`, `turn_completed.prompt_id`, hook records) bind that id to
 * the oldest open turn without one, so a turn's end is matched by id even when the next prompt's
 * records come first. `turn_completed` ends it: `stop_reason:"error"` → error (`agent_result`),
 * `cancelled` → interrupted, anything else → done with the last agent message as the answer.
 * Records are taken in `_meta.eventId` order (the CLI writes some out of order).
 *
 * A steer is one turn: "send now" closes the running prompt as cancelled (trigger `send_now`) and the
 * queued text runs as the next prompt, which continues the work. Such a seam is not an end: the next
 * prompt is merged into the turn (its end, answer or error become the turn's), `steers` counts the
 * seams, and the turn stays `running` until the continuation ends. So one completion boundary remains.
 */
export function parseGrokTurns(text: string): TranscriptTurn[] {
  return parseAllWith(grokTurnParser(), text);
}

/** A record with its line ordinal and the event number it is folded by (see {@link grokTurnParser}). */
interface KeyedRecord {
  r: JsonRecord;
  i: number;
  key: number;
}

/** The fold's state: the raw prompts so far and the prompt ids bound to them. */
interface GrokFold {
  raw: OpenTurn[];
  byPrompt: Map<string, OpenTurn>;
}

/** Records still folded on a copy at every `turns()`: late events land among them (seen ≤ 4 apart). */
const REORDER_WINDOW = 64;

/** Folds one record into `s` (in `_meta.eventId` order; see {@link parseGrokTurns}). */
function foldGrokRecord(s: GrokFold, r: JsonRecord): void {
  const bind = (promptId: string | null): OpenTurn | null => {
    if (promptId === null) return null;
    const known = s.byPrompt.get(promptId);
    if (known) return known;
    const t = s.raw.find((o) => o.promptId === null && !o.ended);
    if (!t) return null;
    t.promptId = promptId;
    s.byPrompt.set(promptId, t);
    return t;
  };
  const params = rec(r, "params");
  const u = rec(params, "update");
  if (!u) return;
  const kind = str(u, "sessionUpdate");
  const meta = rec(params, "_meta");
  if (kind === "user_message_chunk") {
    const index = rec(u, "_meta")?.promptIndex;
    const prompt = str(rec(u, "content"), "text");
    const last = s.raw[s.raw.length - 1];
    const id = typeof index === "number" ? String(index) : `prompt-${s.raw.length}`;
    if (last && last.turn.turnId === id) {
      if (prompt !== null) last.turn.prompt = (last.turn.prompt ?? "") + prompt;
      return;
    }
    const turn: TranscriptTurn = {
      turnId: id,
      index: s.raw.length,
      prompt,
      status: "running",
      answer: null,
      error: null,
    };
    s.raw.push({ turn, promptId: null, text: "", ended: false, seam: false });
    return;
  }
  if (kind === "agent_message_chunk") {
    const t = bind(str(meta, "promptId"));
    const chunk = str(rec(u, "content"), "text");
    if (t && !t.ended && chunk !== null) t.text += chunk;
    return;
  }
  if (kind === "tool_call") {
    const t = bind(str(meta, "promptId"));
    if (t && !t.ended) t.text = "";
    return;
  }
  if (kind === "turn_completed") {
    const t = bind(str(u, "prompt_id"));
    if (!t || t.ended) return;
    t.ended = true;
    const reason = str(u, "stop_reason") ?? "";
    if (reason === "error") {
      t.turn.status = "error";
      t.turn.error = str(u, "agent_result") ?? "error";
    } else if (isSendNowCancel(u, meta)) {
      t.seam = true;
    } else if (/cancel/i.test(reason)) {
      t.turn.status = "interrupted";
    } else {
      t.turn.status = "done";
      t.turn.answer = t.text;
    }
  }
}

/** A copy of a fold that can take more records without changing the original. */
function copyFold(s: GrokFold): GrokFold {
  const map = new Map<OpenTurn, OpenTurn>();
  const raw = s.raw.map((o) => {
    const c = { ...o, turn: { ...o.turn } };
    map.set(o, c);
    return c;
  });
  return { raw, byPrompt: new Map([...s.byPrompt].map(([k, o]) => [k, map.get(o)!])) };
}

/**
 * The incremental form of {@link parseGrokTurns}. Records are folded in event order: by their
 * `_meta.eventId` number (a record without one takes the number of the record before it), ties in
 * file order. The newest {@link REORDER_WINDOW} records are kept sorted and folded on a copy at each
 * `turns()`, so an event the CLI wrote late lands in its place; older ones are folded for good. An
 * event later than the whole window (never seen) folds everything again. A whole-file parse is the
 * same fold, so both always agree.
 */
export function grokTurnParser(): TurnParser {
  const all: KeyedRecord[] = [];
  let fold: GrokFold = { raw: [], byPrompt: new Map() };
  let window: KeyedRecord[] = [];
  let foldedKey = -Infinity;
  let lastKey = -Infinity;
  let snapshot: TranscriptTurn[] | null = [];
  const commit = (k: KeyedRecord) => {
    foldGrokRecord(fold, k.r);
    foldedKey = Math.max(foldedKey, k.key);
  };
  const refoldAll = () => {
    const sorted = [...all].sort((a, b) => a.key - b.key || a.i - b.i);
    fold = { raw: [], byPrompt: new Map() };
    foldedKey = -Infinity;
    const cut = Math.max(0, sorted.length - REORDER_WINDOW);
    for (const k of sorted.slice(0, cut)) commit(k);
    window = sorted.slice(cut);
  };
  const push = (r: JsonRecord): void => {
    const seq = eventSeq(r);
    const key = seq ?? lastKey;
    lastKey = key;
    const k: KeyedRecord = { r, i: all.length, key };
    all.push(k);
    snapshot = null;
    if (key < foldedKey) {
      refoldAll();
      return;
    }
    let at = window.length;
    while (at > 0 && window[at - 1]!.key > key) at--;
    window.splice(at, 0, k);
    while (window.length > REORDER_WINDOW) commit(window.shift()!);
  };
  const turns = (): TranscriptTurn[] => {
    if (snapshot) return snapshot;
    const view = copyFold(fold);
    for (const k of window) foldGrokRecord(view, k.r);
    snapshot = mergeSendNowSeams(view.raw);
    return snapshot;
  };
  return { push, turns };
}

/** Folds each prompt that follows a "send now" seam into the turn the seam cut (see {@link parseGrokTurns}). */
function mergeSendNowSeams(raw: OpenTurn[]): TranscriptTurn[] {
  const turns: TranscriptTurn[] = [];
  let open: { turn: TranscriptTurn; seam: boolean } | null = null;
  for (const o of raw) {
    if (open?.seam) {
      const { status, answer, error } = o.turn;
      Object.assign(open.turn, { status, answer, error });
      open.seam = o.seam;
      if (o.seam) open.turn.steers = (open.turn.steers ?? 0) + 1;
      continue;
    }
    const turn: TranscriptTurn = { ...o.turn, index: turns.length, steers: o.seam ? 1 : 0 };
    turns.push(turn);
    open = { turn, seam: o.seam };
  }
  return turns;
}

/** Parses `grok models` (`Default model: X` / `Available models:` / `  - id` / `  * id (default)`). */
export function parseGrokModelCatalog(stdout: string): ModelCatalog {
  let defaultModel: string | null = null;
  const models: CatalogModel[] = [];
  let inList = false;
  for (const raw of stdout.split("\n")) {
    const line = raw.trimEnd();
    const d = line.match(/^Default model:\s*(\S+)/);
    if (d) defaultModel = d[1]!;
    if (/^Available models:/.test(line)) {
      inList = true;
      continue;
    }
    if (!inList) continue;
    const m = line.match(/^\s+[-*]\s+(\S+)(\s+\(default\))?\s*$/);
    if (!m) continue;
    models.push({ id: m[1]!, displayName: null, efforts: [], defaultEffort: null, hidden: false, fast: false });
    if (m[2] && defaultModel === null) defaultModel = m[1]!;
  }
  return { source: "grok-models", defaultModel, models };
}

/** Runs `grok models` (20 s limit) and parses its catalog. */
export async function readGrokModelCatalog(bin: string, env: Record<string, string>): Promise<ModelCatalog> {
  const out = await new Deno.Command(bin, {
    args: ["models"],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(20_000),
  }).output();
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" / ");
    throw new Error(`grok models failed (exit ${out.code}): ${err}`);
  }
  return parseGrokModelCatalog(new TextDecoder().decode(out.stdout));
}

// ── In-place model and effort (agent_configure: `/model <id> [effort]`, `/effort <level>`) ──

/** The key-hint footer after one Escape on a typed composer (a second Escape clears it). */
const ESC_ARMED_FOOTER = /^\s*Esc:press again to clear\s*$/;
/** A rule of the completion list drawn over the composer (the top one ends with the row count: `──…─4─`). */
const COMPLETION_RULE = /^\s*─{20,}(?:\d+─)?\s*$/;
/** Scroll marks drawn at the right edge or alone on a line (`█`, `▲`, `▼`); they are not text. */
const SCROLL_MARKS = /\s*[█▲▼]\s*$/;
/** The toast a bare `/model <id>` answers with (right-aligned above the composer; it fades after a few seconds). */
const DEFAULT_MODEL_TOAST = /^\s*✓ Default model: (.+?)\s*$/;
/** The notice `/model <id> <effort>` and `/effort <level>` append to the conversation. */
const SWITCHED_NOTICE = /^Switched to (.+?)(?: \((\S+) effort\))?$/;
/** Notices that refuse the change (1.0.41 wording, the first three seen on the real CLI, the rest from its binary). */
const REFUSED_NOTICE =
  /^(?:Unknown model: |unknown effort level |current model does not support reasoning effort|Couldn't switch model: |Couldn't apply reasoning effort: |invalid reasoning effort: )/;

/** The live composer of a Grok screen: its box, the model label on its lower border, and whether a completion list is open. */
function grokLiveComposer(
  screen: string,
): { lines: string[]; top: number; label: string | null; completion: boolean; armed: boolean } | null {
  const lines = screenLines(screen);
  const last = lines.length - 1;
  for (let i = last; i >= 0 && i >= last - 3; i--) {
    const l = lineAt(lines, i);
    const armed = ESC_ARMED_FOOTER.test(l);
    if (!armed && !FOOTER.test(l)) continue;
    const box = composerBox(lines, i);
    if (!box) return null;
    const label = lineAt(lines, box.bottom).match(/─ (\S(?:.*\S)?) ─╯\s*$/)?.[1] ?? null;
    const above = lineAt(lines, prevNonEmpty(lines, box.top - 1)).replace(SCROLL_MARKS, "");
    return { lines, top: box.top, label, completion: COMPLETION_RULE.test(above), armed };
  }
  return null;
}

/** Conversation lines above the composer, scroll marks and toasts dropped, blank lines skipped. */
function grokNotices(lines: string[], top: number): string[] {
  return lines.slice(0, top)
    .map((l) => l.replace(SCROLL_MARKS, "").trim())
    .filter((l) => l !== "" && !DEFAULT_MODEL_TOAST.test(l));
}

/** The toast's model name when the screen shows it. */
function defaultModelToast(lines: string[], top: number): string | null {
  for (let i = top - 1; i >= 0 && i >= top - 3; i--) {
    const m = lineAt(lines, i).replace(SCROLL_MARKS, "").match(DEFAULT_MODEL_TOAST);
    if (m) return m[1]!;
  }
  return null;
}

/** The effort the composer label shows for model `name` (`Mock Two (high)` → high; `Mock` → null). */
function labelEffort(label: string | null, name: string): string | null {
  if (label === null || !label.startsWith(`${name} (`) || !label.endsWith(")")) return null;
  return label.slice(name.length + 2, -1);
}

/**
 * Reads the answer to a submitted `/model` or `/effort`: the newest conversation line (only once the
 * conversation changed since `before`) confirms ("Switched to <name> (<effort> effort)") or refuses; a
 * bare `/model <id>` answers with the toast "✓ Default model: <name>" instead, trusted when it is new or
 * the composer label changed. Both write `[models] default` / `default_reasoning_effort` to config.toml
 * (measured on 1.0.41), so the result reports persistedDefault true.
 */
export function readGrokConfigureAnswer(
  screen: string,
  before: string,
  goal: { model: string | null; effort: string | null },
): ConfigureVerdict {
  const live = grokLiveComposer(screen);
  if (!live) return { kind: "wait" };
  const was = grokLiveComposer(before);
  const notices = grokNotices(live.lines, live.top);
  const changed = !was || notices.join("\n") !== grokNotices(was.lines, was.top).join("\n");
  const newest = notices[notices.length - 1] ?? "";
  if (changed && REFUSED_NOTICE.test(newest)) return { kind: "failed", message: newest };
  const switched = changed ? newest.match(SWITCHED_NOTICE) : null;
  if (switched) {
    const effort = switched[2] ?? null;
    if (goal.effort !== null && effort !== goal.effort) {
      return { kind: "failed", message: `${newest} (asked for ${goal.effort})` };
    }
    const model = goal.model !== null ? { model: goal.model } : {};
    return { kind: "done", ...model, effort, persistedDefault: true, message: newest };
  }
  const toast = goal.model !== null && goal.effort === null ? defaultModelToast(live.lines, live.top) : null;
  if (toast !== null) {
    const fresh = !was || defaultModelToast(was.lines, was.top) !== toast || was.label !== live.label;
    if (fresh && live.label !== null && (live.label === toast || live.label.startsWith(`${toast} (`))) {
      return {
        kind: "done",
        model: goal.model,
        effort: labelEffort(live.label, toast),
        persistedDefault: true,
        message: `Default model: ${toast}`,
      };
    }
  }
  return { kind: "wait" };
}

/**
 * One slash command: typed into the empty composer; a completion list it opens is closed with Escape
 * (Enter would pick the list's row instead of the typed text), then Enter submits it.
 */
function grokSlashStage(name: string, command: string, goal: { model: string | null; effort: string | null }) {
  const stage: ConfigureStage = {
    name,
    keys: (screen) => {
      const live = grokLiveComposer(screen);
      if (!live || live.armed) return null;
      const text = grokComposerText(screen);
      if (text === "" && classifyGrokScreen(screen).kind === "ready") return [{ text: command }, { pauseMs: 400 }];
      if (text !== command) return null;
      return live.completion ? [{ key: "Escape" }, { pauseMs: 300 }] : [{ key: "Enter" }, { pauseMs: 400 }];
    },
    check: (screen, before) => {
      const live = grokLiveComposer(screen);
      if (!live) return { kind: "wait" };
      const text = grokComposerText(screen);
      if (text !== null && text !== "") return { kind: "again" };
      return readGrokConfigureAnswer(screen, before, goal);
    },
  };
  return stage;
}

function grokConfigureStages(goal: ConfigureGoal): ConfigureStage[] {
  if (goal.model !== null) {
    const command = goal.effort !== null ? `/model ${goal.model} ${goal.effort}` : `/model ${goal.model}`;
    return [grokSlashStage("model_command", command, { model: goal.model, effort: goal.effort })];
  }
  if (goal.effort !== null) {
    return [grokSlashStage("effort_command", `/effort ${goal.effort}`, { model: null, effort: goal.effort })];
  }
  return [];
}

/**
 * Grok Build's in-place configuration: `/model <id>` (with the effort as its second argument when one is
 * asked for) and `/effort <level>` for the effort alone. Backing out: Escape closes a completion list,
 * and two Escapes clear a command left in the composer.
 */
export const GROK_CONFIGURE: ConfigureRules = {
  effort: "supported",
  model: true,
  stages: grokConfigureStages,
  leave: (screen) => {
    const live = grokLiveComposer(screen);
    if (!live) return null;
    if (live.completion || live.armed) return [{ key: "Escape" }];
    const text = grokComposerText(screen) ?? "";
    return /^\/(?:model|effort)\b/.test(text) ? [{ key: "Escape" }] : null;
  },
};

/** The Grok Build adapter. */
export const grok: HarnessAdapter = {
  id: "grok-cli",
  provider: "grok",
  binary: grokBinary,
  efforts: GROK_EFFORTS,
  readOnlyMode: true,
  buildLaunch: buildGrokLaunch,
  classifyScreen: classifyGrokScreen,
  answerStartupDialog: answerGrokStartupDialog,
  submitSteps: [{ pauseMs: 700 }, { key: "Enter" }],
  // While a turn runs, Enter queues the text; on an empty composer Enter is then "send now" (footer
  // `Enter:send now`), which cancels the running prompt (trigger send_now) and runs the queued one next.
  steerSteps: [{ key: "Enter" }],
  steerPlace: grokSteerPlace,
  rateLimitCard: {
    dismiss: dismissGrokRateLimitDialog,
    recovery: "grok_rate_limit_dialog_dismissed",
    blockedCode: "GROK_RATE_LIMIT_RECOVERY_BLOCKED",
    failedCode: "GROK_RATE_LIMIT_RECOVERY_FAILED",
  },
  sandboxRefusal: { code: "GROK_SANDBOX_STARTUP_FAILED", cause: grokSandboxRefusal },
  composerHolds: grokComposerHolds,
  modelCatalog: readGrokModelCatalog,
  composerText: grokComposerText,
  configure: GROK_CONFIGURE,
  transcript: { locate: locateGrokTranscript, parseTurns: parseGrokTurns, parser: grokTurnParser },
};
