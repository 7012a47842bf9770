import { assert, assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import { blankRunMarker, reduceScreen } from "./screen.ts";

const W = 120;
const pad = (s: string) => s.padEnd(W, " ");
/** A capture as tmux prints it: every row padded to the width, one newline per row. */
const capture = (rows: string[]) => rows.map(pad).join("\n") + "\n";

Deno.test("reduceScreen(): an almost empty vim keeps its text, one ~ row with its count, and the status line", () => {
  const rows = ["hello", ...Array(46).fill("~"), "", "", '"note.txt" [New]          0,0-1   All'];
  const shot = capture(rows);
  const v = reduceScreen(shot, { sessionId: "t1" });
  assertEquals(v.text, ["hello", "~  (×46)", "", "", '"note.txt" [New]          0,0-1   All'].join("\n"));
  assertEquals([v.rows, v.lines, v.collapsedRepeated, v.blankBelow], [50, 5, 45, 0]);
  assert(v.text.length * 20 < shot.length, `${v.text.length} of ${shot.length}`);
  assertStringIncludes(v.meta, "[aiterm t1: screen 50 rows as 5 lines / ~");
  assertStringIncludes(v.meta, `(raw ${shot.length} chars / ~${Math.ceil(shot.length / 4)} tok)`);
  assertStringIncludes(v.meta, "collapsed 45 repeated rows");
});

Deno.test("reduceScreen(): blank runs become one counted marker; short runs and leading rows stay", () => {
  const rows = ["", "top", "", "", "a", ...Array(7).fill(""), "b", ...Array(30).fill("")];
  const v = reduceScreen(capture(rows), { sessionId: "s" });
  assertEquals(v.text, ["", "top", "", "", "a", blankRunMarker(7), "b"].join("\n"));
  assertEquals([v.collapsedBlank, v.blankBelow], [6, 30]);
  assertStringIncludes(v.meta, "collapsed 6 blank rows; 30 blank rows below the text left out");
});

Deno.test("reduceScreen(): trailing spaces go, inner spaces stay", () => {
  const v = reduceScreen(capture(["a   b", "  indented  "]), { sessionId: "s" });
  assertEquals(v.text, "a   b\n  indented");
});

Deno.test("reduceScreen(): lines keeps the last N rows that hold text", () => {
  const rows = ["old 1", "old 2", "old 3", "$ ls", "x y", "$", "", "", ""];
  const v = reduceScreen(capture(rows), { sessionId: "s", lines: 2 });
  assertEquals(v.text, "x y\n$");
  assertStringIncludes(v.meta, "screen last 2 of 9 rows as 2 lines");
  // More than there is: all of it.
  assertEquals(reduceScreen(capture(rows), { sessionId: "s", lines: 500 }).text.split("\n").length, 6);
});

Deno.test("reduceScreen(): raw is the capture exactly; with lines its last N rows as captured", () => {
  const shot = capture(["a", "", "b"]);
  const v = reduceScreen(shot, { sessionId: "s", raw: true });
  assertEquals(v.text, shot);
  assertStringIncludes(v.meta, `screen 3 rows, raw ${shot.length} chars`);
  const last = reduceScreen(shot, { sessionId: "s", raw: true, lines: 2 });
  assertEquals(last.text, pad("") + "\n" + pad("b") + "\n");
});

Deno.test("reduceScreen(): an empty capture is an empty text with a meta line", () => {
  const v = reduceScreen("", { sessionId: "s" });
  assertEquals([v.text, v.lines, v.rows], ["", 0, 0]);
  assertStringIncludes(v.meta, "screen 0 rows as 0 lines");
});
