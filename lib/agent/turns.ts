/**
 * Reading an agent's turns from the harness's own transcript. The transcript file is found through
 * the harness's rules once and then pinned in the agent record, so a later file (another launch in
 * the same directory) is never mistaken for this one.
 */
import type { HarnessAdapter, TranscriptTurn } from "../../harnesses/mod.ts";
import type { AgentRecord } from "./record.ts";
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

/**
 * Loads the launch's turns (empty when the harness has not written a transcript yet). This is the
 * per-check function of every poll and wait: once the transcript is pinned it costs one `stat` when
 * nothing was appended, and the parsing of the appended records otherwise (lib/agent/transcript_reader.ts).
 * `readers`: the process's readers (without them, this check parses the transcript from the start).
 */
export async function loadTurns(
  adapter: HarnessAdapter,
  rec: AgentRecord,
  env: Record<string, string | undefined>,
  readers: TranscriptReaders = new TranscriptReaders(),
): Promise<LoadedTurns> {
  if (rec.transcript_path) {
    const turns = await readTurns(adapter, rec.transcript_path, readers);
    return { path: rec.transcript_path, turns: turns ?? [], newlyPinned: false };
  }
  const candidates = await adapter.transcript.locate({
    cwd: rec.cwd,
    env,
    since: rec.created_at_ms - 2000,
    pinnedSessionId: rec.pinned_session_id,
  });
  if (candidates.length === 0) return { path: null, turns: [], newlyPinned: false };
  if (rec.pinned_session_id || candidates.length === 1) {
    const path = candidates[0]!;
    return { path, turns: (await readTurns(adapter, path, readers)) ?? [], newlyPinned: true };
  }
  // Several unpinned candidates (other launches in the same directory): take the one whose first
  // turn carries the prompt this launch sent first; otherwise do not guess.
  return { path: null, turns: [], newlyPinned: false };
}

/** Picks, among candidate transcripts, the one whose turn `index` has `prompt` (for unpinned harnesses). */
export async function pinByPrompt(
  adapter: HarnessAdapter,
  rec: AgentRecord,
  env: Record<string, string | undefined>,
  prompt: string,
  readers: TranscriptReaders = new TranscriptReaders(),
): Promise<string | null> {
  const candidates = await adapter.transcript.locate({
    cwd: rec.cwd,
    env,
    since: rec.created_at_ms - 2000,
    pinnedSessionId: rec.pinned_session_id,
  });
  const want = prompt.trim().slice(0, 200);
  const hits: string[] = [];
  for (const path of candidates) {
    const turns = await readTurns(adapter, path, readers);
    if (turns === null) continue;
    if (
      turns.some((t) =>
        (t.prompt ?? "").includes(want) || want.includes((t.prompt ?? "").trim().slice(0, 200) || "\u0000")
      )
    ) {
      hits.push(path);
    }
  }
  return hits.length === 1 ? hits[0]! : null;
}
