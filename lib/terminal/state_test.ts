import { assert, assertEquals, assertRejects } from "../../tests/helpers/assert.ts";
import { AppError } from "../errors.ts";
import { createExclusiveJson, readJsonFile, writeJsonAtomic } from "../state/mod.ts";
import { ensurePrivateDir } from "../state/private_dir.ts";
import { logExtent, pruneLog, readLog } from "./output_log.ts";
import { withSendLock } from "./send_lock.ts";
import { segmentName } from "../../platform/mod.ts";

Deno.test("writeJsonAtomic() leaves no temp file and mode 0600", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await writeJsonAtomic(`${dir}/a.json`, { x: 1 });
    await writeJsonAtomic(`${dir}/a.json`, { x: 2 });
    assertEquals(await readJsonFile(`${dir}/a.json`), { x: 2 });
    const names = [...Deno.readDirSync(dir)].map((e) => e.name);
    assertEquals(names, ["a.json"]);
    assertEquals((Deno.statSync(`${dir}/a.json`).mode ?? 0) & 0o777, 0o600);
    assert(await createExclusiveJson(`${dir}/lock`, { a: 1 }));
    assert(!(await createExclusiveJson(`${dir}/lock`, { a: 2 })));
    assertEquals(await readJsonFile(`${dir}/lock`), { a: 1 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ensurePrivateDir() creates 0700, tightens loose bits and refuses a symlink", async () => {
  const dir = await Deno.makeTempDir();
  try {
    ensurePrivateDir(`${dir}/a/b`);
    assertEquals((Deno.statSync(`${dir}/a/b`).mode ?? 0) & 0o777, 0o700);
    Deno.chmodSync(`${dir}/a/b`, 0o755);
    ensurePrivateDir(`${dir}/a/b`);
    assertEquals((Deno.statSync(`${dir}/a/b`).mode ?? 0) & 0o777, 0o700);
    Deno.symlinkSync(`${dir}/a/b`, `${dir}/link`);
    const err = await assertRejects(() => ensurePrivateDir(`${dir}/link`));
    assert(err instanceof AppError && err.code === "STATE_ROOT_INVALID");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the send lock serialises holders, and a dead owner's lock is SEND_LOCK_STALE, not taken over", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/send.lock`;
    const order: string[] = [];
    await Promise.all([
      withSendLock(path, { sessionId: "s" }, async () => {
        order.push("a-start");
        await new Promise((r) => setTimeout(r, 50));
        order.push("a-end");
      }),
      withSendLock(path, { sessionId: "s" }, async () => {
        order.push("b-start");
        await new Promise((r) => setTimeout(r, 50));
        order.push("b-end");
      }),
    ]);
    const joined = order.join(",");
    assert(joined === "a-start,a-end,b-start,b-end" || joined === "b-start,b-end,a-start,a-end", `overlap: ${joined}`);
    // A lock left by a process that has exited.
    const child = new Deno.Command("true").spawn();
    const { success } = await child.status;
    assert(success);
    await Deno.writeTextFile(path, JSON.stringify({ pid: child.pid, identity: null, token: "x", at: "" }));
    const err = await assertRejects(() => withSendLock(path, { sessionId: "s" }, () => Promise.resolve()));
    assert(err instanceof AppError && err.code === "SEND_LOCK_STALE");
    assertEquals(await readJsonFile<{ token: string }>(path).then((r) => r?.token), "x");
    // A live owner that keeps it: SEND_LOCK_BUSY after the timeout.
    await Deno.writeTextFile(path, JSON.stringify({ pid: Deno.pid, identity: null, token: "y", at: "" }));
    const busy = await assertRejects(() =>
      withSendLock(path, { sessionId: "s", timeoutMs: 50 }, () => Promise.resolve())
    );
    assert(busy instanceof AppError && busy.code === "SEND_LOCK_BUSY");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("log segments: absolute cursors survive pruning and reads across segments are exact", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const seg = 10;
    const data = new TextEncoder().encode("0123456789abcdefghijABCDEFGHIJxyz");
    for (let i = 0; i * seg < data.length; i++) {
      await Deno.writeFile(`${dir}/${segmentName(i)}`, data.subarray(i * seg, (i + 1) * seg));
    }
    assertEquals(await logExtent(dir, seg), { start: 0, end: 33, segments: [0, 1, 2, 3] });
    const mid = await readLog(dir, seg, 5, 20);
    assertEquals(new TextDecoder().decode(mid.bytes), "56789abcdefghijABCDE");
    assertEquals([mid.from, mid.to, mid.truncated], [5, 25, false]);
    assertEquals(await pruneLog(dir, seg, 2), 2);
    const after = await readLog(dir, seg, 5, 100);
    assertEquals([after.from, after.truncated, new TextDecoder().decode(after.bytes)], [20, true, "ABCDEFGHIJxyz"]);
    const beyond = await readLog(dir, seg, 1000, 10);
    assertEquals([beyond.bytes.length, beyond.from, beyond.end], [0, 33, 33]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
