import { assert, assertEquals, assertRejects } from "../../tests/helpers/assert.ts";
import { AppError } from "../../base/errors.ts";
import { createExclusiveJson, HotFiles, jsonText, readJsonFile, writeJsonAtomic } from "../../state/mod.ts";
import { ensurePrivateDir } from "../../state/private_dir.ts";
import { logExtent, pruneLog, readLog } from "./files/output_log.ts";
import { withSendLock } from "./send/send_lock.ts";
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

Deno.test("ensurePrivateDir() creates 0700, removes read bits, refuses write bits and a symlink unchanged", async () => {
  const dir = await Deno.makeTempDir();
  try {
    ensurePrivateDir(`${dir}/a/b`);
    assertEquals((Deno.statSync(`${dir}/a/b`).mode ?? 0) & 0o777, 0o700);
    Deno.chmodSync(`${dir}/a/b`, 0o755);
    ensurePrivateDir(`${dir}/a/b`);
    assertEquals((Deno.statSync(`${dir}/a/b`).mode ?? 0) & 0o777, 0o700);
    for (const mode of [0o777, 0o720, 0o702, 0o1777]) {
      Deno.chmodSync(`${dir}/a/b`, mode);
      const err = await assertRejects(() => ensurePrivateDir(`${dir}/a/b`));
      assert(err instanceof AppError && err.code === "STATE_ROOT_UNSAFE", `mode ${mode.toString(8)}: ${err}`);
      assertEquals((Deno.statSync(`${dir}/a/b`).mode ?? 0) & 0o7777, mode, "the mode was changed");
    }
    Deno.chmodSync(`${dir}/a/b`, 0o700);
    Deno.symlinkSync(`${dir}/a/b`, `${dir}/link`);
    const err = await assertRejects(() => ensurePrivateDir(`${dir}/link`));
    assert(err instanceof AppError && err.code === "STATE_ROOT_UNSAFE");
    Deno.writeTextFileSync(`${dir}/file`, "");
    const notDir = await assertRejects(() => ensurePrivateDir(`${dir}/file`));
    assert(notDir instanceof AppError && notDir.code === "STATE_ROOT_INVALID");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the send lock serialises holders; a dead owner's lock is taken over (or SEND_LOCK_STALE), a live one never", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/send.lock`;
    const order: string[] = [];
    const holds = await Promise.all(["a", "b"].map((who) =>
      withSendLock(path, { sessionId: "s" }, async (hold) => {
        order.push(`${who}-start`);
        await new Promise((r) => setTimeout(r, 50));
        order.push(`${who}-end`);
        return hold;
      })
    ));
    const joined = order.join(",");
    assert(joined === "a-start,a-end,b-start,b-end" || joined === "b-start,b-end,a-start,a-end", `overlap: ${joined}`);
    assertEquals(holds.map((h) => h.recoveredStaleLock), [false, false]);
    assertEquals(holds.map((h) => h.waited).sort(), [false, true]);
    assertEquals(await readJsonFile(path), null);
    // A record left by a process that has exited (an older aiterm, or one SIGKILLed mid-send).
    const child = new Deno.Command("true").spawn();
    const { success } = await child.status;
    assert(success);
    await Deno.writeTextFile(path, JSON.stringify({ pid: child.pid, identity: null, token: "x", at: "" }));
    const err = await assertRejects(() =>
      withSendLock(path, { sessionId: "s", takeover: false }, () => Promise.resolve())
    );
    assert(err instanceof AppError && err.code === "SEND_LOCK_STALE");
    assertEquals(await readJsonFile<{ token: string }>(path).then((r) => r?.token), "x");
    const taken = await withSendLock(path, { sessionId: "s" }, (hold) => Promise.resolve(hold));
    assertEquals([taken.recoveredStaleLock, taken.staleOwnerPid], [true, child.pid]);
    assertEquals(await readJsonFile(path), null, "the taken-over lock is released like any other");
    // The same pid with another start identity is another process: taken over too.
    await Deno.writeTextFile(path, JSON.stringify({ pid: Deno.pid, identity: "linux:1", token: "z", at: "" }));
    assert((await withSendLock(path, { sessionId: "s" }, (h) => Promise.resolve(h))).recoveredStaleLock);
    // A live owner's record without its flock (an older aiterm holding it): SEND_LOCK_BUSY, never removed.
    const sleeper = new Deno.Command("sleep", { args: ["30"] }).spawn();
    try {
      await Deno.writeTextFile(path, JSON.stringify({ pid: sleeper.pid, identity: null, token: "y", at: "" }));
      const busy = await assertRejects(() =>
        withSendLock(path, { sessionId: "s", timeoutMs: 50 }, () => Promise.resolve())
      );
      assert(busy instanceof AppError && busy.code === "SEND_LOCK_BUSY");
      assertEquals(await readJsonFile<{ token: string }>(path).then((r) => r?.token), "y");
    } finally {
      sleeper.kill("SIGKILL");
      await sleeper.status;
      await Deno.remove(path);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a send lock held by a live process is busy; SIGKILL of that process makes it taken over", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/send.lock`;
    const lockModule = new URL("./send/send_lock.ts", import.meta.url).href;
    const code = `import { withSendLock } from ${JSON.stringify(lockModule)};
await withSendLock(${JSON.stringify(path)}, { sessionId: "s" }, async () => {
  await Deno.writeTextFile(${JSON.stringify(`${dir}/held`)}, "");
  await new Promise((r) => setTimeout(r, 60_000));
});`;
    const holder = new Deno.Command(Deno.execPath(), { args: ["eval", code], stdout: "null", stderr: "null" }).spawn();
    try {
      for (let i = 0; i < 400 && !(await Deno.stat(`${dir}/held`).then(() => true, () => false)); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const busy = await assertRejects(() =>
        withSendLock(path, { sessionId: "s", timeoutMs: 100 }, () => Promise.resolve())
      );
      assert(busy instanceof AppError && busy.code === "SEND_LOCK_BUSY");
      assertEquals((busy as AppError).data?.owner_pid, holder.pid);
    } finally {
      holder.kill("SIGKILL");
      await holder.status;
    }
    const hold = await withSendLock(path, { sessionId: "s" }, (h) => Promise.resolve(h));
    assertEquals([hold.recoveredStaleLock, hold.staleOwnerPid], [true, holder.pid]);
    assertEquals(await readJsonFile(path), null);
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
    const mid = await readLog(dir, seg, { from: 5, maxBytes: 20 });
    assertEquals(new TextDecoder().decode(mid.bytes), "56789abcdefghijABCDE");
    assertEquals([mid.from, mid.to, mid.truncated], [5, 25, false]);
    assertEquals(await pruneLog(dir, seg, 2), 2);
    const after = await readLog(dir, seg, { from: 5, maxBytes: 100 });
    assertEquals([after.from, after.truncated, new TextDecoder().decode(after.bytes)], [20, true, "ABCDEFGHIJxyz"]);
    const beyond = await readLog(dir, seg, { from: 1000, maxBytes: 10 });
    assertEquals([beyond.bytes.length, beyond.from, beyond.end], [0, 33, 33]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a send lock hold creates no file: the record is a link of this process's copy, whole from the start", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/send.lock`;
    await withSendLock(path, { sessionId: "s" }, () => Promise.resolve());
    const names = () => [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    const after = names();
    assertEquals(after.length, 2, after.join(","));
    const spare = `${dir}/${after.find((n) => n.endsWith(".rec"))!}`;
    assert(spare.includes(`send.lock.${Deno.pid}-`), spare);
    for (let i = 0; i < 3; i++) {
      await withSendLock(path, { sessionId: "s" }, () => {
        const [rec, copy] = [Deno.statSync(path), Deno.statSync(spare)];
        assertEquals([rec.ino, rec.nlink], [copy.ino, 2], "send.lock is the copy, linked");
        assertEquals(JSON.parse(Deno.readTextFileSync(path)).pid, Deno.pid);
        assertEquals(names().length, 3);
        return Promise.resolve();
      });
      assertEquals(names(), after, "the hold left exactly what was there");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HotFiles.commit(): the file is replaced whole; once warm, two inodes take turns and none is made or freed", async () => {
  const dir = await Deno.makeTempDir();
  const hot = new HotFiles();
  try {
    const path = `${dir}/cursor.json`;
    const names = () => [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    const inodes = () => new Set([...Deno.readDirSync(dir)].map((e) => Deno.statSync(`${dir}/${e.name}`).ino));
    // No file yet: the commit creates it.
    hot.commit(path, jsonText({ cursor: 1 }));
    assertEquals(await readJsonFile(path), { cursor: 1 });
    assertEquals(names(), ["cursor.json"]);
    assertEquals(Deno.statSync(path).mode! & 0o777, 0o600);
    // Replacing it: the old copy is linked aside (the rename frees nothing) and becomes the next spare.
    const first = Deno.statSync(path).ino;
    hot.commit(path, jsonText({ cursor: 22 }));
    assertEquals(await readJsonFile(path), { cursor: 22 });
    assertEquals(names().length, 2, names().join(","));
    const second = Deno.statSync(path).ino;
    // From now on the two inodes take turns: a shorter text is padded with whitespace (JSON still parses).
    hot.commit(path, jsonText({ cursor: 3 }));
    assertEquals(Deno.statSync(path).ino, first, "the copy set aside was written again");
    assertEquals(await readJsonFile(path), { cursor: 3 });
    hot.commit(path, jsonText({ cursor: 4444 }));
    assertEquals(Deno.statSync(path).ino, second);
    assertEquals(await readJsonFile(path), { cursor: 4444 });
    assertEquals(inodes(), new Set([first, second]), "no third inode");
    assertEquals(Deno.statSync(path).mode! & 0o777, 0o600);
    // A far shorter text truncates instead of padding (the file does not stay large).
    hot.commit(path, jsonText({ text: "x".repeat(10_000) }));
    hot.commit(path, jsonText({ cursor: 5 }));
    hot.commit(path, jsonText({ cursor: 6 }));
    assertEquals(await readJsonFile(path), { cursor: 6 });
    assert(Deno.statSync(path).size < 4096 + 64, `size ${Deno.statSync(path).size}`);
    // forget() removes the spare beside it (a closed session).
    hot.forget(path);
    assertEquals(names(), ["cursor.json"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HotFiles.commit(): a copy another writer also linked aside is not written in place", async () => {
  const dir = await Deno.makeTempDir();
  const hot = new HotFiles();
  try {
    const path = `${dir}/last.json`;
    hot.commit(path, jsonText({ n: 1 }));
    hot.commit(path, jsonText({ n: 2 }));
    // The copy set aside (the next spare) was also linked by another process committing at the same moment.
    const [aside] = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== "last.json");
    Deno.linkSync(`${dir}/${aside}`, `${dir}/other-writer.tmp`);
    const theirs = Deno.readTextFileSync(`${dir}/other-writer.tmp`);
    hot.commit(path, jsonText({ n: 3 }));
    assertEquals(await readJsonFile(path), { n: 3 });
    assertEquals(Deno.readTextFileSync(`${dir}/other-writer.tmp`), theirs, "their copy was not written");
    assertEquals(Deno.statSync(`${dir}/other-writer.tmp`).nlink, 1, "our name for it was dropped");
    hot.commit(path, jsonText({ n: 4 }));
    assertEquals(await readJsonFile(path), { n: 4 });
    assertEquals(Deno.readTextFileSync(`${dir}/other-writer.tmp`), theirs);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HotFiles.commit(): spares a process that ended left beside the file are removed on the first commit; fresh ones stay", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/lastcmd.json`;
    const old = `${path}.0123456789ab.tmp`;
    const recent = `${path}.ba9876543210.tmp`;
    const other = `${dir}/cursor.json.0123456789ab.tmp`;
    for (const f of [old, recent, other]) Deno.writeTextFileSync(f, "{}");
    const hourAgo = new Date(Date.now() - 3_600_000);
    Deno.utimeSync(old, hourAgo, hourAgo);
    Deno.utimeSync(other, hourAgo, hourAgo);
    const hot = new HotFiles();
    hot.commit(path, jsonText({ n: 1 }));
    const names = () => [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert(!names().includes("lastcmd.json.0123456789ab.tmp"), names().join(","));
    assert(names().includes("lastcmd.json.ba9876543210.tmp"), "a recent one may be a live process's");
    assert(names().includes("cursor.json.0123456789ab.tmp"), "another file's spares are its own commit's to clear");
    assertEquals(await readJsonFile(path), { n: 1 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the send lock's release removes only a record that is this holder's (linked copy, or taken over)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/send.lock`;
    // Linked: the record is this process's copy, removed at the end without reading it.
    await withSendLock(path, { sessionId: "s" }, () => Promise.resolve());
    await withSendLock(path, { sessionId: "s" }, () => Promise.resolve());
    assertEquals(await readJsonFile(path), null);
    // Replaced under the holder by someone not of this protocol (another inode, another token): left alone.
    await withSendLock(path, { sessionId: "s" }, async () => {
      Deno.removeSync(path);
      await Deno.writeTextFile(path, JSON.stringify({ pid: 1, identity: null, token: "other", at: "" }));
    });
    assertEquals(await readJsonFile<{ token: string }>(path).then((r) => r?.token), "other");
    Deno.removeSync(path);
    // Removed under the holder: the release does not fail.
    await withSendLock(path, { sessionId: "s" }, () => Promise.resolve(Deno.removeSync(path)));
    assertEquals(await readJsonFile(path), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HotFiles.stageJson(): the file changes only on publish; an abandoned change leaves it whole", async () => {
  const dir = await Deno.makeTempDir();
  const hot = new HotFiles();
  try {
    const path = `${dir}/lastcmd.json`;
    await hot.putJson(path, { n: 1 });
    const staged = hot.stageJson(path, { n: 2 });
    assertEquals(await readJsonFile(path), { n: 1 }, "staged, not yet in place");
    await staged.publish();
    assertEquals(await readJsonFile(path), { n: 2 });
    await staged.publish();
    assertEquals(await readJsonFile(path), { n: 2 }, "a second publish changes nothing");
    const dropped = hot.stageJson(path, { n: 3, text: "x".repeat(100) });
    dropped.abandon();
    assertEquals(await readJsonFile(path), { n: 2 }, "abandoned");
    // The spare an abandoned change wrote is reused: still two inodes, and the next change is whole.
    await hot.putJson(path, { n: 4 });
    assertEquals(await readJsonFile(path), { n: 4 });
    assertEquals([...Deno.readDirSync(dir)].length, 2);
    // Two changes of one file staged at once: the second goes the usual atomic way; the last published wins.
    const a = hot.stageJson(path, { n: 5 });
    const b = hot.stageJson(path, { n: 6 });
    await a.publish();
    assertEquals(await readJsonFile(path), { n: 5 });
    await b.publish();
    assertEquals(await readJsonFile(path), { n: 6 });
    await hot.putJson(path, { n: 7 });
    assertEquals(await readJsonFile(path), { n: 7 });
    // A change that already ended does nothing when published or abandoned again, whatever is staged now.
    const old = hot.stageJson(path, { n: 70 });
    old.abandon();
    const now = hot.stageJson(path, { n: 71 });
    await old.publish();
    old.abandon();
    assertEquals(await readJsonFile(path), { n: 7 });
    await now.publish();
    assertEquals(await readJsonFile(path), { n: 71 });
    // A directory that went away (a closed session): staging and publishing never throw, and write nothing.
    const gone = `${dir}/gone/lastcmd.json`;
    const lost = hot.stageJson(gone, { n: 8 });
    await lost.publish();
    assertEquals(await readJsonFile(gone), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
