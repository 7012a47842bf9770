import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { AppError } from "./errors.ts";
import { sleep, waitFor, waitUntil } from "./wait.ts";
import { Wake } from "./wake.ts";

Deno.test("waitFor() returns the first observation the predicate accepts", async () => {
  let n = 0;
  const got = await waitFor(() => ++n, { timeoutMs: 5_000, intervalMs: 1, until: (v) => v >= 3 });
  assertEquals(got, 3);
});

Deno.test("waitFor() throws WAIT_TIMEOUT carrying the last observation", async () => {
  let n = 0;
  let thrown: unknown = null;
  try {
    await waitFor(() => ({ seen: ++n }), { timeoutMs: 40, intervalMs: 5, until: () => false, what: "the pane" });
  } catch (err) {
    thrown = err;
  }
  assert(thrown instanceof AppError, String(thrown));
  assertEquals(thrown.code, "WAIT_TIMEOUT");
  assertEquals((thrown.data?.last as { seen: number }).seen, n);
  assertEquals(thrown.data?.what, "the pane");
  assert(n >= 2, `probed more than once (${n})`);
});

Deno.test("waitUntil() reports a timeout as an outcome, with a final look at the deadline", async () => {
  const out = await waitUntil(() => "no", { timeoutMs: 30, intervalMs: 50, until: () => false });
  assertEquals(out.status, "timeout");
  assert(out.status === "timeout" && out.last === "no");
  assert(out.elapsedMs >= 30, `waited the budget (${out.elapsedMs})`);
});

Deno.test("waitUntil() ends with aborted when the signal aborts mid-pause; waitFor throws its reason", async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error("stop")), 20);
  const started = performance.now();
  const out = await waitUntil(() => false, { timeoutMs: 10_000, intervalMs: 5_000, signal: ac.signal });
  assertEquals(out.status, "aborted");
  assert(performance.now() - started < 2_000, "did not sleep the whole pause");
  let thrown: unknown = null;
  try {
    await waitFor(() => false, { timeoutMs: 10_000, signal: ac.signal });
  } catch (err) {
    thrown = err;
  }
  assertEquals((thrown as Error).message, "stop");
});

Deno.test("waitUntil() backs off from intervalMs to maxIntervalMs", async () => {
  const at: number[] = [];
  await waitUntil(() => at.push(performance.now()) >= 6, { timeoutMs: 5_000, intervalMs: 4, maxIntervalMs: 32 });
  const gaps = at.slice(1).map((t, i) => t - at[i]!);
  assert(gaps[gaps.length - 1]! >= 25, `the last pause reached the ceiling (${gaps.map(Math.round)})`);
});

Deno.test("waitUntil() wakes on a change in a watched directory before its pause ends", async () => {
  const dir = await Deno.makeTempDir({ prefix: "aiterm_wait_" });
  try {
    const file = `${dir}/ready`;
    setTimeout(() => Deno.writeTextFileSync(file, "x"), 100);
    const started = performance.now();
    const out = await waitUntil(() => Deno.stat(file).then(() => true, () => false), {
      timeoutMs: 20_000,
      intervalMs: 10_000,
      watch: [dir],
    });
    assertEquals(out.status, "done");
    assert(performance.now() - started < 8_000, "a watch event ended the 10 s pause");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sleep() pauses and returns early on abort", async () => {
  const ac = new AbortController();
  const started = performance.now();
  setTimeout(() => ac.abort(), 10);
  await sleep(5_000, ac.signal);
  assert(performance.now() - started < 2_000);
  await sleep(1);
});

Deno.test("Wake keeps a change that fired while nobody waited, and dispose ends a pending next()", async () => {
  const wake = new Wake();
  wake.fire();
  assertEquals(await wake.next(5_000), "change");
  assertEquals(await wake.next(1), "tick");
  const pending = wake.next(5_000);
  wake[Symbol.dispose]();
  assertEquals(await pending, "aborted");
  assertEquals(await wake.next(5_000), "aborted");
});

Deno.test("Wake with a gate defers a change until the gate allows it", async () => {
  let allowed = false;
  const wake = new Wake({ gate: { delay: () => (allowed ? 0 : 30), spend: () => {} } });
  try {
    const next = wake.next(5_000);
    wake.fire();
    setTimeout(() => (allowed = true), 10);
    assertEquals(await next, "change");
  } finally {
    wake[Symbol.dispose]();
  }
});

Deno.test("Wake.watch() filters by name and reports a watch it cannot start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "aiterm_wake_" });
  const wake = new Wake();
  try {
    assertEquals(wake.watch(`${dir}/missing`), null);
    const w = wake.watch(dir, new Set(["wanted"]));
    assert(w?.live);
    Deno.writeTextFileSync(`${dir}/other`, "x");
    assertEquals(await wake.next(300), "tick");
    Deno.writeTextFileSync(`${dir}/wanted`, "x");
    assertEquals(await wake.next(10_000), "change");
  } finally {
    wake[Symbol.dispose]();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("waitUntil() looks again at once when again() says so, telling the probe 'change'", async () => {
  const woke: string[] = [];
  const started = performance.now();
  const out = await waitUntil((w) => (woke.push(w), woke.length), {
    timeoutMs: 10_000,
    intervalMs: 5_000,
    until: (n) => n >= 3,
    again: (n) => n < 3,
  });
  assertEquals(out.status, "done");
  assertEquals(woke, ["first", "change", "change"]);
  assert(performance.now() - started < 2_000, "no pause was taken");
});
