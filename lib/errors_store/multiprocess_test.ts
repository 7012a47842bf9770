/** Several aiterm processes at once, and writers SIGKILLed at random points. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { acquireLock, inspectLock } from "../../state/mod.ts";
import { RuntimeErrorStore } from "./store.ts";

const WRITER = new URL("./testdata/writer.ts", import.meta.url).pathname;
// Process facts come from /proc, which Deno opens only with all permissions.
const PERMS = ["--allow-all"];

function writer(args: string[], perms: string[] = PERMS): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...perms, WRITER, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
}

async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir();
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Parses the file directly (not through the store) and checks it is whole. */
async function rawValid(file: string): Promise<boolean> {
  try {
    const v = JSON.parse(await Deno.readTextFile(file));
    return typeof v.seq === "number" && Array.isArray(v.entries);
  } catch (err) {
    return err instanceof Deno.errors.NotFound;
  }
}

Deno.test({
  name: "concurrent writer processes: every occurrence counted, the file always valid",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await withRoot(async (root) => {
      const store = new RuntimeErrorStore(root);
      const codes = ["AITERM.INTERNAL", "AITERM.PERSISTENCE_WRITE_FAILED"] as const;
      const perChild = 30;
      const children = Array.from({ length: 6 }, (_, i) => writer(["record", root, codes[i % 2]!, String(perChild)]));
      let done = false;
      const outputs = Promise.all(children.map((c) => c.output())).finally(() => (done = true));
      let reads = 0;
      let lastSeq = 0;
      while (!done) {
        const snap = await store.snapshot();
        if (snap.status === "unreadable") throw new Error("a reader saw a half-written file");
        assert(snap.seq >= lastSeq, "seq never goes back");
        lastSeq = snap.seq;
        assert(await rawValid(store.file), "raw JSON invalid");
        reads++;
      }
      for (const out of await outputs) {
        assert(out.success, "writer failed");
        assertEquals(JSON.parse(new TextDecoder().decode(out.stdout)), { ok: perChild });
      }
      const snap = await store.snapshot();
      assertEquals(snap.status, "ready");
      assertEquals(snap.seq, 6 * perChild);
      assertEquals(snap.entries.map((e) => [e.code, e.count]), [
        ["AITERM.PERSISTENCE_WRITE_FAILED", 3 * perChild],
        ["AITERM.INTERNAL", 3 * perChild],
      ]);
      assertEquals(Math.max(...snap.entries.map((e) => e.last_seq)), 6 * perChild);
      assertEquals([...Deno.readDirSync(store.dir)].map((e) => e.name), ["aggregate.json"]);
      assert(reads > 0);
    });
  },
});

Deno.test({
  name: "SIGKILL mid-write: the file stays parseable, leftovers and stale locks are cleaned, counts stay exact",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await withRoot(async (root) => {
      const store = new RuntimeErrorStore(root);
      let previous = 0;
      for (let round = 0; round < 12; round++) {
        const child = writer(["record", root, "AITERM.VENDOR_LAUNCHER_FAILED", "0"]);
        // Wait until it is writing, then kill it at a random point of its loop.
        const deadline = Date.now() + 10_000;
        while (((await store.snapshot()).seq ?? 0) <= previous && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 2));
        }
        await new Promise((r) => setTimeout(r, Math.random() * 15));
        child.kill("SIGKILL");
        await child.status;
        await child.stdout.cancel();
        const snap = await store.snapshot();
        if (snap.status !== "ready") throw new Error(`round ${round}: ${snap.status}`);
        assert(snap.seq > previous, `round ${round} recorded nothing`);
        assertEquals(snap.entries[0]?.count, snap.seq, "count and seq agree");
        previous = snap.seq;
      }
      // Whatever the kills left (a lock held by a dead writer, temp files, lock candidates), the next
      // writer cleans it up and succeeds within the normal bounded wait.
      const after = new RuntimeErrorStore(root, { leftoverAgeMs: 0 });
      assert(await after.record("AITERM.VENDOR_LAUNCHER_FAILED"), "a later write succeeds");
      const snap = await after.snapshot();
      assertEquals(snap.seq, previous + 1);
      assertEquals(snap.entries[0]?.count, previous + 1);
      assertEquals([...Deno.readDirSync(store.dir)].map((e) => e.name), ["aggregate.json"]);
    });
  },
});

Deno.test({
  name: "a writer SIGKILLed while holding the lock: the stale lock is cleaned and later writes succeed",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await withRoot(async (root) => {
      const store = new RuntimeErrorStore(root);
      assert(await store.record("AITERM.INTERNAL"));
      const child = writer(["hold", root]);
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      const first = await reader.read();
      assertEquals(first.value?.trim(), "held");
      const live = await inspectLock(store.dir);
      assert(live.kind === "held" && live.alive && live.owner.pid === child.pid);
      const busy = new RuntimeErrorStore(root, { lockTimeoutMs: 100 });
      assertEquals(await busy.record("AITERM.INTERNAL"), false, "a live owner is respected");
      child.kill("SIGKILL");
      await child.status;
      await reader.cancel();
      const dead = await inspectLock(store.dir);
      assert(dead.kind === "held" && !dead.alive, "the killed writer left its lock");
      const started = performance.now();
      assert(await store.record("AITERM.INTERNAL"));
      assert(performance.now() - started < 2000);
      assertEquals((await store.snapshot()).seq, 2);
      assertEquals(await inspectLock(store.dir), { kind: "absent" });
    });
  },
});

Deno.test({
  name: "a process that cannot see process facts never breaks a lock (it drops its record instead)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await withRoot(async (root) => {
      const store = new RuntimeErrorStore(root);
      Deno.mkdirSync(store.dir, { recursive: true, mode: 0o700 });
      const mine = await acquireLock(store.dir, { timeoutMs: 1000 });
      assert(mine);
      // Without --allow-all Deno refuses /proc, so this writer cannot tell whether we are alive.
      const blind = writer(["record", root, "AITERM.INTERNAL", "1", "300"], ["--allow-read", "--allow-write"]);
      const out = await blind.output();
      assert(out.success);
      assertEquals(JSON.parse(new TextDecoder().decode(out.stdout)), { ok: 0 });
      assert(await mine.held(), "our live lock is intact");
      await mine.release();
      assertEquals((await store.snapshot()).status, "absent");
    });
  },
});
