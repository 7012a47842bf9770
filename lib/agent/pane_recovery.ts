/**
 * What a dispatch checks on the pane before anything is decided or typed, for harnesses that declare it
 * (Grok): a sandbox the CLI refused to start (GROK_SANDBOX_STARTUP_FAILED with its cause), and the
 * usage-limit card left over from a turn that ended in error, which a dispatch dismisses once. Reads,
 * observation, configuration and steers never dismiss it. Also how a waiter tells a rate-limited error
 * turn from a plain one: this turn's error record plus the card on screen now, never old records alone.
 */
import { AppError } from "../../base/errors.ts";
import { waitUntil } from "../../base/wait.ts";
import type { HarnessAdapter } from "../../harnesses/mod.ts";
import type { Terminal } from "../terminal/mod.ts";
import type { AgentRecord } from "./record.ts";
import { loadTurns } from "./turns.ts";
import type { TranscriptReaders } from "./transcript_reader.ts";
import type { PaneInput } from "./typing.ts";

/** How long input may take to be ready after the card is dismissed. */
const READY_MS = 5000;

/** The facts {@link recoverPaneInput} checks with. */
export interface RecoveryFacts {
  env: Record<string, string | undefined>;
  /** False when the harness process has ended: only then is the sandbox refusal looked for, only while alive the card. */
  alive: boolean;
  /**
   * The process's transcript readers (the card's check reads the latest turn; without them the transcript is parsed
   * from its start).
   */
  readers?: TranscriptReaders | undefined;
}

/**
 * Runs the pre-dispatch checks on the session of `input` and returns the recoveries done
 * (`pane_input_recovery`).
 * @throws {AppError} GROK_SANDBOX_STARTUP_FAILED, GROK_RATE_LIMIT_RECOVERY_BLOCKED, GROK_RATE_LIMIT_RECOVERY_FAILED
 */
export async function recoverPaneInput(input: PaneInput, rec: AgentRecord, facts: RecoveryFacts): Promise<string[]> {
  const { env, alive, readers } = facts;
  const { adapter, id } = input;
  const sandbox = adapter.sandboxRefusal;
  const card = adapter.rateLimitCard;
  if (!sandbox && !card) return [];
  const screen = await input.screen();
  // The CLI exits after refusing: look only at an ended pane, history included (a screen clear can push the
  // first line of the message there).
  const cause = sandbox && !alive
    ? sandbox.cause((await input.terminal.screen(id, { scrollback: 200 })) ?? screen)
    : null;
  if (sandbox && cause) {
    throw new AppError(sandbox.code, `${rec.harness} in session "${id}" refused to start its sandbox: ${cause}`, {
      suggestion:
        "nothing was sent; fix the cause where that setting is managed, then pty_close the session and launch again",
      data: { cause },
    });
  }
  const keys = alive && card ? card.dismiss(screen) : null;
  if (!card || !keys) return [];
  const latest = (await loadTurns(adapter, rec, { env, readers })).turns.at(-1);
  if (latest?.status !== "error") {
    throw new AppError(
      card.blockedCode,
      `Cannot send to agent session "${id}": ${rec.harness} shows its usage-limit card, but its latest turn ${
        latest ? `is ${latest.status}` : "is not recorded"
      }, not ended in an error`,
      {
        suggestion: "nothing was sent; look at it with pty_read screen:true",
        data: { latest_turn_status: latest?.status ?? null },
      },
    );
  }
  await input.steps(keys);
  let stable = 0;
  let state = "unknown";
  // No pause before the first look: the screen decides (the card gone and input ready on two looks in a
  // row, 120 ms apart), so a look taken before the CLI redrew only counts as not yet.
  const ready = await waitUntil(async () => {
    const now = await input.screen();
    const s = adapter.classifyScreen(now);
    state = s.kind === "blocked" ? `blocked:${s.reason}` : s.kind;
    stable = s.kind === "ready" && !card.dismiss(now) ? stable + 1 : 0;
    return stable >= 2;
  }, { timeoutMs: READY_MS, intervalMs: 120 });
  if (ready.status === "done") return [card.recovery];
  throw new AppError(
    card.failedCode,
    `Cannot send to agent session "${id}": the usage-limit card was dismissed once, but ${rec.harness} does not accept input (${state})`,
    {
      suggestion: "nothing was sent; look at it with pty_read screen:true",
      data: { screen_state: state },
    },
  );
}

/**
 * The usage-limit card on the screen right after a turn ended in error (its heading), or null. Harnesses
 * with a card (Grok) draw it a moment after the error record, so the screen is watched until it shows
 * the card or input-ready (at most 3 s); others are looked at once.
 */
export async function limitCardAfterError(
  terminal: Terminal,
  adapter: HarnessAdapter,
  id: string,
): Promise<string | null> {
  const seen = await waitUntil(async () => adapter.classifyScreen((await terminal.screen(id)) ?? ""), {
    timeoutMs: adapter.rateLimitCard ? 3000 : 0,
    intervalMs: 100,
    until: (s) => s.kind === "ready" || s.kind === "exited" || (s.kind === "blocked" && s.reason === "rate_limited"),
  });
  const s = seen.status === "done" ? seen.value : null;
  return s?.kind === "blocked" && s.reason === "rate_limited" ? s.detail ?? "rate limited" : null;
}
