import { assertEquals } from "../../tests/helpers/assert.ts";
import { RELAYED_LIMITS_KEY, relayedLimits, relayLimits, tighterLimits } from "./call_limits.ts";

Deno.test("relayed limits: less a margin on the way out, only well-formed ones taken, the tighter one applies", () => {
  const own = { clientCutMs: 60_000, maxBlockMs: 55_000, maxResultBytes: 1_048_576, source: "remote's own" };
  const sent = relayLimits({ clientCutMs: 300_000, maxBlockMs: 27_000, maxResultBytes: 32_768, source: "codex" });
  assertEquals(sent, { max_block_ms: 24_000, max_result_bytes: 31_744, source: "codex" });
  const got = relayedLimits({ [RELAYED_LIMITS_KEY]: sent });
  assertEquals(tighterLimits(own, got), {
    clientCutMs: 24_000,
    maxBlockMs: 24_000,
    maxResultBytes: 31_744,
    source: "codex (relayed)",
  });
  for (const bad of [undefined, {}, { [RELAYED_LIMITS_KEY]: "x" }, { [RELAYED_LIMITS_KEY]: { max_block_ms: -1 } }]) {
    assertEquals(relayedLimits(bad as Record<string, unknown> | undefined), null);
  }
  assertEquals(tighterLimits(own, null), own);
});
