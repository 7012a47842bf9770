import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { ReadGate } from "./read_gate.ts";

Deno.test("ReadGate: one holder per session, in order; others sessions are free", async () => {
  const gate = new ReadGate();
  const first = await gate.enter("s", { timeoutMs: 0 });
  assert(first);
  assert(gate.busy("s"));
  assert(await gate.enter("t", { timeoutMs: 0 }), "another session is not held");
  // Not free now, and a wait of 0 does not take it.
  assertEquals(await gate.enter("s", { timeoutMs: 0 }), null);
  const order: string[] = [];
  const second = gate.enter("s", { timeoutMs: 5_000 }).then((t) => (order.push("second"), t));
  const third = gate.enter("s", { timeoutMs: 5_000 }).then((t) => (order.push("third"), t));
  await new Promise((r) => setTimeout(r, 20));
  assertEquals(order, []);
  first.release();
  first.release(); // a second release changes nothing
  const s2 = await second;
  assertEquals(order, ["second"]);
  s2!.release();
  (await third)!.release();
  assertEquals(order, ["second", "third"]);
  await new Promise((r) => setTimeout(r, 0));
  assert(!gate.busy("s"));
});

Deno.test("ReadGate: a waiter that gives up (time or abort) holds nothing and keeps the order of the rest", async () => {
  const gate = new ReadGate();
  const first = (await gate.enter("s", { timeoutMs: 0 }))!;
  const ticks: number[] = [];
  assertEquals(await gate.enter("s", { timeoutMs: 50, tick: (ms) => ticks.push(ms) }), null);
  const abort = new AbortController();
  const aborted = gate.enter("s", { timeoutMs: 5_000, signal: abort.signal });
  const later = gate.enter("s", { timeoutMs: 5_000 });
  abort.abort();
  assertEquals(await aborted, null);
  let got = false;
  void later.then(() => (got = true));
  await new Promise((r) => setTimeout(r, 20));
  assert(!got, "the one after a waiter that gave up still waits for the holder");
  first.release();
  (await later)!.release();
  await new Promise((r) => setTimeout(r, 0));
  assert(!gate.busy("s"));
});
