import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { acquireLock, inspectLock, removeOldCandidates } from "./owner_lock.ts";

const LOCK_MODULE = new URL("./owner_lock.ts", import.meta.url).href;

Deno.test("named locks: two names in one directory are independent; a held name blocks only itself", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ait-lock-" });
  try {
    const a = await acquireLock(dir, { timeoutMs: 500, name: "a.lock" });
    const b = await acquireLock(dir, { timeoutMs: 500, name: "b.lock" });
    assert(a && b, "both names taken");
    assertEquals(await acquireLock(dir, { timeoutMs: 100, name: "a.lock" }), null);
    await a.release();
    const again = await acquireLock(dir, { timeoutMs: 500, name: "a.lock" });
    assert(again, "a released name is taken again");
    await again.release();
    await b.release();
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("named locks: a holder SIGKILLed while it holds the lock is seen dead and taken over at once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ait-lock-" });
  try {
    const code = `const { acquireLock } = await import(${JSON.stringify(LOCK_MODULE)});
const h = await acquireLock(${JSON.stringify(dir)}, { timeoutMs: 2000, name: "r.lock" });
console.log(h ? "held" : "no"); await new Promise(() => setInterval(() => {}, 1000));`;
    const child = new Deno.Command(Deno.execPath(), { args: ["eval", code], stdout: "piped", stderr: "null" }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assertEquals((await reader.read()).value?.trim(), "held");
    const live = await inspectLock(dir, "r.lock");
    assert(live.kind === "held" && live.alive, JSON.stringify(live));
    assertEquals(await acquireLock(dir, { timeoutMs: 100, name: "r.lock" }), null, "a live holder keeps it");
    child.kill("SIGKILL");
    await child.status;
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    const dead = await inspectLock(dir, "r.lock");
    assert(dead.kind === "held" && !dead.alive, JSON.stringify(dead));
    const mine = await acquireLock(dir, { timeoutMs: 1000, name: "r.lock" });
    assert(mine, "the dead holder's lock was taken over");
    await mine.release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("named locks: old candidates of one name are removed, other names' are left", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ait-lock-" });
  try {
    const tok = "0".repeat(32);
    await Deno.mkdir(`${dir}/x.lock.${tok}.tmp`);
    await Deno.mkdir(`${dir}/y.lock.${tok}.tmp`);
    await removeOldCandidates(dir, 0, "x.lock");
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), [`y.lock.${tok}.tmp`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
