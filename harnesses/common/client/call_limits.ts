/**
 * How long one tool call may block and how large its result may be, for the client that calls (issue 28,
 * ADR 0032). Each vendor's own numbers live in its client module (harnesses/<vendor>/client/call_limits.ts);
 * this file holds the shape, the margin rule and the limits of a client nobody knows.
 */

/** What the calling client tolerates from one tool call. */
export interface CallLimits {
  /** The client's own cut, in ms: it cancels, cuts or backgrounds a call still running then. */
  clientCutMs: number;
  /** The longest aiterm lets a call block: {@link clientCutMs} less a margin. */
  maxBlockMs: number;
  /** The most JSON bytes of a result the client hands its model whole. */
  maxResultBytes: number;
  /** Where the cut comes from, for a model and a person: `claude-code: a call still running at 120 s is moved to the background`. */
  source: string;
}

/** A client's limits before the margin is taken off. */
export interface ClientCut {
  cutMs: number;
  resultBytes: number;
  source: string;
}

/** One vendor's reading of its own client: null when `clientName` is not that client. */
export type ClientCutReader = (clientName: string, env: Record<string, string | undefined>) => ClientCut | null;

/** The largest result any client gets: aiterm's own net (lib/mcp/result.ts MAX_RESULT_BYTES). */
export const ANY_CLIENT_RESULT_BYTES = 1024 * 1024;

/**
 * Any other MCP client: the TypeScript SDK's default request timeout (60 s, DEFAULT_REQUEST_TIMEOUT_MSEC), and
 * results as large as aiterm sends at all.
 */
export const OTHER_CLIENT_CUT: ClientCut = {
  cutMs: 60_000,
  resultBytes: ANY_CLIENT_RESULT_BYTES,
  source: "an MCP SDK client's default request timeout is 60 s",
};

/**
 * The longest a call may block under a cut of `cutMs`: 8 % of it, at least 3 s and at most 15 s, is left for the
 * work around the wait (typing, reading and reducing the output, the answer's way back), in whole seconds. 120 s → 110 s,
 * 300 s → 285 s, 60 s → 55 s, 30 s → 27 s; never below 1 s.
 */
export function blockWithin(cutMs: number): number {
  const margin = Math.min(15_000, Math.max(3_000, Math.round(cutMs * 0.08)));
  return Math.max(1_000, Math.floor((cutMs - margin) / 1000) * 1000);
}

/** A positive number of seconds or milliseconds from an environment value, else null. */
export function positiveNumber(value: string | undefined): number | null {
  if (value === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return null;
  const n = Number(value);
  return n > 0 && Number.isFinite(n) ? n : null;
}

/** The limits of a cut, with the margin taken off. */
export function limitsOf(cut: ClientCut): CallLimits {
  return {
    clientCutMs: cut.cutMs,
    maxBlockMs: blockWithin(cut.cutMs),
    maxResultBytes: Math.min(cut.resultBytes, ANY_CLIENT_RESULT_BYTES),
    source: cut.source,
  };
}
