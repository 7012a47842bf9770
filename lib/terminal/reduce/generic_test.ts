import assert from "node:assert/strict";
import {
  collapseBlankLines,
  compressRepeats,
  estimateTokens,
  foldLines,
  foldLongLine,
  LONG_LINE_HEAD,
  LONG_LINE_TAIL,
  printedText,
  stripControl,
} from "./generic.ts";
import { reduceOutput } from "./mod.ts";

Deno.test("stripControl removes CSI colour and cursor sequences", () => {
  assert.equal(stripControl("\x1b[1;31merror\x1b[0m: x\x1b[K"), "error: x");
  assert.equal(stripControl("\x1b[?2004hprompt\x1b[?25l"), "prompt");
});

Deno.test("stripControl removes OSC terminated by BEL and by ST, including OSC 133 marks", () => {
  assert.equal(stripControl("\x1b]0;title\x07hello"), "hello");
  assert.equal(stripControl("\x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\"), "link");
  assert.equal(stripControl("\x1b]133;A\x07$ ls\x1b]133;C\x07\nout\x1b]133;D;0\x07"), "$ ls\nout");
});

Deno.test("stripControl removes DCS/APC/PM/SOS with their payload and 2-byte escapes", () => {
  assert.equal(stripControl("a\x1bPtmux;payload\x1b\\b"), "ab");
  assert.equal(stripControl("a\x1b_apc data\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x1b\\d"), "abcd");
  assert.equal(stripControl("\x1b7saved\x1b8\x1b(Bx\x1b="), "savedx");
});

Deno.test("stripControl keeps what follows the last carriage return and normalises CRLF", () => {
  assert.equal(stripControl("progress 10%\rprogress 50%\rdone\r\nnext\r\n"), "done\nnext\n");
  assert.equal(stripControl("kept\r"), "kept");
  assert.equal(stripControl("spinner\r        \r"), "");
  assert.equal(stripControl("⠙\x1b[1G\x1b[0Kadded 3 packages"), "added 3 packages");
});

Deno.test("stripControl removes C0 controls except tab/newline, DEL, and right-trims", () => {
  assert.equal(stripControl("a\x07b\x00c\x7fd\te   \n  x  "), "abcd\te\n  x");
  assert.equal(stripControl("bell\x08\x0b\x0c"), "bell");
});

Deno.test("estimateTokens is ceil(length / 4)", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("abcd"), 1);
  assert.equal(estimateTokens("abcde"), 2);
});

Deno.test("collapseBlankLines keeps at most one blank and trims both ends", () => {
  assert.deepEqual(collapseBlankLines(["", " ", "a", "", "", "  ", "b", "", ""]), ["a", "", "b"]);
});

Deno.test("compressRepeats folds runs of 3+ identical lines and leaves pairs alone", () => {
  assert.deepEqual(compressRepeats(["x", "x", "y"]), ["x", "x", "y"]);
  assert.deepEqual(compressRepeats(["a", "b", "b", "b", "b", "b", "c"]), ["a", "b  (×5)", "c"]);
  assert.deepEqual(compressRepeats(["", "", ""]), ["", "", ""]);
});

Deno.test("foldLines keeps head 30 + marker + tail 20 with the exact hidden range", () => {
  const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
  const folded = foldLines(lines);
  assert.equal(folded.hidden, 50);
  assert.equal(folded.lines.length, 51);
  assert.equal(folded.lines[29], "line 30");
  assert.match(folded.lines[30] ?? "", /^… 50 lines hidden \(lines 31-80 of the unfolded view\);/);
  assert.match(folded.lines[30] ?? "", /line_range="31:80"/);
  assert.equal(folded.lines[31], "line 81");
  assert.equal(folded.lines[50], "line 100");
  assert.equal(foldLines(lines.slice(0, 60)).hidden, 0);
  assert.equal(foldLines(lines.slice(0, 61)).hidden, 11);
});

Deno.test("the fold marker's line_range addresses the elide=false view", () => {
  const raw = Array.from({ length: 100 }, (_, i) => `row ${i + 1}`).join("\n");
  const elided = reduceOutput(raw, { sessionId: "t1" });
  const full = reduceOutput(raw, { sessionId: "t1", elide: false });
  const m = /line_range="(\d+):(\d+)"/.exec(elided.text);
  assert.ok(m);
  const hidden = full.text.split("\n").slice(Number(m[1]) - 1, Number(m[2]));
  assert.equal(hidden.length, elided.hiddenLines);
  assert.equal(hidden[0], "row 31");
  assert.equal(hidden[hidden.length - 1], "row 80");
  assert.equal(full.hiddenLines, 0);
  assert.equal(full.lines, 100);
});

Deno.test("foldLongLine keeps 1200 head + marker + 600 tail", () => {
  const line = "a".repeat(1500) + "b".repeat(1500);
  const folded = foldLongLine(line);
  assert.ok(folded.startsWith("a".repeat(LONG_LINE_HEAD) + " …[1200 chars omitted]… "));
  assert.ok(folded.endsWith("b".repeat(LONG_LINE_TAIL)));
  assert.equal(foldLongLine("x".repeat(2000)), "x".repeat(2000));
});

Deno.test("foldLongLine never splits a surrogate pair", () => {
  const emoji = "😀"; // two UTF-16 units
  const line = emoji.repeat(1500); // 3000 units; 1200 and 3000-600 both fall on pair boundaries
  const odd = "x" + emoji.repeat(1500); // shifts every boundary by one unit
  for (const l of [line, odd]) {
    const folded = foldLongLine(l);
    const [head, tail] = folded.split(/ …\[\d+ chars omitted\]… /);
    assert.ok(head !== undefined && tail !== undefined);
    for (const part of [head, tail]) {
      assert.ok(!/[\ud800-\udbff]$/.test(part), "no lone high surrogate at the end");
      assert.ok(!/^[\udc00-\udfff]/.test(part), "no lone low surrogate at the start");
      assert.doesNotThrow(() => encodeURIComponent(part));
    }
    const omitted = Number(/\[(\d+) chars omitted\]/.exec(folded)?.[1]);
    assert.equal(head.length + omitted + tail.length, l.length);
  }
});

Deno.test("reduceOutput meta line reports shown/raw lines, tokens, reducer and hidden lines", () => {
  const raw = "dev@box:~$ echo hi\r\nhi\r\nhi\r\nhi\r\ndev@box:~$ ";
  const r = reduceOutput(raw, { sessionId: "t7", command: "echo hi" });
  assert.equal(r.text, "hi  (×3)");
  assert.equal(r.reducer, "generic");
  assert.equal(r.rawLines, 5);
  assert.equal(
    r.meta,
    `[aiterm t7: 1 lines / ~${r.tokens} tok (raw 5 lines / ~${r.rawTokens} tok); reducer generic; 0 lines hidden]`,
  );
});

Deno.test("reduceOutput keeps real output that looks like a command or ends in > ", () => {
  const raw = "$ cat notes\nsee echo hi below\nvalue > 3\n>\n$";
  const r = reduceOutput(raw, { sessionId: "t1", command: "cat notes" });
  assert.equal(r.text, "see echo hi below\nvalue > 3");
  assert.equal(reduceOutput("a\nb\n", { sessionId: "t1" }).text, "a\nb");
});

Deno.test("unknown commands and empty output use the generic reducer", () => {
  assert.equal(reduceOutput("x\ny", { sessionId: "t1", command: "frobnicate --all" }).reducer, "generic");
  const empty = reduceOutput("", { sessionId: "t1", command: "pytest" });
  assert.equal(empty.text, "");
  assert.equal(empty.lines, 0);
  assert.equal(empty.reducer, "generic");
});

Deno.test("printedText keeps trailing spaces and applies \\r and backspace overwrites", () => {
  assert.equal(printedText("\x1b[?2004l\rPassword: "), "Password: ");
  assert.equal(printedText(">>> \r\n"), ">>> \n");
  assert.equal(printedText("\x1b[1G\x1b[0J> \x1b[3G"), "> ");
  assert.equal(printedText("abc\b \b"), "ab");
  assert.equal(printedText("abc\bX"), "abX");
  assert.equal(printedText("ab\b\b  "), "  ");
  assert.equal(stripControl("Password: "), "Password:", "reads still right-trim");
});
