/** `pty_read(agent_transcript:true)`: the answer of the turn correlated with a cursor, exactly as recorded. */
import { AppError } from "../../base/errors.ts";
import { writeAgentRecord } from "./record.ts";
import { type AgentDeps, AgentSession } from "./session.ts";

/** The answer of one turn. */
export interface AgentAnswer {
  session_id: string;
  harness: string;
  cursor: number;
  turn_id: string;
  text: string;
  answer_empty: boolean;
}

/** The pending error for a read without cursor while the first turn has not finished (nothing to answer yet). */
function firstTurnPending(id: string): AppError {
  return new AppError("AGENT_RESULT_PENDING", `The first turn of session "${id}" has not finished yet`, {
    suggestion: "wait for it (wait_process or aiterm-wait); do not resend the prompt",
  });
}

/**
 * The answer of turn `cursor` (default: the last finished turn; while the first turn runs, pending).
 * @throws {AppError} AGENT_RESULT_PENDING, AGENT_RESULT_UNAVAILABLE, AGENT_TURN_ERROR, SESSION_NOT_FOUND,
 *   AGENT_SESSION_REQUIRED
 */
export async function readAnswer(deps: AgentDeps, id: string, cursor: number | null): Promise<AgentAnswer> {
  const session = await AgentSession.open(deps, id);
  const { rec } = session;
  const loaded = await session.turns();
  if (loaded.newlyPinned && loaded.path) {
    await writeAgentRecord(deps.terminal.sessionDir(id), { ...rec, transcript_path: loaded.path });
  }
  // Dispatched and not recorded as finished: there is a turn, its answer is only not there yet.
  const firstRunning = loaded.turns.length === 0
    ? rec.active_turn !== null
    : loaded.turns.every((t) => t.status === "running");
  if (cursor === null && firstRunning) throw firstTurnPending(id);
  if (!loaded.path) {
    throw new AppError(
      "AGENT_RESULT_UNAVAILABLE",
      `No transcript of ${rec.harness} can be tied to session "${id}" yet`,
      {
        suggestion: "it appears with the first turn; do not resend the prompt",
      },
    );
  }
  let index = cursor;
  if (index === null) {
    for (let i = loaded.turns.length - 1; i >= 0; i--) {
      if (loaded.turns[i]!.status !== "running") {
        index = i;
        break;
      }
    }
  }
  const turn = index === null ? undefined : loaded.turns[index];
  if (!turn || index === null) {
    throw new AppError(
      cursor === null ? "AGENT_RESULT_UNAVAILABLE" : "AGENT_RESULT_PENDING",
      cursor === null
        ? `Session "${id}" has no finished turn yet`
        : `Turn ${cursor} of session "${id}" has not been recorded yet`,
      {
        suggestion: "wait for it (wait_process or aiterm-wait); do not resend the prompt",
      },
    );
  }
  if (turn.status === "running") {
    throw new AppError("AGENT_RESULT_PENDING", `Turn ${index} of session "${id}" is still running`, {
      suggestion: "wait for it (wait_process or aiterm-wait); do not resend the prompt",
    });
  }
  if (turn.status === "error" || turn.status === "interrupted") {
    throw new AppError(
      "AGENT_TURN_ERROR",
      `Turn ${index} of session "${id}" ended without a result: ${turn.error ?? turn.status}`,
      {
        data: { turn_id: turn.turnId },
      },
    );
  }
  if (turn.answer === null) {
    throw new AppError(
      "AGENT_RESULT_UNAVAILABLE",
      `The final answer of turn ${index} of session "${id}" could not be identified`,
    );
  }
  return {
    session_id: id,
    harness: rec.harness,
    cursor: index,
    turn_id: turn.turnId,
    text: turn.answer,
    answer_empty: turn.answer.trim() === "",
  };
}
