/** Where Claude Code writes its session transcript, and how turns and answers are read from it. */
import { join } from "node:path";
import {
  isRecord,
  jsonlFilesSince,
  newestFirst,
  parseAllWith,
  realPathOr,
  rec,
  runningTurn,
  str,
  textBlocks,
  vendorDir,
} from "../common/mod.ts";
import type { JsonRecord, TranscriptContext, TranscriptTurn, TurnParser } from "../common/mod.ts";

/** The project directory name Claude Code derives from a (real) cwd, including the long-path hash. */
export function claudeProjectSlug(cwd: string): string {
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, "-");
  if (slug.length <= 200) return slug;
  let h = 0;
  for (let i = 0; i < cwd.length; i++) h = ((h << 5) - h + cwd.charCodeAt(i)) | 0;
  return `${slug.slice(0, 200)}-${Math.abs(h).toString(36)}`;
}

/** `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<slug>/`: the pinned session file, else recent files. */
export async function locateClaudeTranscripts(ctx: TranscriptContext): Promise<string[]> {
  const configDir = vendorDir(ctx.env, "CLAUDE_CONFIG_DIR", ".claude");
  if (!configDir) return [];
  const dir = join(configDir.normalize("NFC"), "projects", claudeProjectSlug(await realPathOr(ctx.cwd)));
  if (ctx.pinnedSessionId) return [join(dir, `${ctx.pinnedSessionId}.jsonl`)];
  return newestFirst(await jsonlFilesSince(dir, ctx.since));
}

/** Text of a message's content: a string, or its `text` blocks joined. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return textBlocks(content).join("\n");
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
        const turn = runningTurn(id, turns.length, contentText(rec(r, "message")?.content));
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
