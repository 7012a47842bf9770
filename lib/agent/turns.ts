/**
 * Reading an agent's turns from the harness's own transcript. The transcript file is found through
 * the harness's rules once and then pinned in the agent record, so a later file (another launch in
 * the same directory) is never mistaken for this one.
 */
import type { HarnessAdapter, TranscriptTurn } from "../../harnesses/mod.ts";
import type { AgentRecord } from "./record.ts";

/** The turns of a launch and where they came from. */
export interface LoadedTurns {
  path: string | null;
  turns: TranscriptTurn[];
  /** True when the transcript was located now and should be pinned in the record. */
  newlyPinned: boolean;
}

const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;

async function readText(path: string): Promise<string | null> {
  try {
    const st = await Deno.stat(path);
    if (st.size > MAX_TRANSCRIPT_BYTES) {
      // Read the tail only; turns before it are not addressable anyway.
      const f = await Deno.open(path);
      try {
        await f.seek(st.size - MAX_TRANSCRIPT_BYTES, Deno.SeekMode.Start);
        const buf = new Uint8Array(MAX_TRANSCRIPT_BYTES);
        const n = (await f.read(buf)) ?? 0;
        const text = new TextDecoder().decode(buf.subarray(0, n));
        return text.slice(text.indexOf("\n") + 1);
      } finally {
        f.close();
      }
    }
    return await Deno.readTextFile(path);
  } catch {
    return null;
  }
}

/** Loads the launch's turns (empty when the harness has not written a transcript yet). */
export async function loadTurns(
  adapter: HarnessAdapter,
  rec: AgentRecord,
  env: Record<string, string | undefined>,
): Promise<LoadedTurns> {
  if (rec.transcript_path) {
    const text = await readText(rec.transcript_path);
    return {
      path: rec.transcript_path,
      turns: text === null ? [] : adapter.transcript.parseTurns(text),
      newlyPinned: false,
    };
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
    const text = await readText(path);
    return { path, turns: text === null ? [] : adapter.transcript.parseTurns(text), newlyPinned: true };
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
    const text = await readText(path);
    if (text === null) continue;
    const turns = adapter.transcript.parseTurns(text);
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
