import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { fingerprintOf } from "./codes.ts";
import { readOpened, readRegularFile } from "./read.ts";
import { AGGREGATE_SCHEMA, parseAggregate, RuntimeErrorStore, secondResolution } from "./store.ts";

async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir();
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function clock(start: number): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

Deno.test("absent store: snapshot and summary are empty and create nothing", async () => {
  await withRoot(async (root) => {
    const store = new RuntimeErrorStore(root);
    assertEquals(await store.snapshot(), { schema: AGGREGATE_SCHEMA, status: "absent", seq: 0, entries: [] });
    assertEquals(await store.summary(), { status: "absent", open: 0, total: 0, seq: 0 });
    assertEquals([...Deno.readDirSync(root)], []);
  });
});

Deno.test("record() aggregates per code with a monotonic seq and one-second timestamps", async () => {
  await withRoot(async (root) => {
    const c = clock(T0);
    const store = new RuntimeErrorStore(root, { now: c.now });
    let last = 0;
    const codes = ["AITERM.INTERNAL", "AITERM.PTY_DEPENDENCY_UNAVAILABLE", "AITERM.INTERNAL"] as const;
    for (const code of codes) {
      assert(await store.record(code));
      const snap = await store.snapshot();
      assert(snap.status === "ready" && snap.seq === last + 1, "seq grows by one per occurrence");
      last = snap.seq;
      c.advance(1500);
    }
    const snap = await store.snapshot();
    assertEquals(snap.status, "ready");
    assertEquals(snap.entries, [
      {
        fingerprint: fingerprintOf("AITERM.PTY_DEPENDENCY_UNAVAILABLE"),
        code: "AITERM.PTY_DEPENDENCY_UNAVAILABLE",
        template: "The terminal multiplexer is missing or older than the supported minimum",
        count: 1,
        first_seen: "2026-01-02T03:04:07Z",
        last_seen: "2026-01-02T03:04:07Z",
        status: "open",
        last_seq: 2,
      },
      {
        fingerprint: fingerprintOf("AITERM.INTERNAL"),
        code: "AITERM.INTERNAL",
        template: "An unexpected internal failure",
        count: 2,
        first_seen: "2026-01-02T03:04:05Z",
        last_seen: "2026-01-02T03:04:08Z",
        status: "open",
        last_seq: 3,
      },
    ]);
    assertEquals(await store.summary(), { status: "ready", open: 2, total: 2, seq: 3 });
    assertEquals((Deno.statSync(store.file).mode ?? 0) & 0o777, 0o600);
    assertEquals((Deno.statSync(store.dir).mode ?? 0) & 0o777, 0o700);
    assertEquals([...Deno.readDirSync(store.dir)].map((e) => e.name), ["aggregate.json"]);
  });
});

Deno.test("secondResolution() drops milliseconds", () => {
  assertEquals(secondResolution(T0), "2026-01-02T03:04:05Z");
});

Deno.test("ack --cursor acknowledges up to the cursor; a new occurrence reopens", async () => {
  await withRoot(async (root) => {
    const store = new RuntimeErrorStore(root);
    await store.record("AITERM.INTERNAL"); // seq 1
    await store.record("AITERM.PERSISTENCE_WRITE_FAILED"); // seq 2
    assertEquals(await store.ack(3), { ok: false, reason: "CURSOR_AHEAD" });
    assertEquals(await store.ack(-1), { ok: false, reason: "INVALID_ARGUMENT" });
    assertEquals(await store.ack(1), { ok: true, changed: 1, seq: 2 });
    let snap = await store.snapshot();
    assertEquals(snap.entries.map((e) => [e.code, e.status, e.acked_seq]), [
      ["AITERM.PERSISTENCE_WRITE_FAILED", "open", undefined],
      ["AITERM.INTERNAL", "acked", 1],
    ]);
    assertEquals(await store.ack(1), { ok: true, changed: 0, seq: 2 });
    assertEquals(await store.ack(2), { ok: true, changed: 1, seq: 2 });
    assertEquals(await store.summary(), { status: "ready", open: 0, total: 2, seq: 2 });
    assert(await store.record("AITERM.INTERNAL")); // seq 3
    snap = await store.snapshot();
    const internal = snap.entries.find((e) => e.code === "AITERM.INTERNAL");
    assertEquals([internal?.status, internal?.acked_seq, internal?.last_seq, internal?.count], ["open", 1, 3, 2]);
    assertEquals(snap.seq, 3, "acks do not move seq");
  });
});

Deno.test("resolve and reopen by fingerprint; an occurrence after resolve reopens", async () => {
  await withRoot(async (root) => {
    const store = new RuntimeErrorStore(root);
    const fp = fingerprintOf("AITERM.TRANSCRIPT_UNREADABLE");
    assertEquals(await store.resolve(fp), { ok: false, reason: "NOT_FOUND" });
    await store.record("AITERM.TRANSCRIPT_UNREADABLE");
    assertEquals(await store.resolve(fp), { ok: true, changed: 1, seq: 1 });
    assertEquals(await store.resolve(fp), { ok: true, changed: 0, seq: 1 });
    assertEquals((await store.snapshot()).entries[0]?.status, "resolved");
    assertEquals(await store.summary(), { status: "ready", open: 0, total: 1, seq: 1 });
    assertEquals(await store.reopen(fp), { ok: true, changed: 1, seq: 1 });
    assertEquals((await store.snapshot()).entries[0]?.status, "open");
    await store.resolve(fp);
    await store.record("AITERM.TRANSCRIPT_UNREADABLE");
    const e = (await store.snapshot()).entries[0];
    assertEquals([e?.status, e?.count, e?.last_seq], ["open", 2, 2]);
    await store.ack(2);
    assertEquals(await store.reopen(fp), { ok: true, changed: 1, seq: 2 });
  });
});

Deno.test("parseAggregate() refuses anything but the exact shape and rebuilds strings from the table", () => {
  const good = {
    schema: AGGREGATE_SCHEMA,
    seq: 1,
    entries: [{
      fingerprint: fingerprintOf("AITERM.INTERNAL"),
      code: "AITERM.INTERNAL",
      template: "An unexpected internal failure",
      count: 1,
      first_seen: "2026-01-02T03:04:05Z",
      last_seen: "2026-01-02T03:04:05Z",
      status: "open",
      last_seq: 1,
    }],
  };
  assert(parseAggregate(good) !== null);
  const e = good.entries[0]!;
  const bad: unknown[] = [
    null,
    [],
    { ...good, schema: "x" },
    { ...good, extra: 1 },
    { ...good, seq: -1 },
    { ...good, entries: [{ ...e, message: "tmux died at /home/alice" }] },
    { ...good, entries: [{ ...e, template: "free text" }] },
    { ...good, entries: [{ ...e, code: "free text" }] },
    { ...good, entries: [{ ...e, fingerprint: fingerprintOf("AITERM.PTY_BACKEND_FAILED") }] },
    { ...good, entries: [{ ...e, last_seen: "2026-01-02T03:04:05.123Z" }] },
    { ...good, entries: [{ ...e, last_seen: "yesterday /home/alice" }] },
    { ...good, entries: [{ ...e, status: "closed" }] },
    { ...good, entries: [{ ...e, last_seq: 2 }] },
    { ...good, entries: [{ ...e, count: 0 }] },
    { ...good, entries: [e, e] },
  ];
  for (const b of bad) assertEquals(parseAggregate(b), null, JSON.stringify(b));
});

Deno.test("an invalid file is reported unreadable, never exposed and never overwritten", async () => {
  await withRoot(async (root) => {
    const store = new RuntimeErrorStore(root);
    Deno.mkdirSync(store.dir, { recursive: true });
    const junk = JSON.stringify({ schema: AGGREGATE_SCHEMA, seq: 1, entries: [{ raw: "password=hunter2" }] });
    Deno.writeTextFileSync(store.file, junk);
    const snap = await store.snapshot();
    assertEquals(snap, { schema: AGGREGATE_SCHEMA, status: "unreadable", seq: null, entries: [] });
    assert(!JSON.stringify(snap).includes("hunter2"));
    assertEquals(await store.summary(), { status: "unreadable", open: null, total: null, seq: null });
    assertEquals(await store.record("AITERM.INTERNAL"), false);
    assertEquals(await store.ack(0), { ok: false, reason: "UNREADABLE" });
    assertEquals(Deno.readTextFileSync(store.file), junk);
    assertEquals([...Deno.readDirSync(store.dir)].map((e) => e.name), ["aggregate.json"], "lock released");
  });
});

Deno.test("a FIFO where the aggregate should be: snapshot, summary and record return quickly", async () => {
  if (Deno.build.os === "windows") return;
  await withRoot(async (root) => {
    const store = new RuntimeErrorStore(root);
    Deno.mkdirSync(store.dir, { recursive: true, mode: 0o700 });
    const made = await new Deno.Command("mkfifo", { args: [store.file] }).output();
    assert(made.success, "mkfifo");
    const started = performance.now();
    assertEquals((await store.snapshot()).status, "unreadable");
    assertEquals((await store.summary()).status, "unreadable");
    assertEquals(await store.record("AITERM.INTERNAL"), false);
    assertEquals(await store.resolve(fingerprintOf("AITERM.INTERNAL")), { ok: false, reason: "UNREADABLE" });
    const elapsed = performance.now() - started;
    assert(elapsed < 2000, `took ${elapsed} ms`);
    assert(Deno.lstatSync(store.file).isFifo, "the FIFO is left alone");
  });
});

Deno.test("a directory or symlink where the aggregate should be is unreadable too", async () => {
  await withRoot(async (root) => {
    const store = new RuntimeErrorStore(root);
    Deno.mkdirSync(store.file, { recursive: true });
    assertEquals((await store.snapshot()).status, "unreadable");
    Deno.removeSync(store.file);
    Deno.writeTextFileSync(`${root}/elsewhere.json`, "{}");
    Deno.symlinkSync(`${root}/elsewhere.json`, store.file);
    assertEquals((await store.snapshot()).status, "unreadable");
    assertEquals((await readRegularFile(`${root}/none.json`, 100)).kind, "absent");
  });
});

Deno.test({
  name: "the read timeout guards an open that blocks (a FIFO swapped in after lstat)",
  ignore: Deno.build.os === "windows",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await withRoot(async (root) => {
      const fifo = `${root}/fifo`;
      assert((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
      const started = performance.now();
      const result = await readOpened(fifo, null, 200);
      const elapsed = performance.now() - started;
      assertEquals(result, { kind: "unreadable", why: "timeout" });
      assert(elapsed < 1000, `took ${elapsed} ms`);
      // Let the background open finish (a writer appears and leaves), so nothing stays blocked.
      const w = await Deno.open(fifo, { write: true });
      w.close();
      await new Promise((r) => setTimeout(r, 50));
    });
  },
});

Deno.test("the store modules contain no network code", async () => {
  for (const name of ["codes.ts", "../../state/owner_lock.ts", "read.ts", "store.ts", "cli.ts"]) {
    const text = await Deno.readTextFile(new URL(`./${name}`, import.meta.url));
    for (const word of ["fetch(", "Deno.connect", "Deno.listen", "WebSocket", "node:net", "node:http", "node:dns"]) {
      assert(!text.includes(word), `${name} mentions ${word}`);
    }
  }
});
