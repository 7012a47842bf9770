import { assert, assertEquals, assertStringIncludes } from "../tests/helpers/assert.ts";
import { exactTarget, newSessionArgs, parseSessionList, parseTmuxVersion } from "./tmux.ts";
import { segmentIndex, segmentName } from "./output_sink.ts";
import { parseProcStat } from "./process.ts";

Deno.test("parseTmuxVersion() reads release, next- and rc versions", () => {
  assertEquals(parseTmuxVersion("tmux 3.3a"), { raw: "3.3a", major: 3, minor: 3 });
  assertEquals(parseTmuxVersion("tmux next-3.5"), { raw: "next-3.5", major: 3, minor: 5 });
  assertEquals(parseTmuxVersion("tmux 3.2-rc2")?.minor, 2);
  assertEquals(parseTmuxVersion("tmux master"), null);
});

Deno.test("exactTarget() uses tmux's exact-match prefix so t1 never resolves to t10", () => {
  assertEquals(exactTarget("t1"), "=t1:");
});

Deno.test("parseSessionList() keeps the first pane of each session", () => {
  const out =
    "t1\t100\tbash\t0\t200\t50\t1700000000\t0\t/dev/pts/1\nt1\t101\tvim\t0\t200\t50\t1700000000\t0\t/dev/pts/2\n" +
    "h\t102\tsh\t1\t80\t24\t1700000001\t1\t/dev/pts/3\n";
  const rows = parseSessionList(out);
  assertEquals(rows.length, 2);
  assertEquals(rows[0], {
    name: "t1",
    panePid: 100,
    currentCommand: "bash",
    attachedClients: 0,
    width: 200,
    height: 50,
    createdAt: 1700000000,
    paneDead: false,
    tty: "/dev/pts/1",
  });
  assertEquals([rows[1]?.attachedClients, rows[1]?.paneDead], [1, true]);
});

Deno.test("segment names map to indexes and back", () => {
  assertEquals(segmentName(0), "seg.aaaaaa");
  assertEquals(segmentName(27), "seg.aaaabb");
  for (const i of [0, 1, 25, 26, 675, 12345]) assertEquals(segmentIndex(segmentName(i)), i);
  assertEquals(segmentIndex("seg.aaaaa"), null);
  assertEquals(segmentIndex("other"), null);
});

Deno.test("parseProcStat() handles a comm with spaces and parentheses", () => {
  const s = parseProcStat("123 (my (odd) prog) S 1 123 123 34816 123 4194560 0 0 0 0 7 3 0 0 20 0 1 0 98765 0 0");
  assertEquals([s?.comm, s?.state, s?.ppid, s?.tpgid, s?.utime, s?.stime, s?.starttime], [
    "my (odd) prog",
    "S",
    1,
    123,
    7,
    3,
    "98765",
  ]);
});

Deno.test("newSessionArgs() uses -e on tmux 3.2+ and injects + registers the environment on older tmux", () => {
  const spec = {
    name: "t1",
    cwd: "/w",
    argv: ["/bin/bash", "-i"],
    env: { AITERM_SESSION_ID: "t1", FOO: "a b" },
    width: 200,
    height: 50,
    outputSink: "exec cat > /x",
  };
  assertEquals(newSessionArgs(spec, { major: 3, minor: 3 }), [
    "new-session",
    "-d",
    "-s",
    "t1",
    "-x",
    "200",
    "-y",
    "50",
    "-c",
    "/w",
    "-e",
    "AITERM_SESSION_ID=t1",
    "-e",
    "FOO=a b",
    "--",
    "/bin/bash",
    "-i",
    ";",
    "set-option",
    "-t",
    "=t1:",
    "history-limit",
    "50000",
    ";",
    "pipe-pane",
    "-t",
    "=t1:",
    "exec cat > /x",
  ]);
  const old = newSessionArgs({ ...spec, keepOnExit: true }, { major: 3, minor: 1 });
  assertEquals(old.slice(0, 16), [
    "new-session",
    "-d",
    "-s",
    "t1",
    "-x",
    "200",
    "-y",
    "50",
    "-c",
    "/w",
    "--",
    "env",
    "AITERM_SESSION_ID=t1",
    "FOO=a b",
    "/bin/bash",
    "-i",
  ]);
  assert(!old.includes("-e"), "old tmux has no new-session -e");
  const rest = old.slice(16).join(" ");
  assertStringIncludes(rest, "set-option -w -t =t1: remain-on-exit on");
  assertStringIncludes(rest, "set-environment -t =t1: AITERM_SESSION_ID t1 ; set-environment -t =t1: FOO a b");
  assert(rest.endsWith("pipe-pane -t =t1: exec cat > /x"), "the pipe must be attached in the same command list");
  assertEquals(newSessionArgs({ ...spec, env: {} }, { major: 2, minor: 6 }).slice(10, 13), ["--", "/bin/bash", "-i"]);
});
