/**
 * The pre-dispatch checks (sandbox refusal, usage-limit card) and the waiter's card reading, against a
 * stub multiplexer showing real Grok 1.0.41 captures and a real transcript from harnesses/testdata/grok/.
 */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { AppError } from "../../base/errors.ts";
import { getHarness } from "../../harnesses/mod.ts";
import type { HarnessAdapter } from "../../harnesses/mod.ts";
import type { Terminal } from "../terminal/mod.ts";
import type { AgentDeps } from "./session.ts";
import type { AgentRecord } from "./record.ts";
import { limitCardAfterError, recoverPaneInput } from "./pane_recovery.ts";
import { PaneInput } from "./typing.ts";

const testdata = new URL("../../harnesses/testdata/grok/", import.meta.url);
const screen = (name: string) => Deno.readTextFileSync(new URL(`screens/${name}.txt`, testdata));
const CARD = screen("real-10-rate-limit-card");
const READY = screen("real-05-after-slow");
const BUSY = screen("real-04-busy");
const grok = getHarness("grok-cli")!;

/** Screens shown before and after the first key; records the keys. */
function stub(before: string[], after: string[] = before): { deps: AgentDeps; keys: string[] } {
  const keys: string[] = [];
  let reads = 0;
  // The two program-input methods of Terminal the agent layer uses (screen, typeExact).
  const terminal = {
    screen: () => {
      const list = keys.length === 0 ? before : after;
      return Promise.resolve(list[Math.min(reads++, list.length - 1)]!);
    },
    typeExact: (_n: string, input: { keys: string[] } | { paste: string }) => {
      keys.push(...("keys" in input ? input.keys : [input.paste]));
      reads = 0;
      return Promise.resolve();
    },
  } as unknown as Terminal;
  return { deps: { terminal, env: {}, defaultCwd: "/" }, keys };
}

/** recoverPaneInput() on session "s" of the stub, through the session's typing chokepoint. */
function recover(deps: AgentDeps, rec: AgentRecord, adapter: HarnessAdapter, alive: boolean): Promise<string[]> {
  return recoverPaneInput(new PaneInput(deps.terminal, "s", adapter), rec, { env: deps.env, alive });
}

/** An agent record whose pinned transcript is the real sample `name` (read only). */
function record(name: string): Promise<AgentRecord> {
  const path = new URL(`samples/${name}`, testdata).pathname;
  return Promise.resolve({ harness: "grok-cli", transcript_path: path, active_turn: null } as unknown as AgentRecord);
}

async function rejects(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    assert(e instanceof AppError, String(e));
    return e;
  }
  throw new Error("expected an AppError");
}

Deno.test("recoverPaneInput() dismisses the card once after an error turn and reports it", async () => {
  const { deps, keys } = stub([CARD], [READY]);
  assertEquals(await recover(deps, await record("real-402-updates.jsonl"), grok, true), [
    "grok_rate_limit_dialog_dismissed",
  ]);
  assertEquals(keys, ["X"]);
});

Deno.test("recoverPaneInput() is GROK_RATE_LIMIT_RECOVERY_BLOCKED when the latest turn did not end in error", async () => {
  const { deps, keys } = stub([CARD]);
  const e = await rejects(recover(deps, await record("real-send-now-updates.jsonl"), grok, true));
  assertEquals([e.code, e.data?.latest_turn_status], ["GROK_RATE_LIMIT_RECOVERY_BLOCKED", "done"]);
  assertEquals(keys, []);
});

Deno.test("recoverPaneInput() is GROK_RATE_LIMIT_RECOVERY_FAILED when the card stays, with X pressed only once", async () => {
  const { deps, keys } = stub([CARD], [CARD]);
  const e = await rejects(recover(deps, await record("real-402-updates.jsonl"), grok, true));
  assertEquals([e.code, e.data?.screen_state], ["GROK_RATE_LIMIT_RECOVERY_FAILED", "blocked:rate_limited"]);
  assertEquals(keys, ["X"]);
  // Input that never becomes ready after the card left is the same failure.
  const busy = stub([CARD], [BUSY]);
  const e2 = await rejects(recover(busy.deps, await record("real-402-updates.jsonl"), grok, true));
  assertEquals([e2.code, e2.data?.screen_state], ["GROK_RATE_LIMIT_RECOVERY_FAILED", "busy"]);
});

Deno.test("recoverPaneInput() leaves every other screen alone", async () => {
  for (const s of [READY, BUSY, CARD + "\n" + READY]) {
    const { deps, keys } = stub([s]);
    assertEquals(await recover(deps, await record("real-402-updates.jsonl"), grok, true), []);
    assertEquals(keys, []);
  }
  // A dead harness is never "recovered".
  const dead = stub([CARD]);
  assertEquals(await recover(dead.deps, await record("real-402-updates.jsonl"), grok, false), []);
  // Harnesses without these checks are not even looked at.
  const claude = stub([CARD]);
  assertEquals(
    await recover(claude.deps, await record("real-402-updates.jsonl"), getHarness("claude-code")!, true),
    [],
  );
});

Deno.test("recoverPaneInput() is GROK_SANDBOX_STARTUP_FAILED with the CLI's cause once the CLI has exited", async () => {
  const { deps, keys } = stub([screen("real-11-sandbox-refused")]);
  const e = await rejects(recover(deps, await record("real-402-updates.jsonl"), grok, false));
  assertEquals(e.code, "GROK_SANDBOX_STARTUP_FAILED");
  assert(
    String(e.data?.cause).startsWith("sandbox profile resolve failed: symlinked GROK_HOME"),
    String(e.data?.cause),
  );
  assertEquals(keys, []);
  // A live TUI is never taken for a refusal, whatever its history holds.
  const live = stub([screen("real-11-sandbox-refused")]);
  assertEquals(await recover(live.deps, await record("real-402-updates.jsonl"), grok, true), []);
});

Deno.test("limitCardAfterError() waits out Grok's busy frame for the card, and stops at input-ready", async () => {
  const card = stub([BUSY, BUSY, CARD]);
  assertEquals(await limitCardAfterError(card.deps.terminal, grok, "s"), "You hit your weekly limit.");
  const plain = stub([BUSY, READY, CARD]);
  assertEquals(await limitCardAfterError(plain.deps.terminal, grok, "s"), null);
});
