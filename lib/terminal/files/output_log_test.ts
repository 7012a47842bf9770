import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { gapMarkerName, outputSinkCommand, parseSegmentName, segmentName } from "../../../platform/mod.ts";
import { LogEnds, logExtent, pruneLog, readLog, scanLog } from "./output_log.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

Deno.test("segment names: a restarted writer's prefix maps its files to global indexes past the old ones", () => {
  assertEquals(parseSegmentName("seg.aaaaac"), { base: 0, index: 2 });
  assertEquals(parseSegmentName(segmentName(7, 5)), { base: 5, index: 7 });
  assertEquals(segmentName(5, 5), "seg.aaaaaf.aaaaaa");
  for (const bad of ["seg.aaaaaa.aaaaaa", "seg.aaaaab.aaaaa", "seg.AAAAAB.aaaaaa", "gap.aaaaab", "seg."]) {
    assertEquals(parseSegmentName(bad), null, bad);
  }
});

Deno.test("split with a restarted writer's prefix writes the files the reader expects (real split)", async () => {
  await withDir(async (dir) => {
    const child = new Deno.Command("sh", { args: ["-c", outputSinkCommand(dir, 10, 3)], stdin: "piped" }).spawn();
    const w = child.stdin.getWriter();
    await w.write(enc.encode("0123456789abcdefghijXY"));
    await w.close();
    assert((await child.status).success);
    assertEquals(await names(dir), ["seg.aaaaad.aaaaaa", "seg.aaaaad.aaaaab", "seg.aaaaad.aaaaac"]);
    assertEquals(await logExtent(dir, 10), { start: 30, end: 52, segments: [3, 4, 5] });
    const r = await readLog(dir, 10, { from: 30, maxBytes: 100 });
    assertEquals([dec.decode(r.bytes), r.from, r.to, r.truncated], ["0123456789abcdefghijXY", 30, 52, false]);
  });
});

Deno.test("a read across a writer restart skips the gap, says truncated and names LOG_WRITER_RESTARTED", async () => {
  await withDir(async (dir) => {
    // The first writer died 4 bytes into segment 1; the new one started at segment 2.
    await Deno.writeFile(`${dir}/${segmentName(0)}`, enc.encode("0123456789"));
    await Deno.writeFile(`${dir}/${segmentName(1)}`, enc.encode("abcd"));
    await Deno.writeFile(`${dir}/${gapMarkerName(2)}`, new Uint8Array());
    await Deno.writeFile(`${dir}/${segmentName(2, 2)}`, enc.encode("NEW"));
    assertEquals(await logExtent(dir, 10), { start: 0, end: 23, segments: [0, 1, 2] });
    // From before the gap: up to the gap, which is reported at once; the next read continues after it.
    const first = await readLog(dir, 10, { from: 8, maxBytes: 100 });
    assertEquals([dec.decode(first.bytes), first.to, first.truncated], ["89abcd", 14, true]);
    assertEquals(first.gaps, [{ from: 14, to: 20, code: "LOG_WRITER_RESTARTED" }]);
    const next = await readLog(dir, 10, { from: first.to, maxBytes: 100 });
    assertEquals([dec.decode(next.bytes), next.from, next.to, next.truncated], ["NEW", 20, 23, true]);
    assertEquals(next.gaps, [{ from: 14, to: 20, code: "LOG_WRITER_RESTARTED" }]);
    // Past the gap nothing is reported.
    const after = await readLog(dir, 10, { from: 21, maxBytes: 100 });
    assertEquals([dec.decode(after.bytes), after.truncated, after.gaps], ["EW", false, []]);
  });
});

Deno.test("a segment deleted from the middle of the log is LOG_SEGMENT_MISSING, and cursors never go back", async () => {
  await withDir(async (dir) => {
    for (const [i, text] of ["0123456789", "abcdefghij", "ABCDEFGHIJ", "xy"].entries()) {
      await Deno.writeFile(`${dir}/${segmentName(i)}`, enc.encode(text));
    }
    await Deno.remove(`${dir}/${segmentName(1)}`);
    const r = await readLog(dir, 10, { from: 12, maxBytes: 100 });
    assertEquals([dec.decode(r.bytes), r.from, r.truncated], ["ABCDEFGHIJxy", 20, true]);
    assertEquals(r.gaps, [{ from: 12, to: 20, code: "LOG_SEGMENT_MISSING" }]);
  });
});

Deno.test("a restarted writer that has not written yet holds the end: the log never reads as empty at 0", async () => {
  await withDir(async (dir) => {
    await Deno.writeFile(`${dir}/${gapMarkerName(9)}`, new Uint8Array());
    assertEquals(await logExtent(dir, 10), { start: 90, end: 90, segments: [] });
    await Deno.writeFile(`${dir}/${segmentName(3)}`, enc.encode("old"));
    assertEquals((await logExtent(dir, 10)).end, 90);
    const r = await readLog(dir, 10, { from: 30, maxBytes: 100 });
    assertEquals([r.bytes.length, r.to, r.end, r.truncated], [3, 33, 90, true]);
    assertEquals(r.gaps, [{ from: 33, to: 90, code: "LOG_WRITER_RESTARTED" }]);
  });
});

Deno.test("files a dying writer wrote at or past a newer writer's base are superseded and pruned", async () => {
  await withDir(async (dir) => {
    await Deno.writeFile(`${dir}/${segmentName(0)}`, enc.encode("0123456789"));
    await Deno.writeFile(`${dir}/${segmentName(1)}`, enc.encode("stray"));
    await Deno.writeFile(`${dir}/${gapMarkerName(1)}`, new Uint8Array());
    await Deno.writeFile(`${dir}/${segmentName(1, 1)}`, enc.encode("real"));
    const layout = await scanLog(dir, 10);
    assertEquals([layout.segments, layout.files, layout.strays], [[0, 1], ["seg.aaaaaa", "seg.aaaaab.aaaaaa"], [
      "seg.aaaaab",
    ]]);
    assertEquals(dec.decode((await readLog(dir, 10, { from: 10, maxBytes: 10 })).bytes), "real");
    await pruneLog(dir, 10, 8);
    assert(!(await names(dir)).includes("seg.aaaaab"));
  });
});

Deno.test("pruneLog keeps the cap, drops empty files dead writers left, never the newest, and is race-safe", async () => {
  await withDir(async (dir) => {
    for (let i = 0; i < 6; i++) await Deno.writeFile(`${dir}/${segmentName(i)}`, enc.encode("0123456789"));
    // A writer that died creating segment 6 (disk full), then two restarts that died on their first write.
    await Deno.writeFile(`${dir}/${segmentName(6)}`, new Uint8Array());
    for (const base of [7, 8]) {
      await Deno.writeFile(`${dir}/${gapMarkerName(base)}`, new Uint8Array());
      await Deno.writeFile(`${dir}/${segmentName(base, base)}`, new Uint8Array());
    }
    await Deno.writeFile(`${dir}/${gapMarkerName(9)}`, new Uint8Array());
    await Deno.writeFile(`${dir}/${segmentName(9, 9)}`, enc.encode("live"));
    // Two processes prune at once: together they remove each file once and leave the same result.
    const removed = await Promise.all([pruneLog(dir, 10, 3), pruneLog(dir, 10, 3)]);
    assertEquals(removed[0]! + removed[1]!, 7);
    const layout = await scanLog(dir, 10);
    assertEquals(layout.segments, [4, 5, 9]);
    assertEquals(layout.markers, ["gap.aaaaah", "gap.aaaaai", "gap.aaaaaj"]);
    assertEquals(await pruneLog(dir, 10, 3), 0);
    // keep=1 still never deletes the newest segment.
    await pruneLog(dir, 10, 1);
    assertEquals((await scanLog(dir, 10)).segments, [9]);
    assertEquals(dec.decode((await readLog(dir, 10, { from: 90, maxBytes: 10 })).bytes), "live");
  });
});

Deno.test("a read from before a restarted writer's base, with nothing older on disk, names the restart", async () => {
  await withDir(async (dir) => {
    // Every file of the first writer was deleted; the new writer started at segment 2.
    await Deno.writeFile(`${dir}/${gapMarkerName(2)}`, new Uint8Array());
    await Deno.writeFile(`${dir}/${segmentName(2, 2)}`, enc.encode("NEW"));
    const r = await readLog(dir, 10, { from: 7, maxBytes: 100 });
    assertEquals([dec.decode(r.bytes), r.from, r.truncated], ["NEW", 20, true]);
    assertEquals(r.gaps, [{ from: 7, to: 20, code: "LOG_WRITER_RESTARTED" }]);
    // Plain rotation (no restart in between) stays a bare truncated.
    await Deno.writeFile(`${dir}/${segmentName(3, 2)}`, enc.encode("more"));
    await Deno.remove(`${dir}/${segmentName(2, 2)}`);
    const rotated = await readLog(dir, 10, { from: 21, maxBytes: 100 });
    assertEquals([dec.decode(rotated.bytes), rotated.truncated, rotated.gaps], ["more", true, []]);
  });
});

Deno.test("LogEnds: the end from one stat while the directory is unchanged, listed again after any file is made or removed", async () => {
  await withDir(async (dir) => {
    const ends = new LogEnds();
    const settle = () => Deno.utimeSync(dir, new Date(Date.now() - 5_000), new Date(Date.now() - 5_000));
    const same = async () => assertEquals(ends.end(dir, 10), (await logExtent(dir, 10)).end);
    // An empty (or missing) log.
    await same();
    await Deno.writeFile(`${dir}/${segmentName(0)}`, enc.encode("abc"));
    settle();
    await same();
    // Growth of the last segment: seen without a listing.
    await Deno.writeFile(`${dir}/${segmentName(0)}`, enc.encode("defg"), { append: true });
    await same();
    // A rotation: a new file changes the directory's mtime, so it is listed again.
    await Deno.writeFile(`${dir}/${segmentName(0)}`, enc.encode("hij"), { append: true });
    await Deno.writeFile(`${dir}/${segmentName(1)}`, enc.encode("k"));
    await same();
    assertEquals(ends.end(dir, 10), 11);
    settle();
    await same();
    // A restarted writer's gap marker, then its first segment.
    await Deno.writeFile(`${dir}/${gapMarkerName(7)}`, new Uint8Array());
    assertEquals(ends.end(dir, 10), 70);
    settle();
    assertEquals(ends.end(dir, 10), 70);
    await Deno.writeFile(`${dir}/${segmentName(7, 7)}`, enc.encode("zz"));
    await same();
    assertEquals(ends.end(dir, 10), 72);
    // Pruning (a file removed) and a directory made again (a closed and reopened session).
    settle();
    await same();
    await Deno.remove(`${dir}/${segmentName(0)}`);
    await same();
    const logs = await names(dir);
    for (const n of logs) await Deno.remove(`${dir}/${n}`);
    await same();
    assertEquals(ends.end(dir, 10), 0);
  });
});

Deno.test("LogEnds: a directory changed in the moments before it was listed is listed again next time", async () => {
  await withDir(async (dir) => {
    const ends = new LogEnds();
    await Deno.writeFile(`${dir}/${segmentName(0)}`, enc.encode("abc"));
    // Listed right after a change (a file time runs a clock tick behind): not trusted, even with the same mtime.
    assertEquals(ends.end(dir, 10), 3);
    const m = Deno.statSync(dir).mtime!;
    await Deno.writeFile(`${dir}/${segmentName(1)}`, enc.encode("d"));
    Deno.utimeSync(dir, m, m);
    assertEquals(ends.end(dir, 10), 11);
  });
});
