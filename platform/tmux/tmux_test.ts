import { assert, assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import { exactTarget, newSessionArgs, parseTmuxVersion } from "./tmux.ts";
import { parseSessionList } from "../pane_lists.ts";
import { segmentIndex, segmentName } from "../output_sink.ts";
import { parseProcStat } from "../process.ts";
import { LAUNCHER_SCRIPT, LAUNCHER_STAGE_TWO } from "../pane_launch.ts";

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

Deno.test("parseSessionList() reads alternate_on; an empty pipe column (psmux) is not a pipe verdict", () => {
  const tmux =
    "t1\t100\tvim\t0\t200\t50\t1700000000\t0\t/dev/pts/1\t1\t1\nt2\t101\tbash\t0\t80\t24\t1\t0\t/dev/pts/2\t1\t0\n";
  const [vim, sh] = parseSessionList(tmux);
  assertEquals([vim?.alternateOn, vim?.piped, sh?.alternateOn], [true, true, false]);
  const psmux = "p\t7\tless\t0\t80\t24\t1\t0\t/dev/pty1\t\t1\n";
  const [p] = parseSessionList(psmux);
  assertEquals([p?.alternateOn, "piped" in (p ?? {})], [true, false]);
});

Deno.test("segment names map to indexes and back", () => {
  assertEquals(segmentName(0), "seg.aaaaaa");
  assertEquals(segmentName(27), "seg.aaaabb");
  for (const i of [0, 1, 25, 26, 675, 12345]) assertEquals(segmentIndex(segmentName(i)), i);
  assertEquals(segmentIndex("seg.aaaaa"), null);
  assertEquals(segmentIndex("other"), null);
});

Deno.test("parseProcStat() handles a comm with spaces and parentheses", () => {
  const s = parseProcStat("123 (my (odd) prog) S 1 123 123 34816 123 4194560 0 0 0 0 7 3 0 0 20 0 4 0 98765 0 0");
  assertEquals([s?.comm, s?.state, s?.ppid, s?.tpgid, s?.utime, s?.stime, s?.starttime, s?.threads], [
    "my (odd) prog",
    "S",
    1,
    123,
    7,
    3,
    "98765",
    4,
  ]);
});

Deno.test("newSessionArgs(): env only through the launcher's file, the cwd a plain launcher argument", () => {
  const spec = {
    name: "t1",
    cwd: "/w/x#{session_name};",
    argv: ["/bin/bash", "--rcfile", "/s;/bashrc;", "-i"],
    baseEnv: { PATH: "/usr/bin", BASE_SECRET: "base secret" },
    env: { AITERM_SESSION_ID: "t1", FOO: "secret value;" },
    privateDir: "/s/sessions/t1",
    width: 200,
    height: 50,
    outputSink: "exec cat > '/x #%d'",
  };
  const args = newSessionArgs(spec, "/s/sessions/t1/launch-env.abc", { major: 3, minor: 3 });
  assertEquals(args, [
    "new-session",
    "-d",
    "-s",
    "t1",
    "-x",
    "200",
    "-y",
    "50",
    "-c",
    "/",
    "--",
    "/bin/sh",
    "-c",
    LAUNCHER_SCRIPT,
    "aiterm-launch",
    "/s/sessions/t1/launch-env.abc",
    "/w/x#{session_name}\\;",
    LAUNCHER_STAGE_TWO,
    "/bin/bash",
    "--rcfile",
    "/s;/bashrc\\;",
    "-i",
    ";",
    "set-option",
    "-t",
    "=t1:",
    "history-limit",
    "50000",
    ";",
    "set-option",
    "-s",
    "exit-empty",
    "off",
    ";",
    "pipe-pane",
    "-t",
    "=t1:",
    "exec cat > '/x ##%%d'",
    ";",
    "display-message",
    "-p",
    "#{pid}",
  ]);
  assert(!args.join(" ").includes("secret value"), "an env value is in the argv");
  assert(!args.join(" ").includes("base secret"), "a value of the opener's environment is in the argv");
  assert(!args.includes("-e"), "no new-session -e");
  const old = newSessionArgs({ ...spec, keepOnExit: true }, "/f", { major: 2, minor: 6 }).join(" ");
  assertStringIncludes(old, "set-option -w -t =t1: remain-on-exit on");
  assert(!old.includes("exit-empty"), "tmux 2.6 has no exit-empty");
  assert(!old.includes("set-environment") && !old.includes(" env "), "no value through tmux on old tmux either");
});
