import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { segmentName } from "../../platform/mod.ts";
import { jsonStringBytes } from "../../base/json_size.ts";
import { findLine, fitTail, readBytePage, readLinePage, type Rendered } from "./read_page.ts";

const enc = new TextEncoder();
const SEG = 64;

/** Writes `text` as a segmented log (SEG-byte files named like the sink's) into a temp dir. */
async function withLog(text: string, fn: (dir: string, bytes: Uint8Array) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    const bytes = enc.encode(text);
    for (let i = 0; i * SEG < bytes.length; i++) {
      await Deno.writeFile(`${dir}/${segmentName(i)}`, bytes.subarray(i * SEG, (i + 1) * SEG));
    }
    await fn(dir, bytes);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const identity = (text: string): Rendered => ({ text, meta: null, reducer: null });

// Control bytes (6 JSON bytes each), quotes, and 2-, 3- and 4-byte characters, across 64-byte segments.
const MIXED = Array.from({ length: 40 }, (_, i) => `l${i} \x1b[1m"é日😀"\x1b[0m\\\r\n`).join("") + "tail";

Deno.test("byte pages fit the budget, never split a character, and concatenate to the exact log", async () => {
  await withLog(MIXED, async (dir, bytes) => {
    for (const budget of [40, 100, 333]) {
      let at = 0;
      let joined = "";
      let pages = 0;
      for (;;) {
        const p = await readBytePage({
          dir,
          segmentBytes: SEG,
          from: at,
          maxBytes: 1 << 20,
          alignStart: true,
          wholeLines: false,
          budget,
          render: identity,
        });
        assert(jsonStringBytes(p.text) <= budget, `page of ${jsonStringBytes(p.text)} JSON bytes > ${budget}`);
        assert(!p.text.includes("\ufffd"), "a page split a character");
        assertEquals(p.textStart, at);
        assert(p.nextCursor > at || p.nextCursor === bytes.length, "a page did not move on");
        joined += p.text;
        pages++;
        at = p.nextCursor;
        if (p.nextCursor >= p.slice.end) break;
      }
      assertEquals(joined, MIXED);
      assert(pages > 3, `budget ${budget}: only ${pages} pages`);
    }
  });
});

Deno.test("byte pages with wholeLines end after a newline, except the log's last partial line", async () => {
  await withLog(MIXED, async (dir) => {
    let at = 0;
    const texts: string[] = [];
    for (;;) {
      const p = await readBytePage({
        dir,
        segmentBytes: SEG,
        from: at,
        maxBytes: 1 << 20,
        alignStart: true,
        wholeLines: true,
        budget: 200,
        render: identity,
      });
      texts.push(p.text);
      at = p.nextCursor;
      if (at >= p.slice.end) break;
    }
    assertEquals(texts.join(""), MIXED);
    for (const t of texts.slice(0, -1)) assert(t.endsWith("\n"), `page ends mid-line: ${JSON.stringify(t)}`);
    assert(texts[texts.length - 1]!.endsWith("tail"));
  });
});

Deno.test("findLine counts newlines across segments; lines past the end are reported", async () => {
  const text = Array.from({ length: 30 }, (_, i) => `line-${i + 1}`).join("\n") + "\npartial";
  await withLog(text, async (dir, bytes) => {
    assertEquals(await findLine(dir, SEG, { base: 0, line: 1 }), {
      offset: 0,
      found: true,
      lines: 0,
      truncated: false,
    });
    const l17 = await findLine(dir, SEG, { base: 0, line: 17 });
    assertEquals(new TextDecoder().decode(bytes.subarray(l17.offset, l17.offset + 8)), "line-17\n");
    assertEquals((await findLine(dir, SEG, { base: 0, line: 31 })).found, true);
    assertEquals(await findLine(dir, SEG, { base: 0, line: 40 }), {
      offset: bytes.length,
      found: false,
      lines: 31,
      truncated: false,
    });
    // Counting from a cursor: line 2 after the start of line 17 is line 18.
    const from17 = await findLine(dir, SEG, { base: l17.offset, line: 2 });
    assertEquals(from17.offset, (await findLine(dir, SEG, { base: 0, line: 18 })).offset);
  });
});

Deno.test("line pages: exact counts, the last partial line, a budget cut on a line boundary", async () => {
  const text = Array.from({ length: 30 }, (_, i) => `line-${i + 1}`).join("\n") + "\npartial";
  const render = (t: string) => t.split("\n");
  await withLog(text, async (dir) => {
    const three = await readLinePage({ dir, segmentBytes: SEG, from: 0, count: 3, render });
    assertEquals([three.lines, three.complete, three.cutLine], [["line-1", "line-2", "line-3"], 3, false]);
    const rest = await readLinePage({ dir, segmentBytes: SEG, from: 0, count: null, render });
    assertEquals([rest.lines.length, rest.lines[30], rest.complete], [31, "partial", 31]);
    const small = await readLinePage({ dir, segmentBytes: SEG, from: 0, count: null, budget: 50, render });
    assert(jsonStringBytes(small.lines.join("\n")) <= 50);
    assertEquals(small.lines, Array.from({ length: small.complete }, (_, i) => `line-${i + 1}`));
    const next = await readLinePage({ dir, segmentBytes: SEG, from: small.nextCursor, count: 1, render });
    assertEquals(next.lines, [`line-${small.complete + 1}`]);
  });
});

Deno.test("a line longer than one page is cut and continues at next_cursor", async () => {
  const text = "x".repeat(500) + "\nshort\n";
  await withLog(text, async (dir) => {
    const p = await readLinePage({
      dir,
      segmentBytes: SEG,
      from: 0,
      count: null,
      budget: 100,
      render: (t) => t.split("\n"),
    });
    assertEquals([p.cutLine, p.complete], [true, 0]);
    assert(jsonStringBytes(p.lines.join("\n")) <= 100);
    assertEquals(p.lines, ["x".repeat(p.nextCursor)]);
  });
});

Deno.test("fitTail keeps the newest lines that fit and counts the others", () => {
  assertEquals(fitTail("a\nb", 100), { text: "a\nb", dropped: 0 });
  const lines = Array.from({ length: 100 }, (_, i) => `row ${i} \x1b`);
  const fit = fitTail(lines.join("\n"), 200);
  assert(jsonStringBytes(fit.text) <= 200);
  assertEquals(fit.text, lines.slice(fit.dropped).join("\n"));
  assert(fit.dropped > 80 && fit.dropped < 100, `dropped ${fit.dropped}`);
});
