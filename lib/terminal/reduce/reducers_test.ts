import assert from "node:assert/strict";
import { isPromptLine, reduceOutput, stripEchoAndPrompts } from "./mod.ts";
import { reduceGitLog } from "./git.ts";
import { reduceGrep } from "./grep.ts";
import { reduceGcc, reduceTsc } from "./builds.ts";

Deno.test("prompt-only lines are recognised; output lines are not", () => {
  for (
    const p of ["user@host:~/x$", "root@box:/srv#", "bash-5.2#", "%", ">", "$", "(venv) me@mac ~ %", "[me@host dir]$"]
  ) {
    assert.ok(isPromptLine(p), p);
  }
  for (const o of ["value > 3", "a$", "total 12", "echo $HOME", "-> done"]) assert.ok(!isPromptLine(o), o);
});

Deno.test("stripEchoAndPrompts drops the echoed command and trailing prompts only", () => {
  const lines = ["user@host:~/x$ make", "cc -c a.c", "user@host:~/x$", "bash-5.2#", ""];
  assert.deepEqual(stripEchoAndPrompts(lines, "make"), ["cc -c a.c"]);
  // The command text is searched only in the first 3 non-blank lines.
  assert.deepEqual(stripEchoAndPrompts(["a", "b", "c", "x make"], "make"), ["a", "b", "c", "x make"]);
});

Deno.test("a reducer that does not recognise the output falls back to generic", () => {
  const r = reduceOutput("$ pytest\nbash: pytest: command not found\n$ ", { sessionId: "t1", command: "pytest" });
  assert.equal(r.reducer, "generic");
  assert.equal(r.text, "bash: pytest: command not found");
});

Deno.test("a reducer output larger than the generic one is not used", () => {
  // A one-line git log in medium format: the reducer adds a footer line, so generic wins.
  const raw = "commit 0123456789abcdef0123456789abcdef01234567\n";
  const r = reduceOutput(raw, { sessionId: "t1", command: "git log" });
  assert.equal(r.reducer, "generic");
});

Deno.test("git log becomes one line per commit", () => {
  const out = reduceGitLog([
    "commit 0123456789abcdef0123456789abcdef01234567 (HEAD -> main, origin/main)",
    "Author: Ann <ann@x.org>",
    "Date:   Tue Mar 5 09:00:00 2024 +0100",
    "",
    "    Fix the parser",
    "",
    "    Body text.",
  ]);
  assert.deepEqual(out, [
    "0123456 2024-03-05 Ann: Fix the parser (HEAD -> main, origin/main)",
    "(1 commit; `git show <hash>` for details)",
  ]);
});

Deno.test("grep groups by file with a per-file cap and drop counts", () => {
  const lines = Array.from({ length: 12 }, (_, i) => `src/a.ts:${i + 1}:hit ${i}`).concat(["src/b.ts:3:other"]);
  const out = reduceGrep(lines) ?? [];
  assert.equal(out[0], "13 matches in 2 files");
  assert.ok(out.includes("src/a.ts (12 matches)"));
  assert.ok(out.some((l) => /… \+\d+ more in this file/.test(l)));
  assert.equal(reduceGrep(["just some text", "without file names"]), null);
});

Deno.test("gcc merges repeated messages and keeps make and linker errors", () => {
  const out = reduceGcc([
    "a.c:3:5: error: 'x' undeclared",
    "    3 |   x = 1;",
    "      |   ^",
    "a.c:9:5: error: 'x' undeclared",
    "/usr/bin/ld: main.o: in function `main': undefined reference to `foo'",
    "collect2: error: ld returned 1 exit status",
    "make: *** [Makefile:3: app] Error 1",
  ]) ?? [];
  assert.ok(out.includes("a.c:3:5: error: 'x' undeclared (×2, also at 9:5)"));
  assert.ok(out.some((l) => l.includes("undefined reference to `foo'")));
  assert.ok(out.includes("make: *** [Makefile:3: app] Error 1"));
  assert.equal(reduceGcc(["all fine"]), null);
});

Deno.test("tsc keeps non-pretty diagnostics and the Found line", () => {
  const out = reduceTsc([
    "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    "Found 1 error in src/a.ts:3",
  ]);
  assert.deepEqual(out, [
    "src/a.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.",
    "",
    "Found 1 error in src/a.ts:3",
  ]);
});
