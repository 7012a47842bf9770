/**
 * `aiterm-wait`: a pure reader that blocks until turn `cursor` of an agent session ends and says how
 * (exit 0 done, 3 timeout, 4 closed, 6 not found, 7 error; an error turn whose usage-limit card is on screen says
 * `rate_limited: …` in `error`). With `reportBlocked` it also returns early, exit 5 `blocked`, when the
 * turn cannot go on by itself (a dialog such as approval_required, or a stopped harness): the turn is
 * still open, the same cursor can be waited on again. It never types, never changes the turn marker,
 * and never resends anything.
 */
import { waitUntil } from "../../base/wait.ts";
import { getHarness } from "../../harnesses/mod.ts";
import type { Terminal } from "../terminal/mod.ts";
import { readAgentRecord } from "./record.ts";
import { loadTurns } from "./turns.ts";
import { TranscriptReaders } from "./transcript_reader.ts";
import { limitCardAfterError } from "./pane_recovery.ts";
import { stuckReason } from "./agent_state.ts";
import { FileWaker, type WakeReason } from "../../platform/mod.ts";

/** The waiter's verdict (printed as JSON). */
export interface WaitOutcome {
  schema: "aiterm.wait-result.v1";
  session_id: string;
  cursor: number;
  outcome: "done" | "timeout" | "closed" | "error" | "blocked" | "not_found" | "running";
  turn_id: string | null;
  error: string | null;
  /** Why the turn is stuck (outcome blocked): approval_required, harness_stopped, rate_limited, … */
  reason?: string;
  exit_code: 0 | 3 | 4 | 5 | 6 | 7 | 8;
}

/**
 * Exit codes (lib/wait_cli.ts documents them): not_found (6) is a session that did not exist, or
 * was not an agent session, at the first look (a typo is not "closed"); running (8) only with
 * `reportNow`.
 */
const EXIT = { done: 0, timeout: 3, closed: 4, blocked: 5, not_found: 6, error: 7, running: 8 } as const;

/** How long a stuck state must last before a waiter reports it (one redraw is not a dialog). */
const BLOCKED_CONFIRM_MS = 800;

/**
 * The fallback tick between looks when no watched file changed: it starts at FIRST_TICK_MS and
 * doubles up to MAX_TICK_MS (STUCK_TICK_MS while a dialog is being confirmed). A normal completion
 * never waits for it: the harness's write wakes the waiter (platform/file_waker.ts).
 */
const FIRST_TICK_MS = 50;
const MAX_TICK_MS = 500;
const STUCK_TICK_MS = 250;

/** Options for {@link waitForTurn}. */
export interface WaitTurnOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  env: Record<string, string | undefined>;
  /** The session generation the cursor belongs to; another generation is SESSION_STALE (outcome closed). */
  generation?: string | null;
  /** Return `blocked` (exit 5) when the turn is stuck on a dialog or a stopped harness (aiterm-wait does). */
  reportBlocked?: boolean;
  /**
   * Report now (aiterm-wait --timeout 0): one look, then done / error / closed / blocked (a dialog on
   * this look, no confirmation wait) or `running`, never `timeout`.
   */
  reportNow?: boolean;
  /** The process's transcript readers (absent: this wait keeps its own for its whole loop). */
  transcripts?: TranscriptReaders;
  /** The fallback tick's first and longest gap (default 50 → 500 ms); tests set it high to prove the watch wakes. */
  fallbackTickMs?: number;
}

/** A look that did not end the wait: the turn seen so far, and whether it started a new watch. */
interface Pending {
  turnId: string | null;
  newWatch: boolean;
}

/** Waits for turn `cursor` (see module doc). */
export async function waitForTurn(
  terminal: Terminal,
  id: string,
  cursor: number,
  options: WaitTurnOptions,
): Promise<WaitOutcome> {
  const result = (outcome: WaitOutcome["outcome"], turnId: string | null, error: string | null): WaitOutcome => ({
    schema: "aiterm.wait-result.v1",
    session_id: id,
    cursor,
    outcome,
    turn_id: turnId,
    error,
    exit_code: EXIT[outcome],
  });
  let stuck: { reason: string; since: number } | null = null;
  const maxTick = options.fallbackTickMs ?? MAX_TICK_MS;
  // Watches first, then the first look: a write after the look is an event, never lost.
  using waker = new FileWaker(terminal.sessionDir(id));
  let sideAt = 0;
  const transcripts = options.transcripts ?? new TranscriptReaders();
  /** One look: the outcome when the wait is over, else the turn id seen so far. */
  const look = async (woke: "first" | WakeReason): Promise<WaitOutcome | Pending> => {
    if (options.generation) {
      const meta = await terminal.meta(id).catch(() => null);
      if (meta?.generation !== options.generation) {
        return result(
          "closed",
          null,
          "SESSION_STALE: the session was closed or replaced; this cursor belongs to an earlier one",
        );
      }
    }
    const rec = await readAgentRecord(terminal.sessionDir(id));
    const adapter = rec ? getHarness(rec.harness) : null;
    if (!rec || !adapter) {
      if (woke === "first") {
        const known = await terminal.describe(id).catch(() => ({ meta: null, live: null }));
        return known.meta || known.live
          ? result("not_found", null, `AGENT_SESSION_REQUIRED: session "${id}" has no agent (it is a plain terminal)`)
          : result("not_found", null, `SESSION_NOT_FOUND: no session "${id}" (check the id; see pty_list)`);
      }
      return result("closed", null, "the session has no agent record (closed or never launched)");
    }
    const loaded = await loadTurns(adapter, rec, {
      env: options.env,
      readers: transcripts,
      sessionDir: terminal.sessionDir(id),
    });
    const turn = loaded.turns[cursor];
    if (turn && turn.status === "done") return result("done", turn.turnId, null);
    if (turn && turn.status === "error") {
      // This turn's error record plus the usage-limit card on screen now: "rate_limited: <card> (<error>)".
      const card = await limitCardAfterError(terminal, adapter, id);
      const why = turn.error ?? "the harness recorded an error";
      return result("error", turn.turnId, card ? `rate_limited: ${card} (${why})` : why);
    }
    if (turn && turn.status === "interrupted") return result("error", turn.turnId, "the turn was interrupted");
    // The pane and the screen are asked (tmux calls) on the first look, on ticks, and at least every
    // MAX_TICK_MS while the harness keeps writing; a look woken by a write reads only the transcript, so
    // the next record of a turn that is ending is not kept waiting behind them.
    if (woke !== "change" || Date.now() - sideAt >= maxTick) {
      sideAt = Date.now();
      const pane = await terminal.pane(id);
      if (!pane || pane.paneDead) {
        // One last look: the harness may have written the end record just before exiting.
        const final = (await loadTurns(adapter, rec, {
          env: options.env,
          readers: transcripts,
          sessionDir: terminal.sessionDir(id),
        })).turns[cursor];
        if (final?.status === "done") return result("done", final.turnId, null);
        return result("closed", final?.turnId ?? null, null);
      }
      if (options.reportBlocked) {
        const reason = await stuckReason(terminal, id);
        if (!reason) stuck = null;
        else if (options.reportNow) return { ...result("blocked", turn?.turnId ?? null, null), reason };
        else if (!stuck || stuck.reason !== reason) stuck = { reason, since: Date.now() };
        else if (Date.now() - stuck.since >= BLOCKED_CONFIRM_MS) {
          return { ...result("blocked", turn?.turnId ?? null, null), reason };
        }
      }
    }
    // Wake on the harness's write (a watch on the transcript's directory, or on its nearest existing
    // ancestor until the harness creates it). A watch started just now missed what was written since
    // the look above: look once more before sleeping. The tick is the bounded fallback: it notices a
    // pane that died and a screen that became stuck, and it is the only wake-up where watches fail.
    return { turnId: turn?.turnId ?? null, newWatch: await waker.follow(loaded.path) };
  };
  const out = await waitUntil(look, {
    timeoutMs: options.timeoutMs,
    intervalMs: options.fallbackTickMs ?? FIRST_TICK_MS,
    maxIntervalMs: () => stuck ? Math.min(STUCK_TICK_MS, maxTick) : maxTick,
    until: (seen) => "schema" in seen,
    again: (seen) => "newWatch" in seen && seen.newWatch,
    wake: waker,
    signal: options.signal,
  });
  if (out.status === "done") return out.value as WaitOutcome;
  const turnId = out.last && "turnId" in out.last ? out.last.turnId : null;
  return out.status === "aborted"
    ? result("timeout", turnId, "cancelled")
    : result(options.reportNow ? "running" : "timeout", turnId, null);
}
