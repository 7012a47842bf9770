/**
 * The foreground of a terminal without /proc, from canned `ps -t <tty> -o pid=,pgid=,tpgid=,stat=,wchan=,comm=`
 * outputs in the shapes macOS and FreeBSD print (no Mac or BSD machine runs these tests: the rows are written out
 * here in those formats; macOS's kernel reports no wait channel, so its ps prints `-` in that column for every
 * process, see ps_foreground.ts). The terminal-mode half of the path is below and in input_prompt_test.ts, the name-guess half in lib/terminal/foreground_test.ts.
 */
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { classifyPsForeground, parsePsRows, PS_FOREGROUND_COLUMNS } from "./ps_foreground.ts";
import { classifyInputPrompt } from "./input_prompt.ts";
import { foregroundFromPs } from "./process.ts";
import { parseSttyModes, sttyArgs } from "./terminal_modes.ts";

const verdict = (text: string) => classifyPsForeground(parsePsRows(text));

Deno.test("ps columns: one call names the group, its states and wait channels", () => {
  assertEquals([...PS_FOREGROUND_COLUMNS], ["-o", "pid=,pgid=,tpgid=,stat=,wchan=,comm="]);
});

Deno.test("parsePsRows: padded columns, full paths, a login shell's dash, spaces in the name", () => {
  const rows = parsePsRows(
    [
      "  812   812  1200 Ss     -      -zsh",
      " 1200  1200  1200 S+     -      /usr/bin/ssh",
      " 1301  1200  1200 S+     -      /Applications/My Tool.app/Contents/MacOS/my tool",
      "garbage line",
      "",
    ].join("\n"),
  );
  assertEquals(rows.map((r) => [r.pid, r.pgid, r.tpgid, r.stat, r.wchan, r.name]), [
    [812, 812, 1200, "Ss", "-", "zsh"],
    [1200, 1200, 1200, "S+", "-", "ssh"],
    [1301, 1200, 1200, "S+", "-", "my tool"],
  ]);
});

Deno.test("macOS (no wait channel): sleeping is 'cannot tell', running or stopped is 'not waiting'", () => {
  // ssh at its password prompt, and ssh while sshd delays its answer: the same rows on macOS.
  const ssh = verdict("  812   812  1200 Ss     -      -zsh\n 1200  1200  1200 S+     -      /usr/bin/ssh\n");
  assertEquals([ssh?.leader.name, ssh?.pgrp, ssh?.verdict.waiting], ["ssh", 1200, null]);
  assert(ssh?.verdict.processes[0]?.detail.includes("no wait channel"), JSON.stringify(ssh));
  // The shell's own group is not the foreground one: only the ssh group is looked at.
  assertEquals(ssh?.verdict.processes.map((p) => p.name), ["ssh"]);
  // python3 -m http.server: also sleeping, also "cannot tell" from ps (the terminal modes then decide).
  assertEquals(verdict(" 900   900   900 S+     -      /usr/bin/python3\n")?.verdict.waiting, null);
  // A build at work.
  const busy = " 812 812 950 Ss - -zsh\n 950 950 950 S+ - make\n 951 950 950 R+ - /usr/bin/cc\n";
  assertEquals(verdict(busy)?.verdict.waiting, false);
  // C-z'd.
  const stopped = verdict(" 812 812 960 Ss - -zsh\n 960 960 960 T+ - vim\n");
  assertEquals(stopped?.verdict.waiting, false);
  assertEquals(stopped?.verdict.processes[0]?.activity, "stopped");
  // Nothing in the foreground group (the rows of another terminal, or a group that just ended): no answer.
  assertEquals(verdict(" 812 812 970 Ss - -zsh\n"), null);
  assertEquals(verdict(""), null);
});

Deno.test("BSD wait channels: ttyin is a terminal read; select/poll/kqread cannot tell; others are not input", () => {
  const at = (wchan: string, stat = "S+") => verdict(` 500 500 600 Ss wait -sh\n 600 600 600 ${stat} ${wchan} prog\n`);
  assertEquals(at("ttyin")?.verdict.waiting, true);
  assertEquals(at("ttyin")?.verdict.processes[0]?.detail, "read on the terminal (ps wait channel ttyin)");
  for (const w of ["select", "poll", "kqread"]) assertEquals(at(w)?.verdict.waiting, null, w);
  for (const w of ["nanslp", "piperd", "sbwait", "pause", "sigwait", "uwait"]) {
    assertEquals(at(w)?.verdict.waiting, false, w);
  }
  assertEquals(at("ttyout")?.verdict.waiting, false, "blocked writing to the terminal");
  assertEquals(at("ttyin", "R+")?.verdict.waiting, false, "runnable wins over a stale channel");
  assertEquals(at("ttyin", "I+")?.verdict.waiting, true, "idle (asleep over 20 s) still reads");
  // A pipeline: the parent waits for its child, the child reads the terminal.
  const pipe = verdict(" 700 700 700 S+ wait sh\n 701 700 700 S+ ttyin cat\n 702 700 700 S+ piperd wc\n");
  assertEquals([pipe?.leader.name, pipe?.verdict.waiting], ["sh", true]);
  // One member running makes the group busy, whatever the others wait on.
  assertEquals(verdict(" 700 700 700 S+ ttyin cat\n 701 700 700 R+ - yes\n")?.verdict.waiting, false);
});

Deno.test("the macOS path to a password prompt: ps cannot tell, stty -f shows line mode without echo", () => {
  const ssh = verdict("  812   812  1200 Ss     -      -zsh\n 1200  1200  1200 S+     -      /usr/bin/ssh\n")!;
  const bsdStty = (lflags: string) =>
    parseSttyModes(
      `speed 38400 baud; 50 rows; 200 columns;\nlflags: ${lflags}\n\t-echoprt -altwerase -noflsh -tostop -flusho\n` +
        "iflags: -istrip icrnl -inlcr -igncr ixon -ixoff ixany imaxbel iutf8\noflags: opost onlcr -oxtabs\n",
    );
  const facts = { waiting: ssh.verdict.waiting, atShell: false, name: "ssh", integrated: true, lastMark: null };
  // readpassphrase: canonical, echo off.
  assertEquals(
    classifyInputPrompt({ ...facts, modes: bsdStty("icanon isig iexten -echo echoe -echok echoke") }),
    "password",
  );
  // While sshd delays its answer ssh has turned echo back on: no prompt.
  assertEquals(classifyInputPrompt({ ...facts, modes: bsdStty("icanon isig iexten echo echoe -echok echoke") }), null);
  // Logged in: ssh's session has the terminal raw.
  assertEquals(classifyInputPrompt({ ...facts, modes: bsdStty("-icanon -isig -iexten -echo echoe") }), null);
});

Deno.test("stty names the device with -F (GNU, Linux) and -f (macOS, BSD)", () => {
  assertEquals(sttyArgs("linux", "/dev/pts/3"), ["-F", "/dev/pts/3", "-a"]);
  assertEquals(sttyArgs("darwin", "/dev/ttys003"), ["-f", "/dev/ttys003", "-a"]);
  assertEquals(sttyArgs("freebsd", "/dev/pts/1"), ["-f", "/dev/pts/1", "-a"]);
});

Deno.test("foregroundFromPs: the leader, its group, stopped, and the verdict a wait uses", () => {
  const ssh = foregroundFromPs("  812   812  1200 Ss     -      -zsh\n 1200  1200  1200 S+     -      /usr/bin/ssh\n");
  assertEquals(
    ssh && [ssh.pid, ssh.name, ssh.pgrp, ssh.readingInput, ssh.stopped, ssh.inputWait?.processes.length],
    [1200, "ssh", 1200, null, false, 1],
  );
  const vim = foregroundFromPs(" 812 812 960 Ss - -zsh\n 960 960 960 T+ - /usr/bin/vim\n");
  assertEquals(vim && [vim.name, vim.stopped, vim.readingInput], ["vim", true, false]);
  const cat = foregroundFromPs(" 700 700 700 S+ wait sh\n 701 700 700 S+ ttyin cat\n");
  assertEquals(cat && [cat.pid, cat.name, cat.readingInput], [700, "sh", true]);
  assertEquals(foregroundFromPs(""), null);
});
