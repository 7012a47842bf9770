/** Where the Cursor CLI writes its agent transcripts, and how turns and answers are read from them. */
import { join } from "node:path";
import { newestFirst, parseAllWith, realPathOr, rec, runningTurn, str, textBlocks, vendorDir } from "../common/mod.ts";
import type { DatedFile, JsonRecord, TranscriptContext, TranscriptTurn, TurnParser } from "../common/mod.ts";

/**
 * The folder id of a workspace under `projects/`: the absolute path with `/` and `.` turned into `-`,
 * runs of `-` collapsed and leading or trailing `-` removed (`/home/me/my.app` → `home-me-my-app`).
 */
export function cursorFolderId(cwd: string): string {
  return cwd.replace(/[/\\.:]/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, "");
}

/** `<root>/projects/<folder-id>/agent-transcripts/<chatId>/<chatId>.jsonl` written since launch, newest first. */
export async function locateCursorTranscripts(ctx: TranscriptContext): Promise<string[]> {
  // `CURSOR_CONFIG_DIR`, else `~/.cursor`.
  const root = vendorDir(ctx.env, "CURSOR_CONFIG_DIR", ".cursor");
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
  const parts = textBlocks(content);
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
        turn: runningTurn(
          str(r, "generation_id") ?? `turn-${turns.length}`,
          turns.length,
          prompt === null ? null : unwrapQuery(prompt),
        ),
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
