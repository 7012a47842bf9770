/** UntilWatch over a real segment file: lines, the echo line, control sequences, the line being written. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { segmentName } from "../../platform/mod.ts";
import { compileUntil } from "./linear_regex.ts";
import { UntilWatch } from "./until.ts";

const SEG = 1 << 20;

async function withLog(fn: (append: (s: string) => Promise<void>, dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/${segmentName(0)}`;
    await Deno.writeFile(file, new Uint8Array(0));
    await fn((s) => Deno.writeTextFile(file, s, { append: true }), dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const far = () => performance.now() + 60_000;

Deno.test("the echo line is skipped; a match may span writes, escape sequences and CRLF", async () => {
  await withLog(async (append, dir) => {
    const w = new UntilWatch(compileUntil("^ready: \\d+ ok$", true), 0, true);
    await append("echo ready: 42 ok"); // the echoed command line contains the text: not output
    assertEquals(await w.check(dir, SEG, far()), false);
    await append("\r\nread");
    assertEquals(await w.check(dir, SEG, far()), false);
    await append("y: \x1b[32m4");
    assertEquals(await w.check(dir, SEG, far()), false);
    await append("2\x1b[0m ok\r\n");
    assertEquals(await w.check(dir, SEG, far()), true);
  });
});

Deno.test("$ matches the end of a line still being written; a rewritten line counts as shown", async () => {
  await withLog(async (append, dir) => {
    const w = new UntilWatch(compileUntil("password:$", true), 0, false);
    await append("progress 10%\rprogress 99%\rdone\n");
    const p = new UntilWatch(compileUntil("^progress 10%", true), 0, false);
    assertEquals(await p.check(dir, SEG, far()), false, "overwritten by \\r: not what the terminal shows");
    assertEquals(await w.check(dir, SEG, far()), false);
    await append("password:");
    assertEquals(await w.check(dir, SEG, far()), true);
  });
});

Deno.test("a literal until is found once, in new output only, and old output before `from` is ignored", async () => {
  await withLog(async (append, dir) => {
    await append("old MARK here\n");
    const from = new TextEncoder().encode("old MARK here\n").length;
    const w = new UntilWatch(compileUntil("MARK", false), from, false);
    assertEquals(await w.check(dir, SEG, far()), false);
    await append("x".repeat(300_000) + "\nnew MA");
    assertEquals(await w.check(dir, SEG, far()), false);
    await append("RK\n");
    assertEquals(await w.check(dir, SEG, far()), true);
  });
});

Deno.test("a deadline already past leaves the rest unexamined and says so", async () => {
  await withLog(async (append, dir) => {
    await append("a".repeat(100) + "\n" + "b ".repeat(400_000) + "\n");
    const w = new UntilWatch(compileUntil("[^!]{1,2000}!", true), 0, false);
    assertEquals(await w.check(dir, SEG, performance.now() - 1), false);
    assert(!w.caughtUp && w.behind > 0, `behind ${w.behind}`);
    const e = w.timeoutError(1000);
    assertEquals(e.code, "REGEX_TIMEOUT");
    assert(!e.message.includes("[^!]"), "the pattern is not echoed");
  });
});

Deno.test("trailing spaces are matched as printed: a prompt's space is real (issue 15 item 2)", async () => {
  await withLog(async (append, dir) => {
    // Bytes as measured in the log: python3 3.11 after `1+1`, bash `read -s -p "Password: "`, node 20.
    const py = new UntilWatch(compileUntil(">>> ", false), 0, false);
    const pyRegex = new UntilWatch(compileUntil(">>> $", true), 0, false);
    const pw = new UntilWatch(compileUntil("Password: ", false), 0, false);
    const node = new UntilWatch(compileUntil("^> $", true), 0, false);
    await append("2\r\n>>>");
    assertEquals(await py.check(dir, SEG, far()), false, "no space printed yet");
    assertEquals(await pyRegex.check(dir, SEG, far()), false);
    await append(" ");
    assertEquals(await py.check(dir, SEG, far()), true);
    assertEquals(await pyRegex.check(dir, SEG, far()), true);
    await append("\r\n\x1b[?2004l\rPassword:");
    assertEquals(await pw.check(dir, SEG, far()), false);
    await append(" ");
    assertEquals(await pw.check(dir, SEG, far()), true);
    await append("\r\n\x1b[1G\x1b[0J> \x1b[3G");
    assertEquals(await node.check(dir, SEG, far()), true, "CHA and erase sequences around node's prompt");
  });
});

Deno.test("`x$` no longer matches `x ` (spaces kept), and a line editor's erased cell is not a space", async () => {
  await withLog(async (append, dir) => {
    const strict = new UntilWatch(compileUntil("done$", true), 0, false);
    const erased = new UntilWatch(compileUntil("^ab$", true), 0, false);
    await append("done  \n");
    assertEquals(await strict.check(dir, SEG, far()), false, "the line printed two spaces after done");
    await append("abc\b \b\n");
    assertEquals(await erased.check(dir, SEG, far()), true, "abc, backspace, space, backspace shows ab");
  });
});
