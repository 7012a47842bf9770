/**
 * Steering a running turn: the text joins the turn, whose completion boundary stays the one it had. A
 * steer is claimed only with evidence: the screen shows nothing left behind, and where the harness
 * records steers in its transcript (Grok's "send now" seams), that record too. Otherwise the caller gets
 * AGENT_STEER_NOT_TAKEN saying where the text is, and nothing is typed again.
 */
import { AppError } from "../../base/errors.ts";
import { waitUntil } from "../../base/wait.ts";
import type { AgentRecord } from "./record.ts";
import type { AgentSession } from "./session.ts";
import type { SteerPlace } from "./typing.ts";

/** How long the transcript may take to show a pressed steer (Grok writes it within milliseconds). */
const CONFIRM_MS = 8000;

type Verdict = SteerPlace | "own_turn" | "unconfirmed";

const WHY: Record<Exclude<Verdict, "joined">, string> = {
  composer: "the text stayed in the composer (submit residue)",
  queued: "the text still waits in the queue and did not join the running turn",
  queued_behind: "the text waits in the queue behind other queued text, so it could not be sent now",
  unseen: "the text was not seen in the queue after submitting it",
  own_turn: "the running turn ended first, so the text started a turn of its own",
  unconfirmed: "the steer key was pressed but the transcript does not show the text joining the turn",
};

/**
 * AGENT_STEER_NOT_TAKEN for `where`. `cursors.joined`: the turn the text was to join; `cursors.started`: the turn
 * the text started of its own (null: none).
 */
function notTaken(
  id: string,
  rec: AgentRecord,
  where: Exclude<Verdict, "joined">,
  cursors: { joined: number | null; started: number | null },
): AppError {
  const { joined, started: startedCursor } = cursors;
  return new AppError("AGENT_STEER_NOT_TAKEN", `Cannot steer session "${id}" (${rec.harness}): ${WHY[where]}`, {
    suggestion: startedCursor !== null
      ? `do not resend; wait for cursor ${startedCursor} (aiterm-wait) and read it with pty_read agent_transcript:true`
      : "do not resend; look with pty_read screen:true (clear leftover text with pty_key), or wait for the turn to end and send again",
    data: {
      where,
      joined_event_cursor: joined,
      submit_residue: where === "composer" || where === "queued" || where === "queued_behind",
      ...(startedCursor !== null ? { event_cursor: startedCursor } : {}),
    },
  });
}

/**
 * Types `text` into the running turn of `session` (whose record is `rec`) and proves it joined (see
 * module doc). Returns the joined turn's cursor as the receipt reports it (the turn marker's).
 * @throws {AppError} AGENT_STEER_NOT_TAKEN
 */
export async function steerRunningTurn(session: AgentSession, rec: AgentRecord, text: string): Promise<number | null> {
  const { id, adapter } = session;
  const joined = rec.active_turn?.index ?? null;
  const before = await session.turns(rec);
  const running = before.turns.findLastIndex((t) => t.status === "running");
  const target = joined ?? (running >= 0 ? running : null);
  const steers = target !== null ? before.turns[target]?.steers : undefined;
  const typed = await session.input.steer(text);
  if (typed.place !== "joined") throw notTaken(id, rec, typed.place, { joined, started: null });
  const pinned = before.path ? { ...rec, transcript_path: before.path } : rec;
  if (!typed.pressed || target === null || steers === undefined) {
    // Queueing harnesses without a steer record (Cursor): a turn that ended meanwhile and took the queued
    // text as a turn of its own is caught here. (Claude and Codex take a steer at their next tool boundary.)
    if (!adapter.steerSteps || !before.path) return joined;
    const now = await session.turns(pinned);
    if (now.turns.length > before.turns.length) {
      throw notTaken(id, rec, "own_turn", { joined, started: before.turns.length });
    }
    return joined;
  }
  // The transcript has the last word where it records steers: this turn's count grows, or a new turn appears.
  const seen = await waitUntil(async () => {
    const now = await session.turns(pinned);
    if ((now.turns[target]?.steers ?? 0) > steers) return "steered";
    return now.turns.length > before.turns.length ? "own_turn" : null;
  }, { timeoutMs: CONFIRM_MS, intervalMs: 150 });
  if (seen.status !== "done") throw notTaken(id, rec, "unconfirmed", { joined, started: null });
  if (seen.value === "own_turn") throw notTaken(id, rec, "own_turn", { joined, started: before.turns.length });
  return joined;
}
