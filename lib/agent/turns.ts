/**
 * Reading an agent's turns from the harness's own transcript. The transcript file is found through
 * the harness's rules and the evidence of what aiterm typed into the launch, once, and then pinned in
 * the agent record, so another launch's file in the same directory is never mistaken for this one.
 */
import type { HarnessAdapter, TranscriptTurn } from "../../harnesses/mod.ts";
import { type AgentRecord, transcriptsPinnedElsewhere } from "./record.ts";
import { TranscriptReaders } from "./transcript_reader.ts";

/** The turns of a launch and where they came from. */
export interface LoadedTurns {
  path: string | null;
  turns: TranscriptTurn[];
  /** True when the transcript was located now and should be pinned in the record. */
  newlyPinned: boolean;
}

/** One check of a transcript through the process's incremental reader of it (null: unreadable). */
function readTurns(
  adapter: HarnessAdapter,
  path: string,
  readers: TranscriptReaders,
): Promise<TranscriptTurn[] | null> {
  return readers.get(adapter.transcript, path).read();
}

/** How much of a typed text is kept and compared with a transcript's recorded prompts. */
const PROMPT_KEY_CHARS = 200;
/** How many typed texts an unpinned record keeps as evidence. */
const SENT_KEPT = 8;

/** The part of a typed text kept as evidence and compared (its first 200 characters, trimmed). */
/** Where a launch's transcript is looked for, and with what. */
export interface TranscriptLook {
  env: Record<string, string | undefined>;
  /** The process's readers (without them, each check parses the transcript from the start). */
  readers?: TranscriptReaders | undefined;
  /** This launch's session directory: transcripts other sessions of the same state root pinned are left alone. */
  sessionDir?: string | undefined;
}

export function promptKey(text: string): string {
  return text.trim().slice(0, PROMPT_KEY_CHARS);
}

/**
 * Whether a prompt as the transcript recorded it is the typed text with key `key`: the record holds the
 * key, or the key begins with the record (a harness that records less than was typed, e.g. without the
 * attached-images note). A record too short to tell is no match.
 */
export function promptMatches(recorded: string | null, key: string): boolean {
  const head = (recorded ?? "").trim().slice(0, PROMPT_KEY_CHARS);
  if (head === "" || key === "") return false;
  return recorded!.includes(key) || (head.length >= Math.min(key.length, 16) && key.startsWith(head));
}

/** `rec` with `text` added to what was typed into it, while its transcript is not pinned (else `rec`). */
export function withSentPrompt(rec: AgentRecord, text: string): AgentRecord {
  if (rec.transcript_path || rec.pinned_session_id) return rec;
  return { ...rec, sent_prompts: [...(rec.sent_prompts ?? []), promptKey(text)].slice(-SENT_KEPT) };
}

/**
 * Loads the launch's turns (empty when the harness has not written a transcript yet). This is the
 * per-check function of every poll and wait: once the transcript is pinned it costs one `stat` when
 * nothing was appended, and the parsing of the appended records otherwise (lib/agent/transcript_reader.ts).
 * `readers`: the process's readers (without them, this check parses the transcript from the start).
 * `sessionDir`: the session's directory; the transcripts its sibling sessions pinned are not this one's.
 */
export async function loadTurns(
  adapter: HarnessAdapter,
  rec: AgentRecord,
  look: TranscriptLook,
): Promise<LoadedTurns> {
  const { env, readers = new TranscriptReaders(), sessionDir } = look;
  if (rec.transcript_path) {
    const turns = await readTurns(adapter, rec.transcript_path, readers);
    return { path: rec.transcript_path, turns: turns ?? [], newlyPinned: false };
  }
  const path = await ownTranscript(adapter, rec, { env, readers, sessionDir });
  if (path === null) return { path: null, turns: [], newlyPinned: false };
  return { path, turns: (await readTurns(adapter, path, readers)) ?? [], newlyPinned: true };
}

/**
 * The transcript of a launch that is not pinned yet, found on evidence, never on timing. With a session
 * id (Claude Code, Grok) it is the file of that id. Otherwise (Codex, Cursor) the candidates are the
 * transcripts of the launch's directory that began since it (less a 2 s margin), less those another
 * launch pinned, and one is taken when its first turn's prompt is a text aiterm typed into this launch
 * (`sent_prompts`), and no other candidate's is. A first turn whose prompt the harness did not record is
 * taken only when it is the one candidate and this launch was sent something. Another launch in the same
 * directory, even one started a moment earlier, has a first turn this launch did not send: it is never
 * taken, and neither is anything before this launch sent its first text. Null: not (yet) known.
 */
async function ownTranscript(
  adapter: HarnessAdapter,
  rec: AgentRecord,
  look: TranscriptLook & { readers: TranscriptReaders },
): Promise<string | null> {
  const { env, readers, sessionDir } = look;
  const sent = rec.sent_prompts;
  if (!rec.pinned_session_id && sent?.length === 0) return null;
  const found = await adapter.transcript.locate({
    cwd: rec.cwd,
    env,
    since: rec.created_at_ms - 2000,
    pinnedSessionId: rec.pinned_session_id,
  });
  if (found.length === 0) return null;
  if (rec.pinned_session_id) return found[0]!;
  const taken = sessionDir ? await transcriptsPinnedElsewhere(sessionDir) : new Set<string>();
  const candidates = found.filter((path) => !taken.has(path));
  // A record written before the typed texts were kept: the lone candidate, as then.
  if (sent === undefined) return candidates.length === 1 ? candidates[0]! : null;
  const own: string[] = [];
  const unrecorded: string[] = [];
  for (const path of candidates) {
    const first = (await readTurns(adapter, path, readers))?.[0];
    if (!first) continue;
    if (first.prompt === null) unrecorded.push(path);
    else if (sent.some((key) => promptMatches(first.prompt, key))) own.push(path);
  }
  if (own.length === 1) return own[0]!;
  return own.length === 0 && unrecorded.length === 1 && candidates.length === 1 ? unrecorded[0]! : null;
}
