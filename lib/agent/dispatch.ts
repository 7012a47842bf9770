/**
 * Sending to an agent session: decided at send time from the turn marker, the transcript and the
 * screen. A running turn takes the text as a steer (same completion boundary); an idle agent gets a
 * new turn with a new event cursor. A harness that is still starting (a launch without a prompt) is
 * waited for, bounded, until it accepts input; a blocking dialog refuses the send with nothing typed.
 * Everything is typed through the session's one chokepoint (lib/agent/typing.ts).
 */
import { AppError } from "../../base/errors.ts";
import { waitUntil } from "../../base/wait.ts";
import type { HarnessAdapter } from "../../harnesses/mod.ts";
import { type AgentRecord, lineagePreface } from "./record.ts";
import { loadTurns, withSentPrompt } from "./turns.ts";
import { cleanPrompt } from "./typing.ts";
import { recoverPaneInput } from "./pane_recovery.ts";
import { steerRunningTurn } from "./steer.ts";
import { type AgentDeps, agentOf, AgentSession } from "./session.ts";
import { startupGate, startupTimeoutMs } from "./startup.ts";
import { sanitizeInput } from "../terminal/mod.ts";

export { agentOf };

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
  /** How long the send waited for a starting harness to accept input (0: it already did). */
  waited_for_input_ms: number;
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
  /** Called about once a second while the send waits for a starting harness (elapsed ms, its state now). */
  onWaitForInput?: (elapsedMs: number, state: string) => Promise<void> | void;
}

/** Whether the launch's current turn is still running (marker + transcript + screen). */
export async function turnRunning(
  deps: AgentDeps,
  rec: AgentRecord,
  adapter: HarnessAdapter,
  busyOnScreen: boolean,
): Promise<{ running: boolean; rec: AgentRecord; turnCount: number; screenLags?: boolean }> {
  const loaded = await loadTurns(adapter, rec, {
    env: deps.env,
    readers: deps.transcripts,
    sessionDir: deps.terminal.sessionDir(rec.session_id),
  });
  const turnCount = loaded.turns.length;
  let next = rec;
  if (loaded.newlyPinned && loaded.path) next = { ...next, transcript_path: loaded.path };
  const active = next.active_turn;
  if (active) {
    const turn = loaded.turns[active.index];
    if (turn && turn.status !== "running") {
      // The turn ended (done, API error or interrupt): release only this turn's marker.
      next = { ...next, active_turn: null };
      return { running: busyOnScreen, rec: next, turnCount, screenLags: busyOnScreen };
    }
    if (turn) return { running: true, rec: next, turnCount };
    return { running: busyOnScreen || Date.now() - active.dispatched_at_ms < 3000, rec: next, turnCount };
  }
  const last = loaded.turns[turnCount - 1];
  return { running: busyOnScreen || last?.status === "running", rec: next, turnCount };
}

function ended(s: AgentSession): AppError {
  return new AppError(
    "SESSION_ENDED",
    `Cannot send to agent session "${s.id}": the ${s.rec.harness} process has ended`,
    { suggestion: "read its last answer with pty_read agent_transcript:true; pty_close it when done" },
  );
}

function blocked(s: AgentSession, reason: string): AppError {
  return new AppError(
    "AGENT_BLOCKED",
    `Cannot send to agent session "${s.id}": ${s.rec.harness} shows a blocking screen (${reason})`,
    {
      suggestion: "nothing was typed; look at it with pty_read screen:true and answer it (pty_key), or pty_close",
      data: { reason },
    },
  );
}

/** The start-up gate's refusal as the send's error (nothing was typed but the gate's own answers). */
function gateRefusal(s: AgentSession, reason: string, waitedMs: number): AppError {
  if (reason === "harness_exited") return ended(s);
  const sandbox = s.adapter.sandboxRefusal;
  if (sandbox && reason.startsWith(`${sandbox.code}: `)) {
    const cause = reason.slice(sandbox.code.length + 2);
    return new AppError(sandbox.code, `${s.rec.harness} in session "${s.id}" refused to start its sandbox: ${cause}`, {
      suggestion: "nothing was sent; fix the cause, then pty_close the session and launch again",
      data: { cause },
    });
  }
  if (reason === "startup_timeout") {
    return new AppError(
      "AGENT_NOT_READY",
      `Cannot send to agent session "${s.id}": ${s.rec.harness} did not accept input within ${
        Math.round(waitedMs / 1000)
      } s of waiting`,
      { suggestion: "nothing was typed; look at it with pty_read screen:true", data: { waited_ms: waitedMs } },
    );
  }
  return blocked(s, reason);
}

/**
 * Makes sure the harness takes input now: the pre-dispatch recoveries (Grok), a live pane, and — when
 * it is still starting — the start-up gate (bounded, reported through `onWait`). Returns the
 * recoveries done, whether the screen shows a running turn, and how long it waited.
 * @throws {AppError} SESSION_ENDED, TMUX_SERVER_GONE, AGENT_BLOCKED, AGENT_NOT_READY, GROK_*
 */
async function acceptingInput(
  s: AgentSession,
  onWait: DispatchOptions["onWaitForInput"],
): Promise<{ recovered: string[]; busy: boolean; waitedMs: number }> {
  const pane = await s.terminal.pane(s.id);
  const alive = !!pane && !pane.paneDead;
  // Pre-dispatch recovery (Grok): a refused sandbox, or the usage-limit card dismissed once.
  const recovered = await recoverPaneInput(s.input, s.rec, { env: s.deps.env, alive, readers: s.deps.transcripts });
  if (!alive) {
    if (!pane) await s.terminal.throwIfServerGone(s.id, "send to agent");
    throw ended(s);
  }
  let state = await s.input.state();
  let waitedMs = 0;
  if (state.kind === "starting") {
    // A launch without a prompt only started the CLI: this send is where input acceptance is confirmed.
    const started = Date.now();
    const gate = await startupGate(s.input, {
      trustProject: false,
      timeoutMs: startupTimeoutMs(s.terminal.config),
      ...(onWait ? { onWait } : {}),
    });
    waitedMs = Date.now() - started;
    if (gate.status !== "ready") throw gateRefusal(s, gate.reason, waitedMs);
    state = await s.input.state();
  }
  if (state.kind === "blocked") throw blocked(s, state.reason);
  if (state.kind === "exited" || state.kind === "starting") {
    throw new AppError("AGENT_NOT_READY", `Cannot send to agent session "${s.id}": ${s.rec.harness} is ${state.kind}`, {
      suggestion: "nothing was typed; try again when it shows its prompt",
    });
  }
  return { recovered, busy: state.kind === "busy", waitedMs };
}

/**
 * Sends `text` to an agent session (see module doc). Runs under the session's send lock.
 * @throws {AppError} SESSION_NOT_FOUND, AGENT_SESSION_REQUIRED, AGENT_BLOCKED, AGENT_NOT_READY,
 *   SESSION_ENDED, INPUT_TOO_LARGE, INVALID_ARGUMENT (blank text), AGENT_STEER_NOT_TAKEN
 */
export async function dispatchTurn(
  deps: AgentDeps,
  id: string,
  text: string,
  options: DispatchOptions = {},
): Promise<DispatchReceipt> {
  cleanPrompt(text);
  return await deps.terminal.withLock(id, async () => {
    const s = await AgentSession.open(deps, id);
    const ready = await acceptingInput(s, options.onWaitForInput);
    let status = await turnRunning(deps, s.rec, s.adapter, ready.busy);
    if (status.screenLags && (await screenCatchesUp(s))) status = { ...status, running: false };
    let next = status.rec;
    const images = options.images ?? [];
    const imageNote = images.length ? `\n\n[attached images: ${images.join(", ")}]` : "";
    const receipt = async (fields: Pick<DispatchReceipt, "mode" | "event_cursor" | "joined_event_cursor">) => ({
      ...fields,
      session_id: id,
      harness: s.rec.harness,
      launch_id: s.rec.launch_id,
      generation: (await deps.terminal.meta(id))?.generation ?? null,
      pane_input_recovery: ready.recovered,
      waited_for_input_ms: ready.waitedMs,
    });
    if (status.running && options.allowSteer !== false) {
      await options.beforeSteer?.(next.active_turn?.index ?? null, next);
      // Kept before it is typed: evidence for finding the transcript while it is not pinned (turns.ts).
      next = withSentPrompt(next, sanitizeInput(text + imageNote).text);
      // A steer is claimed only when the text joined the turn; otherwise AGENT_STEER_NOT_TAKEN says where it is.
      let joined: number | null;
      try {
        joined = await steerRunningTurn(s, next, text + imageNote);
      } finally {
        await s.save(next);
      }
      return {
        ...(await receipt({ mode: "agent_steer", event_cursor: null, joined_event_cursor: joined })),
        submit_residue: false,
        turn_started: true,
      };
    }
    // The transcript was just read by turnRunning (and pinned into `next` if new): its turn count is the cursor.
    const cursor = status.turnCount;
    await options.beforeNewTurn?.(cursor, next);
    // As the chokepoint types it (sanitised), so the transcript's record of it can be recognised.
    const body = sanitizeInput((next.preface_pending ? lineagePreface(next.lineage, id) : "") + text + imageNote).text;
    next = { ...next, preface_pending: false, active_turn: { index: cursor, dispatched_at_ms: Date.now() } };
    // Saved before it is typed: what ties the transcript this text starts to this launch (turns.ts).
    next = withSentPrompt(next, body);
    await s.save(next);
    const residue = await s.input.submit(body);
    const started = await turnStarted(s, next, cursor);
    if (started.pinned) await s.save({ ...next, transcript_path: started.pinned });
    return {
      ...(await receipt({ mode: "agent_dispatch", event_cursor: cursor, joined_event_cursor: null })),
      submit_residue: residue,
      turn_started: started.started,
    };
  });
}

/**
 * How long a send waits for the screen of a turn its harness has recorded as ended to stop showing busy. The
 * harness writes the turn-end record before it redraws, and aiterm-wait reports that record within milliseconds,
 * so a send right after a wait can see the old busy screen; without this it would be taken for a steer.
 */
const SCREEN_LAG_MS = 1_500;

/** Whether the busy display goes away within {@link SCREEN_LAG_MS} (false: still busy, e.g. a turn typed by a person). */
async function screenCatchesUp(s: AgentSession): Promise<boolean> {
  const idle = await waitUntil(async () => (await s.input.state()).kind !== "busy", {
    timeoutMs: SCREEN_LAG_MS,
    intervalMs: 10,
    maxIntervalMs: 100,
  });
  return idle.status === "done";
}

/**
 * Evidence that the turn began: the transcript has it, or the screen shows the busy display. A transcript
 * found now (its first prompt is one `rec.sent_prompts` holds) is returned to be pinned.
 */
async function turnStarted(
  s: AgentSession,
  rec: AgentRecord,
  cursor: number,
): Promise<{ started: boolean; pinned: string | null }> {
  let pinned: string | null = null;
  const seen = await waitUntil(async () => {
    const loaded = await s.turns(pinned ? { ...rec, transcript_path: pinned } : rec);
    if (loaded.newlyPinned) pinned = loaded.path;
    if (loaded.turns.length > cursor) return { started: true, pinned };
    return (await s.input.state()).kind === "busy" ? { started: true, pinned } : null;
  }, { timeoutMs: 5000, intervalMs: 150 });
  return seen.status === "done" && seen.value ? seen.value : { started: false, pinned };
}
