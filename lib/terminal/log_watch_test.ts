import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { LazyLogWaker, MIN_WAKE_GAP_MS, WAKE_BURST, WakeMeter, watchLog } from "./log_watch.ts";

Deno.test("a streaming writer wakes the reader once per gap, not once per write; the first change wakes at once", async () => {
  const dir = await Deno.makeTempDir();
  const ac = new AbortController();
  try {
    // The tick is far away: every wake-up below comes from the watch.
    using waker = watchLog(dir, 60_000, ac.signal);
    const file = `${dir}/seg.aaaaaa`;
    await Deno.writeTextFile(file, "first");
    assertEquals(await waker.next(), "change");
    const writes = 3000;
    let writing = true;
    const producer = (async () => {
      for (let i = 0; i < writes; i++) await Deno.writeTextFile(file, "x".repeat(64), { append: true });
      writing = false;
    })();
    let wakes = 0;
    while (writing) {
      const why = await Promise.race([waker.next(), producer.then(() => "done" as const)]);
      if (why === "change") wakes++;
    }
    await producer;
    assert(wakes >= 1, "no wake-up while the log grew");
    // Unthrottled, the reader woke for (nearly) every write.
    assert(wakes * 10 < writes, `${wakes} wake-ups for ${writes} writes`);
  } finally {
    ac.abort();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("wake-ups are metered: a burst after a quiet spell wakes at once (output, then its end mark), then one per gap", () => {
  const meter = new WakeMeter(0);
  // A short command: echo, output, end mark and prompt within a few milliseconds, each delivered at once.
  for (const t of [0, 1, 2, 3]) {
    assertEquals(meter.delay(t), 0, `change ${t}`);
    meter.spend();
  }
  // A writer that keeps streaming: after the burst, one wake-up per MIN_WAKE_GAP_MS.
  const wait = meter.delay(4);
  assert(wait > 0 && wait <= MIN_WAKE_GAP_MS, `waited ${wait}`);
  assertEquals(meter.delay(4 + wait), 0);
  meter.spend();
  assert(meter.delay(4 + wait + 1) > 0);
  // A quiet spell refills the burst.
  assertEquals(meter.delay(1_000), 0);
  for (let i = 0; i < WAKE_BURST; i++) {
    assertEquals(meter.delay(1_000), 0);
    meter.spend();
  }
  assert(meter.delay(1_000) > 0);
});

Deno.test("LazyLogWaker starts its watch once, on first need, and a change after the start wakes the next wait", async () => {
  const dir = await Deno.makeTempDir();
  const ac = new AbortController();
  let started = 0;
  try {
    {
      using unused = new LazyLogWaker(() => (started++, watchLog(dir, 60_000, ac.signal)));
      assertEquals([unused.started, started], [false, 0], "a wait decided by its first look starts nothing");
    }
    using waker = new LazyLogWaker(() => (started++, watchLog(dir, 60_000, ac.signal)));
    waker.begin();
    waker.begin();
    assertEquals([waker.started, started], [true, 1]);
    // Written after the start and before the wait: kept, and the wait returns at once.
    await Deno.writeTextFile(`${dir}/seg.aaaaaa`, "x");
    await new Promise((r) => setTimeout(r, 50));
    assertEquals(await waker.next(), "change");
    assertEquals(started, 1);
  } finally {
    ac.abort();
    await Deno.remove(dir, { recursive: true });
  }
});
