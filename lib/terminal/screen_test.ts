import { assert, assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import { blankRunMarker, DITTO, reduceScreen, SCREEN_BUDGET } from "./screen.ts";

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

// --- issue 29 item 7: a full screen of long rows costs at most the budget ---

const WIDE = 200;
/** A capture of a 200-column pane. */
const wide = (rows: string[]) => rows.map((r) => r.slice(0, WIDE).padEnd(WIDE, " ")).join("\n") + "\n";
const CMD = "/usr/lib/app/server --config /etc/app/server.toml --listen 0.0.0.0:8080 --workers 16 --log-level info " +
  "--max-connections 4096 --enable-metrics --metrics-port 9100 --data-dir /var/lib/app --cache-size 512M";

/** An htop-like screen: meters, a header, 40 threads of one long command line, a key bar. */
function htopLike(): string[] {
  const bar = (n: number, label: string) => `    ${n}[${"|".repeat(88)}100.0%] ${label}`;
  const rows = [
    "",
    bar(0, "Tasks: 43, 184 thr; 1 running"),
    bar(1, "Load average: 3.36 1.21 0.44"),
    `  Mem[${"|".repeat(15)}${" ".repeat(66)}1.03G/23.5G] Uptime: 00:03:38`,
    "",
    "  PID USER       PRI  NI  VIRT   RES   SHR S  CPU% MEM%   TIME+  Command",
  ];
  for (let i = 0; i < 42; i++) {
    const pid = String(60 + i).padStart(5);
    const time = i === 1 ? "0:00.01" : "0:00.00";
    rows.push(`${pid} root        20   0 54516 13848  7468 S   0.0  0.1  ${time} ${CMD}`);
  }
  rows.push("F1Help  F2Setup F3SearchF4FilterF5Tree  F6SortByF7Nice -F8Nice +F9Kill  F10Quit");
  return rows;
}

Deno.test("reduceScreen(): an htop-like screen over the budget: fills and row ends like the row above, nothing hidden", () => {
  const shot = wide(htopLike());
  assert(shot.length > 9000);
  const v = reduceScreen(shot, { sessionId: "s" });
  assert(v.text.length <= SCREEN_BUDGET, `${v.text.length}`);
  const lines = v.text.split("\n");
  assertEquals(lines[1], `    0[⟨88×|⟩100.0%] Tasks: 43, 184 thr; 1 running`);
  // The first thread row is whole; the next ones end in the mark from the column where they repeat the row above.
  assert(lines.includes(`   60 root        20   0 54516 13848  7468 S   0.0  0.1  0:00.00 ${CMD.slice(0, 200 - 65)}`));
  assertEquals(
    lines.find((l) => l.startsWith("   61 ")),
    `   61 root        20   0 54516 13848  7468 S   0.0  0.1  0:00.01 ${DITTO}`,
  );
  assertEquals(
    lines.find((l) => l.startsWith("   62 ")),
    `   62 root        20   0 54516 13848  7468 S   0.0  0.1  0:00.00 ${DITTO}`,
  );
  // A row that repeats the one above but for its PID: the mark starts at the second column.
  assertEquals(lines.find((l) => l.startsWith("   63 ")), `   63 ${DITTO}`);
  assertEquals(v.hiddenRows, 0);
  assertEquals(lines.at(-1), "F1Help  F2Setup F3SearchF4FilterF5Tree  F6SortByF7Nice -F8Nice +F9Kill  F10Quit");
  assertStringIncludes(v.meta, "over 3000 chars: 3 runs of one character as ⟨N×c⟩");
  assertStringIncludes(v.meta, `row ends like the row above as ${DITTO}`);
  // Every row is still there, in order.
  assertEquals(lines.length, 49);
});

Deno.test("reduceScreen(): a ditto mark starts only where both rows have a space before it", () => {
  const a = `    1 root        10 -10 54896 14032  7468 S   0.0  0.1  0:01.85 ${CMD}`;
  const b = `   72 root        20   0 54896 14032  7468 S   0.0  0.1  0:01.85 ${CMD}`;
  const rows = [...Array(30).fill(0).map((_, i) => `filler row ${i} ${"x".repeat(150)}`), a, b];
  const v = reduceScreen(wide(rows), { sessionId: "s" });
  // NI is 0 in the second row: the mark must not claim it is the same as the -10 above.
  assertEquals(v.text.split("\n").find((l) => l.startsWith("   72 ")), `   72 root        20   0 ${DITTO}`);
});

Deno.test("reduceScreen(): a top-like table over the budget keeps its head and its last rows, and says which are hidden", () => {
  const rows = [
    "top - 00:13:55 up 4 min,  0 user,  load average: 2.54, 1.36, 0.53",
    "",
    "  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND",
  ];
  for (let i = 0; i < 47; i++) {
    rows.push(
      `${String(i + 1).padStart(5)} root      20   0       0      0      0 I   0.0   0.0   0:00.00 kworker/${i}:0-ev`,
    );
  }
  const shot = wide(rows);
  const v = reduceScreen(shot, { sessionId: "s" });
  assert(v.text.length <= SCREEN_BUDGET, `${v.text.length}`);
  const lines = v.text.split("\n");
  assertEquals(lines[0], rows[0]);
  assertEquals(lines.slice(-3), rows.slice(-3).map((r) => r.trimEnd()));
  const marker = lines.find((l) => l.startsWith("⟨rows "));
  const m = /^⟨rows (\d+)-(\d+) hidden \((\d+) rows over 3000 chars\); screen:true lines=50 shows every row⟩$/.exec(
    marker ?? "",
  );
  assert(m, String(marker));
  assertEquals(Number(m[2]) - Number(m[1]) + 1, v.hiddenRows);
  assertEquals(lines.length - 1 + v.hiddenRows, 50);
  // The rows right around the marker are the ones next to the hidden range.
  const at = lines.indexOf(marker!);
  assertEquals(lines[at - 1], rows[Number(m[1]) - 2]!.trimEnd());
  assertEquals(lines[at + 1], rows[Number(m[2])]!.trimEnd());
  assertStringIncludes(v.meta, `${v.hiddenRows} rows hidden`);
  // lines=N asks for the rows: no budget, every row.
  assertEquals(reduceScreen(shot, { sessionId: "s", lines: 50 }).text.split("\n").length, 50);
});

Deno.test("reduceScreen(): a screen within the budget is unchanged by the budget steps (vim's code keeps its ----)", () => {
  const rows = ["// ------------------------------------------", "const a = 1;", ...Array(45).fill("~"), "", "", "x"];
  const v = reduceScreen(capture(rows), { sessionId: "s" });
  assertEquals(v.text.split("\n")[0], rows[0]);
  assert(!v.meta.includes("over 3000"));
});

Deno.test("reduceScreen(): a screen a little over the budget (vim on dense code) loses no rows", () => {
  const rows = Array.from(
    { length: 49 },
    (_, i) => `  const value${i} = compute(input${i}, options.limit, options.mode); // step ${i}`,
  );
  const shot = capture([...rows, '"dense.ts" 49L, 3300B']);
  const v = reduceScreen(shot, { sessionId: "s" });
  assert(v.text.length > SCREEN_BUDGET && v.text.length < SCREEN_BUDGET * 1.25, `${v.text.length}`);
  assertEquals([v.hiddenRows, v.lines], [0, 50]);
});
