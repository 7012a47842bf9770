import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { watchLog } from "./log_watch.ts";

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
