/**
 * Integration tier for the terminal service (lib/terminal/terminal.ts, read.ts, completion.ts,
 * send_lock.ts, observe.ts): built in-process on real tmux (tests/integration/kit.ts), no MCP server.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux } from "../../devkit/env.ts";
import { INPUT_LIMIT_BYTES } from "../../lib/terminal/mod.ts";
import { AppError } from "../../base/errors.ts";
import { service, serviceEnv, watchedService } from "./kit.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  return "no error";
}

Deno.test(
  "terminal: a command's output and exit status are read back, decided by the shell's own end mark",
  opts,
  async () => {
    await using e = await serviceEnv();
    const term = e.svc.terminal;
    const opened = await term.open({ name: "i1", shell: "bash" });
    assertEquals(opened.session_id, "i1");
    const sent = await term.send({ session_id: "i1", text: "echo int-$((6*7))\n" });
    assertEquals(sent.mode, "typed");
    const read = await term.read({ session_id: "i1", wait: true, timeout: 10 });
    assertEquals(read.is_complete, true);
    assertEquals(read.exit_status, 0);
    assertStringIncludes(read.text, "int-42");
    assert(read.via === "shell_integration" || read.via === "sentinel", `via ${read.via}`);

    await term.send({ session_id: "i1", text: "(exit 3)\n" });
    const failed = await term.read({ session_id: "i1", wait: true, timeout: 10 });
    assertEquals(failed.exit_status, 3);
  },
);

Deno.test("terminal: a wait with nothing to end it is a timeout, never rounded up to done", opts, async () => {
  await using e = await serviceEnv();
  const term = e.svc.terminal;
  await term.open({ name: "i2", shell: "bash" });
  await term.send({ session_id: "i2", text: "sleep 30\n" });
  const read = await term.read({ session_id: "i2", wait: true, timeout: 1 });
  assertEquals(read.is_complete, false);
  assertEquals(read.via, "timeout");
  const key = await term.key("i2", "C-c");
  assertEquals(key.key, "C-c");
  const after = await term.read({ session_id: "i2", wait: true, timeout: 10 });
  assertEquals(after.exit_status, 130);
});

Deno.test(
  "terminal: two services on one state root (two aiterm processes) sending at once: each send arrives whole",
  opts,
  async () => {
    await using e = await serviceEnv();
    await using other = service(e.t);
    await e.svc.terminal.open({ name: "i3", shell: "bash" });
    await e.svc.terminal.read({ session_id: "i3", wait: true, timeout: 10 });
    // Each line is long enough to take several paste chunks; a cat writes what it receives to a file.
    const file = `${e.t.root}/got.txt`;
    await e.svc.terminal.send({ session_id: "i3", text: `stty -echo; cat > ${file}\n` });
    await new Promise((r) => setTimeout(r, 300));
    // 24 lines of 399 characters each (canonical mode takes lines under 4096): several paste chunks per send.
    const block = (c: string) =>
      Array.from({ length: 24 }, (_, i) => `${c}${String(i).padStart(2, "0")}${c.repeat(396)}`);
    await Promise.all([
      e.svc.terminal.send({ session_id: "i3", text: block("A").join("\n") + "\n", raw: true }),
      other.terminal.send({ session_id: "i3", text: block("B").join("\n") + "\n", raw: true }),
    ]);
    await e.svc.terminal.key("i3", "C-d");
    let got: string[] = [];
    for (let i = 0; i < 100 && got.length < 48; i++) {
      got = (await Deno.readTextFile(file).catch(() => "")).split("\n").filter(Boolean);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Whichever went first, each send's lines arrive whole and together.
    const aFirst = got[0]?.startsWith("A");
    assertEquals(got, aFirst ? [...block("A"), ...block("B")] : [...block("B"), ...block("A")]);
  },
);

Deno.test(
  "terminal: oversized and unknown-session sends are refused with their codes and type nothing",
  opts,
  async () => {
    await using e = await serviceEnv();
    const term = e.svc.terminal;
    await term.open({ name: "i4", shell: "bash" });
    await term.read({ session_id: "i4", wait: true, timeout: 10 });
    const before = await term.screen("i4");
    assertEquals(
      await codeOf(term.send({ session_id: "i4", text: "x".repeat(INPUT_LIMIT_BYTES + 1) })),
      "INPUT_TOO_LARGE",
    );
    assertEquals(await codeOf(term.send({ session_id: "nope", text: "echo\n" })), "SESSION_NOT_FOUND");
    assertEquals(await term.screen("i4"), before);
  },
);

Deno.test("terminal: observe says what the pane runs; close ends it once, then reads say so", opts, async () => {
  await using e = await serviceEnv();
  const term = e.svc.terminal;
  await term.open({ name: "i5", shell: "bash" });
  await term.read({ session_id: "i5", wait: true, timeout: 10 });
  const idle = await term.observe("i5");
  assertEquals([idle.exists, idle.pane_alive, idle.foreground?.is_shell], [true, true, true]);
  await term.send({ session_id: "i5", text: "sleep 20\n" });
  // The shell starts sleep a moment after the send: observe until it holds the terminal.
  const busy = await eventually(
    async () => {
      const o = await term.observe("i5");
      return o.foreground?.is_shell === false ? o : null;
    },
    10_000,
    "sleep in the foreground",
  );
  assertEquals(busy.exists, true);
  await term.key("i5", "C-c");
  assertEquals((await term.close("i5")).outcome, "closed");
  assertEquals((await term.close("i5")).outcome, "already_closed");
  assertEquals(await codeOf(term.observe("never-made")), "SESSION_NOT_FOUND");
  const rows = await term.list();
  assert(!rows.some((r) => r.session_id === "i5" && r.state === "running"), JSON.stringify(rows));
});

Deno.test(
  "terminal: a line typed right after a line that starts a program reaches that program (send, or text and pty_key Enter)",
  opts,
  async () => {
    await using e = await serviceEnv();
    const term = e.svc.terminal;
    // Ten rounds of each: the second text is typed as soon as the first call returns, while bash may still be taking
    // the first line (./lib/terminal/send/type_ahead.ts). tmux resumes a stopped pane process at once, so the window
    // cannot be held open from here; under load it was hit 1 round in 25 to 40 before the guard.
    for (let i = 0; i < 20; i++) {
      const id = `r${i}`;
      await term.open({ name: id, shell: "bash" });
      await term.read({ session_id: id, wait: true, timeout: 10 });
      if (i % 2 === 0) await term.send({ session_id: id, text: "sh" });
      else {
        await term.send({ session_id: id, text: "sh", enter: false });
        await term.key(id, "Enter");
      }
      await term.send({ session_id: id, text: `echo nested-$((${i}*7))`, mark: "posix" });
      const n = await term.read({ session_id: id, wait: true, timeout: 10 });
      assertEquals([n.via, n.exit_status], ["sentinel", 0], `round ${i}`);
      assertStringIncludes(n.text, `nested-${i * 7}`);
      await term.close(id);
    }
  },
);

Deno.test(
  "terminal: a session another process closed and opened again under the same name: the next send uses the new one",
  opts,
  async () => {
    await using e = await serviceEnv();
    await using other = service(e.t);
    const term = e.svc.terminal;
    await term.open({ name: "i9", shell: "bash" });
    await term.read({ session_id: "i9", wait: true, timeout: 10 });
    // Two sends: the second is planned from what the first remembered of the pane.
    for (const word of ["one", "two"]) {
      await term.send({ session_id: "i9", text: `echo first-${word}` });
      const r = await term.read({ session_id: "i9", wait: true, timeout: 10 });
      assertEquals(r.exit_status, 0);
    }
    // Another aiterm process replaces the session: a new shell (sh, no shell integration), new meta, new log.
    await other.terminal.close("i9");
    const reopened = await other.terminal.open({ name: "i9", shell: "sh" });
    assertEquals(reopened.session_id, "i9");
    const sent = await term.send({ session_id: "i9", text: "echo second-life", mark: true });
    assertEquals(sent.marked, true);
    const r = await term.read({ session_id: "i9", wait: true, timeout: 10 });
    assertEquals(r.is_complete, true);
    assertEquals(r.via, "sentinel", "sh has no shell integration: the new meta says so");
    assertStringIncludes(r.text, "second-life");
    assert(!r.text.includes("first-"), "the old session's output is not in the new log");
  },
);

Deno.test(
  "terminal: a shell session another process replaced with a program's under the same name: a send only for shells types nothing",
  opts,
  async () => {
    await using e = await serviceEnv();
    await using other = service(e.t);
    const term = e.svc.terminal;
    assertEquals(term.remembersShell("i10"), false);
    await term.open({ name: "i10", shell: "bash" });
    await term.send({ session_id: "i10", text: "true" });
    await term.read({ session_id: "i10", wait: true, timeout: 10 });
    assertEquals(term.remembersShell("i10"), true, "remembered from the send");
    assertEquals((await term.sendIfShell({ session_id: "i10", text: "true" }))?.session_id, "i10");
    await term.read({ session_id: "i10", wait: true, timeout: 10 });
    // Another aiterm process closes it and opens a program (as agent_launch does) under the same name.
    await other.terminal.close("i10");
    await other.terminal.openProgram({
      name: "i10",
      cwd: e.t.root,
      build: () => ({ argv: ["cat"], env: {} }),
    });
    assertEquals(await term.sendIfShell({ session_id: "i10", text: "not-for-a-program" }), null);
    assertEquals(term.remembersShell("i10"), false);
    await new Promise((r) => setTimeout(r, 200));
    const screen = await term.read({ session_id: "i10", screen: true });
    assert(!screen.text.includes("not-for-a-program"), `typed into the program: ${screen.text}`);
    // A plain send (what pty_send does once it found no agent record), the send goes through.
    await term.send({ session_id: "i10", text: "for-cat" });
    await eventually(
      async () => (await term.read({ session_id: "i10", screen: true })).text.includes("for-cat"),
      10_000,
      "cat echoes the line",
    );
  },
);

Deno.test(
  "terminal: a waiting read whose first look at the log decides asks tmux nothing; one that waits asks",
  opts,
  async () => {
    await using e = await serviceEnv();
    // Counts the pane look-ups a read makes of the multiplexer (the batched ones a wait uses, and the direct one).
    let asked = 0;
    await using svc = watchedService(e.t, (mux) => {
      const direct = mux.paneInfo.bind(mux);
      mux.paneInfo = (id: string) => (asked++, direct(id));
      const listed = mux.listSessions.bind(mux);
      mux.listSessions = () => (asked++, listed());
    });
    const term = svc.terminal;
    await term.open({ name: "i11", shell: "bash" });
    await term.read({ session_id: "i11", wait: true, timeout: 10 });
    // Ended before the read: its end mark is in the log.
    await term.send({ session_id: "i11", text: "echo quick-$((2+3))" });
    await eventually(
      async () => (await term.read({ session_id: "i11", cursor: 0 })).text.includes("quick-5"),
      10_000,
      "the command to end",
    );
    await new Promise((r) => setTimeout(r, 300));
    asked = 0;
    const r = await term.read({ session_id: "i11", wait: true, timeout: 10 });
    assertEquals([r.is_complete, r.via, r.exit_status, r.state], [true, "shell_integration", 0, "running"]);
    assertEquals(asked, 0, "decided from the log alone");
    // Still running when the read starts: the wait looks at the pane (and the log writer) while it waits.
    await term.send({ session_id: "i11", text: "sleep 0.4; echo slow-$((3+4))" });
    const w = await term.read({ session_id: "i11", wait: true, timeout: 10 });
    assertEquals([w.is_complete, w.via, w.exit_status], [true, "shell_integration", 0]);
    assertStringIncludes(w.text, "slow-7");
    assert(asked > 0, "a wait that did not decide at once asked for the pane");
  },
);
