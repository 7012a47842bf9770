/**
 * The calling client's limits across a relay (ADR 0032): an aiterm that relays a call to another host's aiterm
 * passes its own client's limits in the call's `_meta`, and the remote one applies the tighter of those and its own.
 */
import type { CallLimits } from "../../harnesses/clients/mod.ts";

/** The `_meta` key under which a relaying aiterm passes on its own client's limits (./relay.ts). */
export const RELAYED_LIMITS_KEY = "aiterm/call_limits";

/** The limits a relaying aiterm hands on: its client's, less a margin for the way over ssh and back. */
export function relayLimits(l: CallLimits): Record<string, unknown> {
  return {
    max_block_ms: Math.max(1000, l.maxBlockMs - 3000),
    max_result_bytes: Math.max(16_384, l.maxResultBytes - 1024),
    source: l.source,
  };
}

/** The limits a relaying aiterm passed in a call's `_meta`, or null (none, or not well formed). */
export function relayedLimits(meta: Record<string, unknown> | undefined): CallLimits | null {
  const v = meta?.[RELAYED_LIMITS_KEY] as Record<string, unknown> | undefined;
  if (!v || typeof v !== "object") return null;
  const block = v.max_block_ms;
  const bytes = v.max_result_bytes;
  if (typeof block !== "number" || typeof bytes !== "number" || !(block > 0) || !(bytes > 0)) return null;
  return {
    clientCutMs: block,
    maxBlockMs: block,
    maxResultBytes: bytes,
    source: `${typeof v.source === "string" ? v.source.slice(0, 200) : "the calling client"} (relayed)`,
  };
}

/** The tighter of two limits, field by field. */
export function tighterLimits(own: CallLimits, relayed: CallLimits | null): CallLimits {
  if (!relayed) return own;
  return {
    clientCutMs: Math.min(own.clientCutMs, relayed.clientCutMs),
    maxBlockMs: Math.min(own.maxBlockMs, relayed.maxBlockMs),
    maxResultBytes: Math.min(own.maxResultBytes, relayed.maxResultBytes),
    source: relayed.maxBlockMs < own.maxBlockMs ? relayed.source : own.source,
  };
}
