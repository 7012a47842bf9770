/**
 * Issue 29, items 5, 6 and 8: a reduction never hides what a waiting program asks, reads overstruck text as the
 * letters it shows, and keeps every line that reads as an error, and both sides of each failing assertion.
 */
import assert from "node:assert/strict";
import { isErrorLine, isHardErrorLine, stripControl } from "./generic.ts";
import { reduceNodeTest } from "./js_runners.ts";
import { LOST_CHECK_MAX, lostErrorLines, reduceOutput } from "./mod.ts";
import { condenseBlock } from "./util.ts";

// --- item 6: backspace overstrike ---

Deno.test("stripControl applies nroff's backspace overstrike: bold and underline read as the letters", () => {
  const bold = (s: string) => [...s].map((c) => `${c}\b${c}`).join("");
  const under = (s: string) => [...s].map((c) => `_\b${c}`).join("");
  assert.equal(stripControl(bold("NAME")), "NAME");
  assert.equal(stripControl(`       ${bold("-a")}, ${bold("--all")}`), "       -a, --all");
  assert.equal(stripControl(`${bold("ls")} [${under("OPTION")}]... [${under("FILE")}]...`), "ls [OPTION]... [FILE]...");
  // Multi-byte letters overstrike the same way; a line editor's erase still erases.
  assert.equal(stripControl(bold("é©")), "é©");
  assert.equal(stripControl("abc\b \b\b \bX"), "aX");
  // A backspace with nothing after it moves the cursor and erases nothing; other controls take no cell.
  assert.equal(stripControl("bell\x08\x0b\x0c"), "bell");
  assert.equal(stripControl("a\x07\bb"), "b");
});

Deno.test("reduceOutput reads a man page captured with overstrike as plain text", () => {
  const raw = "$ man ls\r\nN\bNA\bAM\bME\bE\r\n       ls - list\r\n\r\n       -\b-a\ba, -\b--\b-a\bal\bll\bl\r\n$ ";
  const r = reduceOutput(raw, { sessionId: "t1", command: "man ls" });
  assert.equal(r.text, "NAME\n       ls - list\n\n       -a, --all");
});

// --- item 5: a waiting program's last line ---

Deno.test("waiting: the apt-get install reducer keeps the question apt-get waits on, at the end", () => {
  const raw = [
    "# apt-get install cowsay",
    "Reading package lists... Done",
    "Building dependency tree... Done",
    "The following NEW packages will be installed:",
    "  cowsay libtext-charwidth-perl",
    "0 upgraded, 2 newly installed, 0 to remove and 0 not upgraded.",
    "Need to get 30.9 kB of archives.",
    "Do you want to continue? [Y/n] ",
  ].join("\r\n");
  const plain = reduceOutput(raw, { sessionId: "t1", command: "apt-get install cowsay" });
  assert.equal(plain.reducer, "apt-install");
  const waiting = reduceOutput(raw, { sessionId: "t1", command: "apt-get install cowsay", waiting: true });
  assert.equal(waiting.reducer, "apt-install");
  assert.equal(waiting.text.split("\n").at(-1), "Do you want to continue? [Y/n]");
  assert.ok(waiting.text.includes("0 upgraded, 2 newly installed"));
});

Deno.test("waiting: a remote shell prompt after an ssh login is the last line, not dropped as a prompt", () => {
  const raw = "$ ssh -p 2222 dev@127.0.0.1\r\nLinux box 6.1.0 x86_64\r\n\r\nLast login: Mon\r\ndev@box:~$ ";
  const done = reduceOutput(raw, { sessionId: "t1", command: "ssh -p 2222 dev@127.0.0.1" });
  assert.equal(done.text.split("\n").at(-1), "Last login: Mon", "a finished read still drops trailing prompts");
  const waiting = reduceOutput(raw, { sessionId: "t1", command: "ssh -p 2222 dev@127.0.0.1", waiting: true });
  assert.equal(waiting.text, "Linux box 6.1.0 x86_64\n\nLast login: Mon\ndev@box:~$");
  // Nothing printed but the echo: nothing to show (the echo is not a prompt of the program).
  assert.equal(reduceOutput("$ cat\r\n", { sessionId: "t1", command: "cat", waiting: true }).text, "");
});

Deno.test("waiting: the last line survives a fold of a long output and a reducer that drops it", () => {
  const raw = Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n") + "\nContinue? (y/N) ";
  const r = reduceOutput(raw, { sessionId: "t1", waiting: true });
  assert.equal(r.text.split("\n").at(-1), "Continue? (y/N)");
  const npm = "$ npm install\nadded 3 packages in 1s\nOk to proceed? (y) ";
  const n = reduceOutput(npm, { sessionId: "t1", command: "npm install", waiting: true });
  assert.equal(n.reducer, "npm-install");
  assert.equal(n.text.split("\n").at(-1), "Ok to proceed? (y)");
});

// --- item 8: error lines survive every reduction ---

Deno.test("isErrorLine: errors and failures, not counts of none", () => {
  for (
    const l of [
      "src/a.c:3:5: error: expected ';'",
      "TypeError: x is not a function",
      "AssertionError [ERR_ASSERTION]: Expected values",
      "error[E0308]: mismatched types",
      "src/a.ts(3,1): error TS2322: Type",
      "fatal: not a git repository",
      "panic: runtime error: index out of range",
      "npm ERR! code E404",
      "E: Unable to locate package nope",
      "Traceback (most recent call last):",
      "bash: frob: command not found",
      "FAILED tests/test_a.py::test_x",
      "3 passed, 2 failed",
      "✖ adds (1ms)",
      "not ok 2 - objects",
      "Segmentation fault (core dumped)",
    ]
  ) assert.ok(isErrorLine(l), l);
  for (
    const l of [
      "compiling 12 files",
      "0 errors, 0 warnings",
      "no failures",
      "ok 1 - adds",
      "error handling",
      "  error: |-",
    ]
  ) assert.ok(!isErrorLine(l), l);
  assert.ok(isHardErrorLine("x.c:1:2: error: y") && !isHardErrorLine("FAILED tests/a.py::t"));
});

/** A build-like script's output: 2,000 lines, 5 `error:` lines scattered through it. */
function buildLog(): { raw: string; errors: string[] } {
  const errors = [
    "src/mod017.c:41:9: error: 'count' undeclared (first use in this function)",
    "src/mod412.c:7:1: error: expected ';' before '}' token",
    "linker: error: undefined symbol: frob_init",
    "src/mod1200.c:88:14: error: too many arguments to function 'parse'",
    "src/mod1750.c:3:10: error: 'util.h' file not found",
  ];
  const at = [317, 904, 1111, 1490, 1807];
  const lines = Array.from({ length: 2000 }, (_, i) => `[${i + 1}/2000] compiling src/mod${i}.c`);
  at.forEach((n, k) => (lines[n] = errors[k]!));
  return { raw: ["$ ./build.sh", ...lines, "build failed: 5 errors", "$ "].join("\n"), errors };
}

Deno.test("generic fold keeps every error line with a little context, wherever it stands", () => {
  const { raw, errors } = buildLog();
  const r = reduceOutput(raw, { sessionId: "t1", command: "./build.sh" });
  assert.equal(r.reducer, "generic");
  const shown = r.text.split("\n");
  for (const e of errors) {
    const k = shown.indexOf(e);
    assert.ok(k > 0, `kept: ${e}`);
    assert.match(shown[k - 1] ?? "", /compiling|lines hidden/, "context before");
    assert.match(shown[k + 1] ?? "", /compiling/, "context after");
  }
  assert.ok(r.lines < 120, `still folded: ${r.lines} lines`);
  assert.ok(r.hiddenLines > 1800);
  assert.equal(shown.at(-1), "build failed: 5 errors");
  // Each marker names its own range of the unfolded view, which full=true (elide:false) reproduces.
  const full = reduceOutput(raw, { sessionId: "t1", command: "./build.sh", elide: false }).text.split("\n");
  let counted = 0;
  for (const m of r.text.matchAll(/… (\d+) lines hidden \(lines (\d+)-(\d+) of the unfolded view\)/g)) {
    const [n, a, b] = [Number(m[1]), Number(m[2]), Number(m[3])];
    assert.equal(b - a + 1, n);
    assert.ok(full.slice(a - 1, b).every((l) => !errors.includes(l)), "no error line hidden");
    counted += n;
  }
  assert.equal(counted, r.hiddenLines);
  assert.equal(full.length, r.lines + r.hiddenLines - (r.text.match(/lines hidden \(lines/g) ?? []).length);
});

Deno.test("generic fold: an output that is errors end to end still folds (at most 300 lines kept inside)", () => {
  const raw = Array.from({ length: 5000 }, (_, i) => `x.c:${i}:1: error: e${i}`).join("\n");
  const r = reduceOutput(raw, { sessionId: "t1" });
  assert.ok(r.lines <= 30 + 20 + 300 + 2, `${r.lines}`);
  assert.ok(r.hiddenLines > 4000);
});

Deno.test("a semantic reducer that drops an error line gets it back after its view", () => {
  const lines = ["On branch main", "warning: could not open directory 'x/': Permission denied", "nothing to commit"];
  assert.deepEqual(lostErrorLines(lines, ["On branch main"]), [lines[1]]);
  // A merged diagnostic keeps the message: not lost.
  const tsc = [
    "a.ts:1:1 - error TS2322: Type 'x' is not assignable",
    "b.ts:9:9 - error TS2322: Type 'x' is not assignable",
  ];
  assert.deepEqual(lostErrorLines(tsc, ["a.ts:1:1 - error TS2322: Type 'x' is not assignable (×2, also at 9:9)"]), []);
  // pip's reducer keeps ERROR/WARNING lines and the summary; a traceback from the installer itself is neither.
  const raw = [
    "$ pip install -r req.txt",
    "Collecting requests",
    "Requirement already satisfied: idna in ./venv (3.4)",
    "Traceback (most recent call last):",
    '  File "/venv/pip/_internal/cli/base_command.py", line 180, in exc_logging_wrapper',
    "OSError: [Errno 28] No space left on device",
    "$ ",
  ].join("\n");
  const r = reduceOutput(raw, { sessionId: "t1", command: "pip install -r req.txt" });
  assert.equal(r.reducer, "pip-install");
  assert.ok(r.text.includes("Traceback (most recent call last):"), r.text);
  assert.ok(r.text.includes("OSError: [Errno 28] No space left on device"), r.text);
});

// --- item 8: both sides of each assertion ---

Deno.test("condenseBlock keeps a whole assertion diff, context rows included", () => {
  const block = [
    "  AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:",
    "  + actual - expected",
    "",
    "    {",
    "  +   a: 1,",
    "  -   a: 2,",
    "      b: [",
    "        1,",
    "        2,",
    "  +     3",
    "  -     4",
    "      ],",
    "      c: 'x'",
    "    }",
    "      at TestContext.<anonymous> (file:///t.test.mjs:4:32)",
    "      at Test.run (node:internal/test_runner/test:796:25)",
    "    actual: { a: 1, b: [ 1, 2, 3 ], c: 'x' },",
    "    expected: { a: 2, b: [ 1, 2, 4 ], c: 'x' },",
  ];
  const out = condenseBlock(block, 5);
  for (const l of ["  +   a: 1,", "  -   a: 2,", "  +     3", "  -     4"]) assert.ok(out.includes(l), l);
  assert.ok(out.includes("      at TestContext.<anonymous> (file:///t.test.mjs:4:32)"));
  assert.ok(!out.some((l) => /Test\.run/.test(l)), "one frame");
  // The diff shows both sides, so node's actual/expected lines add nothing.
  assert.ok(!out.some((l) => /^\s+(actual|expected):/.test(l)));
});

Deno.test("condenseBlock keeps actual/expected when the message does not show both sides", () => {
  const block = [
    "  AssertionError [ERR_ASSERTION]: The expression evaluated to a falsy value:",
    "",
    "    assert.ok(check(input))",
    "",
    "      at TestContext.<anonymous> (file:///t.test.mjs:9:9)",
    "    actual: false,",
    "    expected: true,",
  ];
  const out = condenseBlock(block, 2);
  assert.ok(out.includes("    actual: false,") && out.includes("    expected: true,"), out.join("\n"));
});

Deno.test("node --test spec: a long string diff keeps its expected side (it was lost after 5 lines)", () => {
  const lines = [
    "✖ strings (0.4ms)",
    "  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
    "  + actual - expected",
    "  ",
    "  + 'hello world\\nsecond line'",
    "  - 'hello there\\nsecond line'",
    "           ^",
    "      at TestContext.<anonymous> (file:///t.test.mjs:5:32)",
    "    generatedMessage: true,",
    "    code: 'ERR_ASSERTION',",
    "    actual: 'hello world\\nsecond line',",
    "    expected: 'hello there\\nsecond line',",
    "    operator: 'strictEqual'",
    "  }",
    "ℹ tests 1",
    "ℹ pass 0",
    "ℹ fail 1",
  ];
  const out = reduceNodeTest(lines) ?? [];
  assert.ok(out.includes("  + 'hello world\\nsecond line'"));
  assert.ok(out.includes("  - 'hello there\\nsecond line'"), out.join("\n"));
});

Deno.test("node --test TAP: both sides of each assertion, one stack frame", () => {
  const lines = [
    "not ok 1 - objects",
    "  ---",
    "  duration_ms: 2.4",
    "  location: '/t.test.mjs:4:1'",
    "  failureType: 'testCodeFailure'",
    "  error: |-",
    "    Expected values to be strictly equal:",
    "    ",
    "    2 !== 3",
    "    ",
    "  code: 'ERR_ASSERTION'",
    "  name: 'AssertionError'",
    "  expected: 3",
    "  actual: 2",
    "  operator: 'strictEqual'",
    "  stack: |-",
    "    TestContext.<anonymous> (file:///t.test.mjs:3:29)",
    "    Test.runInAsyncScope (node:async_hooks:206:9)",
    "  ...",
    "1..1",
    "# tests 1",
    "# pass 0",
    "# fail 1",
  ];
  const out = reduceNodeTest(lines) ?? [];
  assert.ok(out.includes("    2 !== 3"), out.join("\n"));
  assert.ok(out.includes("  at TestContext.<anonymous> (file:///t.test.mjs:3:29)"), out.join("\n"));
  assert.ok(!out.some((l) => /runInAsyncScope|error: \|-|duration_ms/.test(l)), out.join("\n"));
});

Deno.test("grep's matches that read as errors are matches: its reducer keeps its caps", () => {
  const hits = Array.from({ length: 400 }, (_, i) => `src/f${i % 4}.ts:${i + 1}:  throw new Error: bad ${i}`);
  const r = reduceOutput(`$ grep -rn "Error:" src\n${hits.join("\n")}\n$ `, {
    sessionId: "t1",
    command: 'grep -rn "Error:" src',
  });
  assert.equal(r.reducer, "grep");
  assert.ok(r.lines < 80, `${r.lines} lines`);
});

Deno.test("a reducer's view is checked against at most LOST_CHECK_MAX error lines (an error storm stays cheap)", () => {
  const lines = Array.from({ length: 50_000 }, (_, i) => `src/m${i}.c:1:1: error: e${i} in a long message text`);
  // The first 200 are shown; of the first LOST_CHECK_MAX checked, the rest are lost; the other 48,000 are not looked at.
  assert.equal(lostErrorLines(lines, lines.slice(0, 200)).length, LOST_CHECK_MAX - 200);
});
