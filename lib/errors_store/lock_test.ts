import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { acquireLock, inspectLock, lockPath, removeDeadOwner } from "../../state/mod.ts";
import { RuntimeErrorStore, WriteQueue } from "./store.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The pid of a process that has already exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), { args: ["eval", ""], stdout: "null", stderr: "null" }).spawn();
  await child.status;
  return child.pid;
}

function plantOwner(dir: string, token: string, pid: number, identity: string | null): void {
  Deno.mkdirSync(lockPath(dir), { recursive: true });
  Deno.writeTextFileSync(`${lockPath(dir)}/owner.${token}.json`, JSON.stringify({ pid, identity, token }));
}

const DEAD = "d".repeat(32);

Deno.test("acquire and release: the lock is a directory with one owner record", async () => {
  await withDir(async (dir) => {
    const lock = await acquireLock(dir, { timeoutMs: 1000 });
    assert(lock);
    const state = await inspectLock(dir);
    assert(state.kind === "held" && state.alive && state.owner.pid === Deno.pid && state.owner.token === lock.token);
    assert(await lock.held());
    assertEquals(await acquireLock(dir, { timeoutMs: 50 }), null, "a live owner is waited for, then given up on");
    await lock.release();
    assertEquals(await inspectLock(dir), { kind: "absent" });
    assertEquals([...Deno.readDirSync(dir)], [], "no candidate left behind");
  });
});

Deno.test("an empty lock directory is free", async () => {
  await withDir(async (dir) => {
    Deno.mkdirSync(lockPath(dir));
    assertEquals(await inspectLock(dir), { kind: "free" });
    const lock = await acquireLock(dir, { timeoutMs: 500 });
    assert(lock);
    await lock.release();
  });
});

Deno.test("a dead owner's lock is cleaned; a reused pid with another start identity counts as dead", async () => {
  await withDir(async (dir) => {
    plantOwner(dir, DEAD, await deadPid(), "linux:1");
    let state = await inspectLock(dir);
    assert(state.kind === "held" && !state.alive);
    const lock = await acquireLock(dir, { timeoutMs: 1000 });
    assert(lock, "took over from the dead owner");
    await lock.release();
    // Our own live pid but a different incarnation (start identity): not us, so dead.
    plantOwner(dir, DEAD, Deno.pid, "linux:not-this-incarnation");
    state = await inspectLock(dir);
    assert(state.kind === "held" && !state.alive);
    const again = await acquireLock(dir, { timeoutMs: 1000 });
    assert(again);
    await again.release();
  });
});

Deno.test("ABA: a late cleaner holding an old dead token cannot remove the new live lock", async () => {
  await withDir(async (dir) => {
    plantOwner(dir, DEAD, await deadPid(), null);
    // Cleaner A looks and sees the dead owner...
    const seenByA = await inspectLock(dir);
    assert(seenByA.kind === "held" && !seenByA.alive);
    // ...meanwhile B cleans the same dead lock and takes the lock.
    const b = await acquireLock(dir, { timeoutMs: 1000 });
    assert(b);
    // A now acts on what it saw: its removal names the dead token, so B's lock is untouched.
    assertEquals(await removeDeadOwner(dir, seenByA.owner.token), false);
    const now = await inspectLock(dir);
    assert(now.kind === "held" && now.alive && now.owner.token === b.token, "B still holds the lock");
    assert(await b.held());
    assertEquals(await acquireLock(dir, { timeoutMs: 50 }), null);
    await b.release();
  });
});

Deno.test("an unparsable owner record counts as dead; foreign content is never deleted", async () => {
  await withDir(async (dir) => {
    Deno.mkdirSync(lockPath(dir));
    Deno.writeTextFileSync(`${lockPath(dir)}/owner.${DEAD}.json`, "");
    const lock = await acquireLock(dir, { timeoutMs: 1000 });
    assert(lock);
    await lock.release();
    Deno.mkdirSync(lockPath(dir));
    Deno.writeTextFileSync(`${lockPath(dir)}/notes.txt`, "mine");
    assertEquals(await inspectLock(dir), { kind: "unusable" });
    assertEquals(await acquireLock(dir, { timeoutMs: 50 }), null);
    assertEquals(Deno.readTextFileSync(`${lockPath(dir)}/notes.txt`), "mine");
  });
});

Deno.test("record() gives up after the lock timeout instead of blocking, and never throws", async () => {
  await withDir(async (root) => {
    const store = new RuntimeErrorStore(root, { lockTimeoutMs: 100 });
    Deno.mkdirSync(store.dir, { recursive: true, mode: 0o700 });
    const held = await acquireLock(store.dir, { timeoutMs: 1000 });
    assert(held);
    const started = performance.now();
    assertEquals(await store.record("AITERM.INTERNAL"), false);
    assert(performance.now() - started < 1000);
    assertEquals(await store.ack(0), { ok: false, reason: "LOCK_BUSY" });
    await held.release();
    assertEquals(await store.record("AITERM.INTERNAL"), true);
  });
});

Deno.test("concurrent record() calls in one process (its stores share the root's WriteQueue) are all counted", async () => {
  await withDir(async (root) => {
    const queue = new WriteQueue();
    const store = new RuntimeErrorStore(root, { queue });
    const other = new RuntimeErrorStore(root, { queue });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? store : other).record("AITERM.PTY_BACKEND_FAILED")),
    );
    assert(results.every((r) => r));
    const snap = await store.snapshot();
    assertEquals([snap.seq, snap.entries[0]?.count, snap.entries[0]?.last_seq], [40, 40, 40]);
  });
});
