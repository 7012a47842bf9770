/**
 * Sending to an agent session: decided at send time from the turn marker, the transcript and the
 * screen. A running turn takes the text as a steer (same completion boundary); an idle agent gets a
 * new turn with a new event cursor. A blocking dialog refuses the send with nothing typed.
 */
import { AppError } from "../errors.ts";
import { getHarness, type HarnessAdapter } from "../../harnesses/mod.ts";
import { type AgentRecord, lineagePreface, readAgentRecord, writeAgentRecord } from "./record.ts";
import { loadTurns, pinByPrompt } from "./turns.ts";
import { pasteAndSubmit, screenState } from "./typing.ts";
import { recoverPaneInput } from "./pane_recovery.ts";
import { steerRunningTurn } from "./steer.ts";
import type { AgentDeps } from "./launch.ts";

/** What a dispatch or steer did. */
export interface DispatchReceipt {
  mode: "agent_dispatch" | "agent_steer";
  session_id: string;
  harness: string;
  launch_id: string;
  /** The new turn's cursor (dispatch); null for a steer. */
  event_cursor: number | null;
  /** The running turn a steer joined. */
  joined_event_cursor: number | null;
  submit_residue: boolean;
  turn_started: boolean;
  /** The session's generation. */
  generation: string | null;
  /** Dialogs aiterm dismissed before typing (e.g. grok_rate_limit_dialog_dismissed). */
  pane_input_recovery: string[];
}

/** Options for {@link dispatchTurn}. */
export interface DispatchOptions {
  images?: string[];
  /** false for the first prompt of a launch (never a steer). */
  allowSteer?: boolean;
  /**
   * Called under the send lock once the send is known to start a new turn at `cursor`, before
   * anything is typed (parent delivery saves its destination and boundary here). A throw leaves the
   * pane untouched.
   */
  beforeNewTurn?: (cursor: number, rec: AgentRecord) => Promise<void>;
  /** Called under the send lock before a steer is typed into the running turn; a throw refuses the steer. */
  beforeSteer?: (joinedCursor: number | null, rec: AgentRecord) => Promise<void>;
}

/** The agent record and adapter of a session, or AGENT_SESSION_REQUIRED. */
export async function agentOf(deps: AgentDeps, id: string): Promise<{ rec: AgentRecord; adapter: HarnessAdapter }> {
  const rec = await readAgentRecord(deps.terminal.sessionDir(id));
  const adapter = rec ? getHarness(rec.harness) : null;
  if (!rec || !adapter) {
    throw new AppError("AGENT_SESSION_REQUIRED", `Session "${id}" has no agent launched by aiterm`, {
      suggestion: "use agent_launch, or pty_send without agent options",
    });
  }
  return { rec, adapter };
}

/** Whether the launch's current turn is still running (marker + transcript + screen). */
export async function turnRunning(
  deps: AgentDeps,
  rec: AgentRecord,
  adapter: HarnessAdapter,
  busyOnScreen: boolean,
): Promise<{ running: boolean; rec: AgentRecord; turnCount: number }> {
  const loaded = await loadTurns(adapter, rec, deps.env);
  const turnCount = loaded.turns.length;
  let next = rec;
  if (loaded.newlyPinned && loaded.path) next = { ...next, transcript_path: loaded.path };
  const active = next.active_turn;
  if (active) {
    const turn = loaded.turns[active.index];
    if (turn && turn.status !== "running") {
      // The turn ended (done, API error or interrupt): release only this turn's marker.
      next = { ...next, active_turn: null };
      return { running: busyOnScreen, rec: next, turnCount };
    }
    if (turn) return { running: true, rec: next, turnCount };
    return { running: busyOnScreen || Date.now() - active.dispatched_at_ms < 3000, rec: next, turnCount };
  }
  const last = loaded.turns[turnCount - 1];
  return { running: busyOnScreen || last?.status === "running", rec: next, turnCount };
}

/**
 * Sends `text` to an agent session (see module doc). Runs under the session's send lock.
 * @throws {AppError} AGENT_SESSION_REQUIRED, AGENT_BLOCKED, AGENT_NOT_READY, SESSION_ENDED
 */
export async function dispatchTurn(
  deps: AgentDeps,
  id: string,
  text: string,
  options: DispatchOptions = {},
): Promise<DispatchReceipt> {
  return await deps.terminal.withLock(id, async () => {
    const { rec, adapter } = await agentOf(deps, id);
    const pane = await deps.terminal.mux.paneInfo(id);
    // Pre-dispatch recovery (Grok): a refused sandbox, or the usage-limit card dismissed once.
    const recovered = await recoverPaneInput(deps, id, rec, adapter, !!pane && !pane.paneDead);
    if (!pane || pane.paneDead) {
      if (!pane) await deps.terminal.throwIfServerGone(id, "send to agent");
      throw new AppError(
        "SESSION_ENDED",
        `Cannot send to agent session "${id}": the ${rec.harness} process has ended`,
        {
          suggestion: "read its last answer with pty_read agent_transcript:true; pty_close it when done",
        },
      );
    }
    const state = await screenState(deps.terminal.mux, adapter, id);
    if (state.kind === "blocked") {
      throw new AppError(
        "AGENT_BLOCKED",
        `Cannot send to agent session "${id}": ${rec.harness} shows a blocking screen (${state.reason})`,
        {
          suggestion: "nothing was typed; look at it with pty_read screen:true and answer it (pty_key), or pty_close",
          data: { reason: state.reason },
        },
      );
    }
    if (state.kind === "exited" || state.kind === "starting") {
      throw new AppError("AGENT_NOT_READY", `Cannot send to agent session "${id}": ${rec.harness} is ${state.kind}`, {
        suggestion: "nothing was typed; try again when it shows its prompt",
      });
    }
    const status = await turnRunning(deps, rec, adapter, state.kind === "busy");
    let next = status.rec;
    const images = options.images ?? [];
    const imageNote = images.length ? `\n\n[attached images: ${images.join(", ")}]` : "";
    if (status.running && options.allowSteer !== false) {
      await options.beforeSteer?.(next.active_turn?.index ?? null, next);
      // A steer is claimed only when the text joined the turn; otherwise AGENT_STEER_NOT_TAKEN says where it is.
      let joined: number | null;
      try {
        joined = await steerRunningTurn(deps, id, next, adapter, text + imageNote);
      } finally {
        await writeAgentRecord(deps.terminal.sessionDir(id), next);
      }
      return {
        mode: "agent_steer",
        session_id: id,
        harness: rec.harness,
        launch_id: rec.launch_id,
        event_cursor: null,
        joined_event_cursor: joined,
        submit_residue: false,
        turn_started: true,
        generation: (await deps.terminal.meta(id))?.generation ?? null,
        pane_input_recovery: recovered,
      };
    }
    // The transcript was just read by turnRunning (and pinned into `next` if new): its turn count is the cursor.
    const cursor = status.turnCount;
    await options.beforeNewTurn?.(cursor, next);
    const body = (next.preface_pending ? lineagePreface(next.lineage, id) : "") + text + imageNote;
    next = { ...next, preface_pending: false, active_turn: { index: cursor, dispatched_at_ms: Date.now() } };
    await writeAgentRecord(deps.terminal.sessionDir(id), next);
    const residue = await pasteAndSubmit(deps.terminal.mux, adapter, id, body);
    const started = await turnStarted(deps, next, adapter, id, cursor, body);
    if (started.pinned) {
      await writeAgentRecord(deps.terminal.sessionDir(id), { ...next, transcript_path: started.pinned });
    }
    return {
      mode: "agent_dispatch",
      session_id: id,
      harness: rec.harness,
      launch_id: rec.launch_id,
      event_cursor: cursor,
      joined_event_cursor: null,
      submit_residue: residue,
      turn_started: started.started,
      generation: (await deps.terminal.meta(id))?.generation ?? null,
      pane_input_recovery: recovered,
    };
  });
}

/** Evidence that the turn began: the transcript has it, or the screen shows the busy display. */
async function turnStarted(
  deps: AgentDeps,
  rec: AgentRecord,
  adapter: HarnessAdapter,
  id: string,
  cursor: number,
  body: string,
): Promise<{ started: boolean; pinned: string | null }> {
  const deadline = Date.now() + 5000;
  let pinned: string | null = null;
  while (Date.now() < deadline) {
    if (!rec.transcript_path && !pinned) pinned = await pinByPrompt(adapter, rec, deps.env, body);
    const loaded = await loadTurns(adapter, pinned ? { ...rec, transcript_path: pinned } : rec, deps.env);
    if (loaded.turns.length > cursor) {
      return { started: true, pinned: pinned ?? (loaded.newlyPinned ? loaded.path : null) };
    }
    const s = await screenState(deps.terminal.mux, adapter, id);
    if (s.kind === "busy") return { started: true, pinned };
    await new Promise((r) => setTimeout(r, 150));
  }
  return { started: false, pinned };
}
