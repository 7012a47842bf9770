/**
 * How long a terminal tool call may wait and how much text its result may carry, for the client that calls
 * (issue 28, ADR 0032), and what a "still running" result names as the next call. Shared by pty_send (which waits
 * for what it typed) and pty_read.
 */
import { z } from "zod";
import { MAX_PAGE_TEXT_BYTES, MAX_TIMEOUT_S, type ReadResult } from "../../terminal/mod.ts";
import type { CallContext } from "../tool.ts";

/** How completion was decided (lib/terminal/completion.ts Via), as the schemas list it. */
export const VIA = [
  "exit",
  "closed",
  "sentinel",
  "until",
  "shell_integration",
  "quiescent",
  "input_prompt",
  "nested",
  "screen_settled",
  "timeout",
] as const;

/** Room in a result for everything besides the text (verdict, cursors, receipt fields), in JSON bytes. */
const OTHER_FIELDS_BYTES = 2048;

/** The wait a call gets. */
export interface WaitPlan {
  /** Seconds to wait, within the client's limit. */
  timeoutS: number;
  /** Seconds the next wait should ask for (the client's whole allowance). */
  nextTimeoutS: number;
  /** Set when an asked timeout was lowered to fit the client: what and why. */
  capped: string | null;
}

/** Seconds a whole call may wait under this client. */
export function fullAllowanceS(ctx: CallContext): number {
  return Math.floor(Math.min(MAX_TIMEOUT_S, (ctx.limits?.maxBlockMs ?? MAX_TIMEOUT_S * 1000) / 1000));
}

/** Seconds this call may still wait: its allowance less what it already took (typing, for a send). */
export function remainingS(ctx: CallContext): number {
  const used = ctx.startedAt !== undefined ? performance.now() - ctx.startedAt : 0;
  return Math.max(0, Math.floor((fullAllowanceS(ctx) * 1000 - used) / 100) / 10);
}

/**
 * The wait of a call that asked for `asked` seconds (null: `fallbackS`, or the whole allowance when that is null too).
 * An asked wait over the allowance is lowered to it and the plan says so. The allowance's margin (ADR 0032) covers the
 * little a call does besides waiting.
 */
export function planWait(ctx: CallContext, asked: number | null | undefined, fallbackS: number | null): WaitPlan {
  const allowance = fullAllowanceS(ctx);
  const want = asked ?? fallbackS ?? allowance;
  const timeoutS = Math.min(want, allowance);
  return {
    timeoutS,
    nextTimeoutS: allowance,
    capped: asked != null && asked > allowance
      ? `timeout ${asked} s lowered to ${allowance} s: ${ctx.limits?.source ?? `at most ${MAX_TIMEOUT_S} s`}`
      : null,
  };
}

/** The JSON bytes a result's text may take for this client (pages beyond it: has_more, next_cursor). */
export function textBudget(ctx: CallContext): number {
  const client = ctx.limits?.maxResultBytes;
  return client === undefined ? MAX_PAGE_TEXT_BYTES : Math.min(MAX_PAGE_TEXT_BYTES, client - OTHER_FIELDS_BYTES);
}

/** `next_call`: the exact call to make next. */
export const NextCallSchema = z.object({
  tool: z.string().describe("The tool"),
  arguments: z.record(z.string(), z.unknown()).describe("Its arguments, as they are"),
}).strict().describe(
  "Still running: make exactly this call to wait for the rest (it blocks at most as long as your client allows)",
);

/** The next call of a wait that ran out while the command still runs; null for any other verdict. */
export function nextCall(
  r: Pick<ReadResult, "session_id" | "via" | "is_complete" | "state">,
  plan: WaitPlan,
  until: { until?: string | undefined; until_regex?: boolean | undefined } = {},
): z.infer<typeof NextCallSchema> | null {
  if (r.is_complete !== false || r.via !== "timeout" || r.state === "ended") return null;
  const wait = until.until
    ? { until: until.until, ...(until.until_regex ? { until_regex: true } : {}) }
    : { wait: true };
  return { tool: "pty_read", arguments: { session_id: r.session_id, ...wait, timeout: plan.nextTimeoutS } };
}
