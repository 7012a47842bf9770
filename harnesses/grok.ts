/** xAI Grok Build CLI (`grok`). Facts, with where each was verified: docs/harnesses/grok.md. */
import { join } from "node:path";
import { parseJsonl, realPathOr, rec, str } from "./_jsonl.ts";
import type { JsonRecord } from "./_jsonl.ts";
import { holdsPrefix, isExitTrailer, isLaunchLine, lineAt, prevNonEmpty, screenLines } from "./_screen.ts";
import type {
  BinarySpec,
  BlockedReason,
  CatalogModel,
  HarnessAdapter,
  KeyStep,
  LaunchOptions,
  LaunchSpec,
  ModelCatalog,
  ScreenState,
  TranscriptContext,
  TranscriptTurn,
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
  let writeScopeEnforcement: LaunchSpec["writeScopeEnforcement"] = null;
  if (o.writeScope === "read-only") {
    argv.push("--sandbox", "read-only");
    writeScopeEnforcement = "enforced_read_only";
  } else if (o.writeScope !== null) {
    writeScopeEnforcement = "declaration_only_unsupported";
  }
  return { argv, env: {}, writeScopeEnforcement, pinnedSessionId: o.sessionUuid };
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
    if (!FOOTER.test(l)) continue;
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
    if (!FOOTER.test(l)) continue;
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

/** True when the live composer still shows (a prefix of) `text`. */
export function grokComposerHolds(screen: string, text: string): boolean {
  const shown = grokComposerText(screen);
  return shown !== null && holdsPrefix(shown, text);
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
}

/** Sequence number of `_meta.eventId` (`<session>-<n>`), or null. */
function eventSeq(r: JsonRecord): number | null {
  const id = str(rec(rec(r, "params"), "_meta"), "eventId");
  const m = id?.match(/-(\d+)$/);
  return m ? Number(m[1]) : null;
}

/**
 * Parses `updates.jsonl` into turns. A turn opens at `user_message_chunk` (`_meta.promptIndex` is the
 * turn id, the same number as chat_history's `prompt_index`); records carrying a prompt id
 * (`agent_message_chunk` `_meta.promptId`, `turn_completed.prompt_id`, hook records) bind that id to
 * the oldest open turn without one, so a turn's end is matched by id even when the next prompt's
 * records come first. `turn_completed` ends it: `stop_reason:"error"` → error (`agent_result`),
 * `cancelled` → interrupted, anything else → done with the last agent message as the answer.
 * Records are taken in `_meta.eventId` order (the CLI writes some out of order).
 */
export function parseGrokTurns(text: string): TranscriptTurn[] {
  const records = parseJsonl(text).map((r, i) => ({ r, i, seq: eventSeq(r) }));
  records.sort((a, b) => (a.seq !== null && b.seq !== null ? a.seq - b.seq : a.i - b.i));
  const turns: TranscriptTurn[] = [];
  const open: OpenTurn[] = [];
  const byPrompt = new Map<string, OpenTurn>();
  const bind = (promptId: string | null): OpenTurn | null => {
    if (promptId === null) return null;
    const known = byPrompt.get(promptId);
    if (known) return known;
    const t = open.find((o) => o.promptId === null && !o.ended);
    if (!t) return null;
    t.promptId = promptId;
    byPrompt.set(promptId, t);
    return t;
  };
  for (const { r } of records) {
    const params = rec(r, "params");
    const u = rec(params, "update");
    if (!u) continue;
    const kind = str(u, "sessionUpdate");
    const meta = rec(params, "_meta");
    if (kind === "user_message_chunk") {
      const index = rec(u, "_meta")?.promptIndex;
      const prompt = str(rec(u, "content"), "text");
      const last = open[open.length - 1];
      const id = typeof index === "number" ? String(index) : `prompt-${turns.length}`;
      if (last && last.turn.turnId === id) {
        if (prompt !== null) last.turn.prompt = (last.turn.prompt ?? "") + prompt;
        continue;
      }
      const turn: TranscriptTurn = {
        turnId: id,
        index: turns.length,
        prompt,
        status: "running",
        answer: null,
        error: null,
      };
      turns.push(turn);
      open.push({ turn, promptId: null, text: "", ended: false });
      continue;
    }
    if (kind === "agent_message_chunk") {
      const t = bind(str(meta, "promptId"));
      const chunk = str(rec(u, "content"), "text");
      if (t && !t.ended && chunk !== null) t.text += chunk;
      continue;
    }
    if (kind === "tool_call") {
      const t = bind(str(meta, "promptId"));
      if (t && !t.ended) t.text = "";
      continue;
    }
    if (kind === "turn_completed") {
      const t = bind(str(u, "prompt_id"));
      if (!t || t.ended) continue;
      t.ended = true;
      const reason = str(u, "stop_reason") ?? "";
      if (reason === "error") {
        t.turn.status = "error";
        t.turn.error = str(u, "agent_result") ?? "error";
      } else if (/cancel/i.test(reason)) {
        t.turn.status = "interrupted";
      } else {
        t.turn.status = "done";
        t.turn.answer = t.text;
      }
    }
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
  composerHolds: grokComposerHolds,
  modelCatalog: readGrokModelCatalog,
  transcript: { locate: locateGrokTranscript, parseTurns: parseGrokTurns },
};
