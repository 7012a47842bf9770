/** Where the Codex CLI writes its rollouts, and how turns and answers are read from them. */
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
  runningTurn,
  str,
  vendorDir,
} from "../common/mod.ts";
import type { DatedFile, JsonRecord, TranscriptContext, TranscriptTurn, TurnParser } from "../common/mod.ts";

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
  const codexHome = vendorDir(ctx.env, "CODEX_HOME", ".codex");
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
    const turn = runningTurn(id ?? `turn-${turns.length}`, turns.length, null);
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
