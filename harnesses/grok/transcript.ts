/** How turns and answers are read from Grok Build's `updates.jsonl`. */
import { parseAllWith, rec, runningTurn, str } from "../common/mod.ts";
import type { JsonRecord, TranscriptTurn, TurnParser } from "../common/mod.ts";

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
    const turn = runningTurn(id, s.raw.length, prompt);
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
