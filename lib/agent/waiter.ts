/**
 * `aiterm-wait`: a pure reader that blocks until turn `cursor` of an agent session ends and says how
 * (exit 0 done, 3 timeout, 4 closed, 7 error; an error turn whose usage-limit card is on screen says
 * `rate_limited: …` in `error`). With `reportBlocked` it also returns early, exit 5 `blocked`, when the
 * turn cannot go on by itself (a dialog such as approval_required, or a stopped harness): the turn is
 * still open, the same cursor can be waited on again. It never types, never changes the turn marker,
 * and never resends anything.
 */
import { getHarness } from "../../harnesses/mod.ts";
import type { Terminal } from "../terminal/mod.ts";
import { readAgentRecord } from "./record.ts";
import { loadTurns } from "./turns.ts";
import { limitCardAfterError } from "./pane_recovery.ts";
import { stuckReason } from "./observe.ts";

/** The waiter's verdict (printed as JSON). */
export interface WaitOutcome {
  schema: "aiterm.wait-result.v1";
  session_id: string;
  cursor: number;
  outcome: "done" | "timeout" | "closed" | "error" | "blocked";
  turn_id: string | null;
  error: string | null;
  /** Why the turn is stuck (outcome blocked): approval_required, harness_stopped, rate_limited, … */
  reason?: string;
  exit_code: 0 | 3 | 4 | 5 | 7;
}

const EXIT = { done: 0, timeout: 3, closed: 4, blocked: 5, error: 7 } as const;

/** How long a stuck state must last before a waiter reports it (one redraw is not a dialog). */
const BLOCKED_CONFIRM_MS = 800;

/** Options for {@link waitForTurn}. */
export interface WaitTurnOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  env: Record<string, string | undefined>;
  /** The session generation the cursor belongs to; another generation is SESSION_STALE (outcome closed). */
  generation?: string | null;
  /** Return `blocked` (exit 5) when the turn is stuck on a dialog or a stopped harness (aiterm-wait does). */
  reportBlocked?: boolean;
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
  const deadline = Date.now() + options.timeoutMs;
  let stuck: { reason: string; since: number } | null = null;
  let delay = 50;
  let watcher: Deno.FsWatcher | null = null;
  let watchedPath: string | null = null;
  try {
    for (;;) {
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
      if (!rec || !adapter) return result("closed", null, "the session has no agent record (closed or never launched)");
      const loaded = await loadTurns(adapter, rec, options.env);
      const turn = loaded.turns[cursor];
      if (turn && turn.status === "done") return result("done", turn.turnId, null);
      if (turn && turn.status === "error") {
        // This turn's error record plus the usage-limit card on screen now: "rate_limited: <card> (<error>)".
        const card = await limitCardAfterError(terminal, adapter, id);
        const why = turn.error ?? "the harness recorded an error";
        return result("error", turn.turnId, card ? `rate_limited: ${card} (${why})` : why);
      }
      if (turn && turn.status === "interrupted") return result("error", turn.turnId, "the turn was interrupted");
      const pane = await terminal.mux.paneInfo(id);
      if (!pane || pane.paneDead) {
        // One last look: the harness may have written the end record just before exiting.
        const final = (await loadTurns(adapter, rec, options.env)).turns[cursor];
        if (final?.status === "done") return result("done", final.turnId, null);
        return result("closed", final?.turnId ?? null, null);
      }
      if (options.reportBlocked) {
        const reason = await stuckReason(terminal, id);
        if (!reason) stuck = null;
        else if (!stuck || stuck.reason !== reason) stuck = { reason, since: Date.now() };
        else if (Date.now() - stuck.since >= BLOCKED_CONFIRM_MS) {
          return { ...result("blocked", turn?.turnId ?? null, null), reason };
        }
      }
      if (Date.now() >= deadline) return result("timeout", turn?.turnId ?? null, null);
      if (options.signal?.aborted) return result("timeout", turn?.turnId ?? null, "cancelled");
      // Wake on a transcript write; a bounded backoff covers the time before the file exists.
      const dir = loaded.path ? loaded.path.slice(0, loaded.path.lastIndexOf("/")) : null;
      if (dir && dir !== watchedPath) {
        watcher?.close();
        try {
          watcher = Deno.watchFs(dir, { recursive: false });
          watchedPath = dir;
        } catch {
          watcher = null;
        }
      }
      await Promise.race([
        new Promise((r) => setTimeout(r, delay)),
        watcher ? watcher[Symbol.asyncIterator]().next() : new Promise(() => {}),
      ]);
      delay = Math.min(delay * 2, stuck ? 250 : 500);
    }
  } finally {
    try {
      watcher?.close();
    } catch {
      // closed
    }
  }
}
