/** Every PTY tool through the real MCP client over stdio, on real tmux with a private socket. */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };

async function fileText(path: string): Promise<string | null> {
  return await Deno.readTextFile(path).catch(() => null);
}

Deno.test("tools/list offers every tool with described input and output schemas", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { tools } = await c.client.listTools();
  const names = tools.map((x) => x.name).sort();
  for (const want of ["diagnostics", "pty_close", "pty_key", "pty_list", "pty_open", "pty_send"]) {
    assert(names.includes(want), `missing ${want}`);
  }
  for (const tool of tools) {
    assert(tool.description && tool.description.length > 20, `${tool.name} has no description`);
    const props = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
    for (const [field, schema] of Object.entries(props)) {
      assert(schema.description, `${tool.name}.${field} has no description`);
    }
    assert(tool.outputSchema, `${tool.name} has no output schema`);
  }
});

Deno.test(
  "pty_open names sessions t1, t2, refuses a taken or malformed name, and injects AITERM_SESSION_ID",
  opts,
  async () => {
    await using t = await makeTestEnv({ AITERM_TEST_SECRET: "s3cr3t-value" });
    await using c = await connect(t.env);
    const a = await c.ok<{ session_id: string; attach_command: string }>("pty_open", { cwd: t.root });
    const b = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
    assertEquals([a.session_id, b.session_id], ["t1", "t2"]);
    assertStringIncludes(a.attach_command, t.socketPath);
    assertStringIncludes(a.attach_command, "attach");
    const named = await c.ok<{ session_id: string; env_vars: string[] }>("pty_open", {
      name: "work_1",
      cwd: t.root,
      env_vars: ["AITERM_TEST_SECRET"],
    });
    assertEquals(named.session_id, "work_1");
    assert(!JSON.stringify(named).includes("s3cr3t-value"), "an env value leaked into the receipt");
    const dup = await c.err("pty_open", { name: "work_1" });
    assertEquals(dup.code, "SESSION_EXISTS");
    assertMatch(dup.text, /^SESSION_EXISTS: /);
    assertEquals((await c.err("pty_open", { name: "bad name!" })).code, "INVALID_ARGUMENT");
    assertEquals((await c.err("pty_open", { cwd: "relative/dir" })).code, "INVALID_ARGUMENT");
    assertEquals((await c.err("pty_open", { cwd: `${t.root}/missing` })).code, "CWD_NOT_FOUND");
    // A name the server does not have is skipped and reported, not an error (issue 15 item 9).
    const skipped = await c.ok<{ session_id: string; env_vars: string[]; env_vars_skipped: string[] }>("pty_open", {
      env_vars: ["AITERM_NOT_SET_ANYWHERE"],
    });
    assertEquals(skipped.env_vars, []);
    assertEquals(skipped.env_vars_skipped, ["AITERM_NOT_SET_ANYWHERE"]);
    assertEquals((await c.err("pty_open", { shell: "no-such-shell-xyz" })).code, "SHELL_NOT_FOUND");
    await c.ok("pty_send", {
      wait: false,
      session_id: "work_1",
      text: `echo "$AITERM_SESSION_ID:$AITERM_TEST_SECRET" > ${t.root}/env.txt`,
    });
    assertEquals(await eventually(() => fileText(`${t.root}/env.txt`), 10_000, "env.txt"), "work_1:s3cr3t-value\n");
  },
);

Deno.test("a multi-line script runs in the current shell: heredoc, variables across lines, cd", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  await Deno.mkdir(`${t.root}/sub`);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  const script = [
    "GREETING='hello from line 1'",
    "cat > out.txt <<'EOF'",
    "$GREETING stays literal in a quoted heredoc",
    "EOF",
    'echo "$GREETING" >> out.txt',
    "cd sub",
  ].join("\n");
  const sent = await c.ok<{ mode: string }>("pty_send", { wait: false, session_id, text: script });
  assertEquals(sent.mode, "script");
  const out = await eventually(() => fileText(`${t.root}/out.txt`).then((s) => s?.includes("line 1\n") ? s : null));
  assertEquals(out, "$GREETING stays literal in a quoted heredoc\nhello from line 1\n");
  await c.ok("pty_send", {
    wait: false,
    session_id,
    text: `pwd > ${t.root}/pwd.txt; echo "$GREETING" >> ${t.root}/pwd.txt`,
  });
  assertEquals(
    await eventually(() => fileText(`${t.root}/pwd.txt`).then((s) => s?.includes("\nhello") ? s : null)),
    `${t.root}/sub\nhello from line 1\n`,
  );
});

Deno.test("two server processes sending 6,000 characters each never interleave", opts, async () => {
  await using t = await makeTestEnv();
  await using a = await connect(t.env);
  await using b = await connect(t.env);
  const { session_id } = await a.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  // The lines go to cat with the tty in non-canonical mode: a shell runs each command with the tty in
  // canonical mode, where Linux keeps at most 4095 characters of a line typed before the command ends, so a
  // paste that lands while the previous printf still runs (two busy cores) lost its tail and never ran.
  await a.ok("pty_send", { wait: false, session_id, text: "stty -icanon -echo; cat >> lines.txt" });
  await eventually(
    async () =>
      (await t.tmux("display", "-p", "-t", `=${session_id}:`, "#{pane_current_command}")).stdout.trim() === "cat",
    30_000,
    "cat in the foreground",
  );
  const line = (ch: string) => ch.repeat(6000);
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < 3; i++) {
    sends.push(a.ok("pty_send", { wait: false, session_id, text: line("A") }));
    sends.push(b.ok("pty_send", { wait: false, session_id, text: line("B") }));
  }
  await Promise.all(sends);
  const text = await eventually(
    () => fileText(`${t.root}/lines.txt`).then((s) => s && s.split("\n").filter(Boolean).length >= 6 ? s : null),
    60_000,
    "six lines",
  );
  const lines = text.split("\n").filter(Boolean);
  assertEquals(lines.length, 6);
  for (const l of lines) {
    assert(l === "A".repeat(6000) || l === "B".repeat(6000), `interleaved line of length ${l.length}`);
  }
});

Deno.test("a 70 KiB send is refused with INPUT_TOO_LARGE and the pane shows nothing new", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  await c.ok("pty_send", { wait: false, session_id, text: `echo ready > ${t.root}/ready.txt` });
  await eventually(() => fileText(`${t.root}/ready.txt`));
  const before = (await t.tmux("capture-pane", "-p", "-t", `=${session_id}:`)).stdout;
  const e = await c.err("pty_send", { wait: false, session_id, text: "x".repeat(70 * 1024) });
  assertEquals(e.code, "INPUT_TOO_LARGE");
  assertStringIncludes(e.text, "65536");
  assertStringIncludes(e.text, String(70 * 1024));
  await new Promise((r) => setTimeout(r, 300));
  assertEquals((await t.tmux("capture-pane", "-p", "-t", `=${session_id}:`)).stdout, before);
});

Deno.test("raw:true delivers the bytes exactly; sanitising removes controls otherwise", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  const payload = "a\x01b\x1b[31mc\td\re\x7f\u00e9\u6f22\u{1f600}\n";
  const size = new TextEncoder().encode(payload).length;
  await c.ok("pty_send", {
    wait: false,
    session_id,
    text: `stty raw -echo; head -c ${size} > raw.bin; stty sane; echo done > raw.done`,
  });
  await new Promise((r) => setTimeout(r, 300));
  const sent = await c.ok<{ mode: string; bytes: number }>("pty_send", {
    wait: false,
    session_id,
    text: payload,
    raw: true,
    enter: false,
  });
  assertEquals(sent.mode, "raw");
  await eventually(() => fileText(`${t.root}/raw.done`));
  assertEquals(await Deno.readFile(`${t.root}/raw.bin`), new TextEncoder().encode(payload));
  const clean = await c.ok<{ removed_controls: number; bytes: number }>("pty_send", {
    wait: false,
    session_id,
    text: "echo \x1b[200~safe\x1b[201~\x07 > clean.txt",
  });
  assert(clean.removed_controls > 0);
  assertEquals(await eventually(() => fileText(`${t.root}/clean.txt`)), "safe\n");
});

Deno.test("pty_key presses named keys and refuses unknown names without typing them", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  await c.ok("pty_send", { wait: false, session_id, text: `sleep 30; echo finished > ${t.root}/sleep.txt` });
  await eventually(async () =>
    (await t.tmux("display", "-p", "-t", `=${session_id}:`, "#{pane_current_command}")).stdout.trim() === "sleep"
  );
  const k = await c.ok<{ key: string }>("pty_key", { session_id, key: "ctrl-c" });
  assertEquals(k.key, "C-c");
  await eventually(async () =>
    (await t.tmux("display", "-p", "-t", `=${session_id}:`, "#{pane_current_command}")).stdout.trim() === "bash"
  );
  assertEquals(await fileText(`${t.root}/sleep.txt`), null);
  const before = (await t.tmux("capture-pane", "-p", "-t", `=${session_id}:`)).stdout;
  const e = await c.err("pty_key", { session_id, key: "Hyper-Q" });
  assertEquals(e.code, "KEY_UNKNOWN");
  assertStringIncludes(e.text, "Enter");
  await new Promise((r) => setTimeout(r, 200));
  assertEquals((await t.tmux("capture-pane", "-p", "-t", `=${session_id}:`)).stdout, before);
  assertEquals((await c.err("pty_key", { session_id: "nope", key: "Enter" })).code, "SESSION_NOT_FOUND");
});

Deno.test("pty_close is idempotent and removes the session's files", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  assert(await Deno.stat(`${t.stateDir}/sessions/${session_id}`).then(() => true, () => false));
  assertEquals((await c.ok<{ outcome: string }>("pty_close", { session_id })).outcome, "closed");
  assertEquals((await c.ok<{ outcome: string }>("pty_close", { session_id })).outcome, "already_closed");
  assertEquals(await Deno.stat(`${t.stateDir}/sessions/${session_id}`).then(() => true, () => false), false);
  assertEquals((await t.tmux("has-session", "-t", `=${session_id}:`)).code, 1);
  assertEquals((await c.err("pty_send", { wait: false, session_id, text: "echo" })).code, "SESSION_NOT_FOUND");
});

Deno.test("pty_list shows ai and human sessions and ended ones; diagnostics reports readiness", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  await c.ok("pty_open", { name: "mine", cwd: t.root });
  const gone = await c.ok<{ session_id: string }>("pty_open", { name: "shortlived", cwd: t.root });
  await c.ok("pty_send", { wait: false, session_id: gone.session_id, text: "exit" });
  const human = await t.tmux("new-session", "-d", "-s", "person", "sh");
  assertEquals(human.code, 0, human.stderr);
  const rows = await eventually(async () => {
    const l = await c.ok<{ sessions: { session_id: string; origin: string; state: string; width: number | null }[] }>(
      "pty_list",
    );
    return l.sessions.find((s) => s.session_id === "shortlived")?.state === "ended" ? l.sessions : null;
  });
  const by = Object.fromEntries(rows.map((r) => [r.session_id, r]));
  assertEquals(by.mine?.origin, "ai");
  assertEquals(by.mine?.state, "running");
  assertEquals(by.mine?.width, 200);
  assertEquals(by.person?.origin, "human");
  assertEquals(by.shortlived?.state, "ended");
  assertEquals(
    (await c.err("pty_send", { wait: false, session_id: "shortlived", text: "echo" })).code,
    "SESSION_ENDED",
  );
  const d = await c.ok<
    { overall: string; multiplexer: { found: boolean; supported: boolean }; sessions: { count: number } }
  >("diagnostics");
  assertEquals(d.overall, "ready");
  assert(d.multiplexer.supported);
  assertEquals(d.sessions.count, 2);
  assert(!JSON.stringify(d).includes(t.root), "diagnostics leaked a path");
});

Deno.test("a SIGKILLed server leaves the session alive; a new server lists it and sends to it", opts, async () => {
  await using t = await makeTestEnv();
  const first = await connect(t.env);
  const { session_id } = await first.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  Deno.kill(first.pid, "SIGKILL");
  await first.close();
  await using second = await connect(t.env);
  const l = await second.ok<{ sessions: { session_id: string; state: string; origin: string }[] }>("pty_list");
  assertEquals(l.sessions.map((s) => [s.session_id, s.state, s.origin]), [[session_id, "running", "ai"]]);
  await second.ok("pty_send", { wait: false, session_id, text: `echo survived > ${t.root}/survived.txt` });
  assertEquals(await eventually(() => fileText(`${t.root}/survived.txt`)), "survived\n");
});

Deno.test("bad arguments and unknown tools are coded errors", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const e = await c.err("pty_send", { wait: false, session_id: "t1" });
  assertEquals(e.code, "INVALID_ARGUMENT");
  assertMatch(e.text, /^INVALID_ARGUMENT: .*text/);
  assertEquals(
    (await c.err("pty_send", { wait: false, session_id: "t1", text: "x", bogus: 1 })).code,
    "INVALID_ARGUMENT",
  );
  assertEquals((await c.err("no_such_tool")).code, "TOOL_UNKNOWN");
});

Deno.test(
  "a missing tmux is TMUX_NOT_FOUND and an old one TMUX_TOO_OLD, each with the install hint",
  opts,
  async () => {
    await using t = await makeTestEnv();
    const old = `${t.root}/old-tmux`;
    await Deno.writeTextFile(old, "#!/bin/sh\necho 'tmux 2.5'\n");
    await Deno.chmod(old, 0o755);
    {
      await using c = await connect({ ...t.env, AITERM_TMUX_BIN: `${t.root}/no-such-tmux` });
      const e = await c.err("pty_open", { cwd: t.root });
      assertEquals(e.code, "TMUX_NOT_FOUND");
      assertMatch(e.text, /install|apt-get|brew/);
      const d = await c.ok<{ overall: string; multiplexer: { found: boolean } }>("diagnostics");
      assertEquals([d.overall, d.multiplexer.found], ["not_ready", false]);
      // The failure is counted in the local aggregate as a fixed code, with no text.
      const counted = await eventually(async () => {
        const x = await c.ok<{ runtime_errors: { status: string; open: number | null } }>("diagnostics");
        return (x.runtime_errors.open ?? 0) >= 1 ? x.runtime_errors : null;
      });
      assertEquals(counted.status, "ready");
      const snap = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", new URL("../../main.ts", import.meta.url).pathname, "errors", "snapshot"],
        env: t.env,
        clearEnv: true,
        stdout: "piped",
      }).output();
      const text = new TextDecoder().decode(snap.stdout);
      assertStringIncludes(text, "AITERM.PTY_DEPENDENCY_UNAVAILABLE");
      assert(!text.includes("no-such-tmux") && !text.includes(t.root), "the aggregate holds a path");
    }
    {
      await using c = await connect({ ...t.env, AITERM_TMUX_BIN: old });
      const e = await c.err("pty_open", { cwd: t.root });
      assertEquals(e.code, "TMUX_TOO_OLD");
      assertStringIncludes(e.text, "2.5");
      assertStringIncludes(e.text, "2.6");
    }
  },
);

Deno.test("output produced while no server runs is kept in the log", opts, async () => {
  await using t = await makeTestEnv();
  const first = await connect(t.env);
  const { session_id } = await first.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  await first.ok("pty_read", { session_id });
  await first.ok("pty_send", { wait: false, session_id, text: "sleep 1; echo printed-while-down-$((40+2))" });
  Deno.kill(first.pid, "SIGKILL");
  await first.close();
  await new Promise((r) => setTimeout(r, 1500));
  await using second = await connect(t.env);
  const r = await second.ok<{ text: string; via: string }>("pty_read", { session_id, wait: true });
  assertStringIncludes(r.text, "printed-while-down-42");
});

Deno.test("a server started without any locale variables still drives sessions", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect({ PATH: t.env.PATH!, HOME: t.home, AITERM_STATE_DIR: t.stateDir, TMUX_TMPDIR: t.root });
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  await c.ok("pty_send", { wait: false, session_id, text: "echo no-locale-$((1+1))" });
  const r = await c.ok<{ text: string }>("pty_read", { session_id, wait: true });
  assertStringIncludes(r.text, "no-locale-2");
  const rows = await c.ok<{ sessions: { session_id: string; state: string }[] }>("pty_list");
  assertEquals(rows.sessions.map((s) => [s.session_id, s.state]), [[session_id, "running"]]);
});

Deno.test("a generation from a closed session is SESSION_STALE on the new session of the same name", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const old = await c.ok<{ session_id: string; generation: string }>("pty_open", { name: "gen", cwd: t.root });
  await c.ok("pty_close", { session_id: "gen" });
  const now = await c.ok<{ session_id: string; generation: string }>("pty_open", { name: "gen", cwd: t.root });
  assert(old.generation !== now.generation, "a reopened session kept its generation");
  for (
    const [tool, args] of [
      ["pty_send", { wait: false, text: `echo stale > ${t.root}/stale.txt` }],
      ["pty_read", {}],
      ["pty_key", { key: "Enter" }],
      ["pty_observe", {}],
      ["pty_close", {}],
    ] as const
  ) {
    const e = await c.err(tool, { session_id: "gen", generation: old.generation, ...args });
    assertEquals(e.code, "SESSION_STALE", tool);
  }
  assertEquals(await fileText(`${t.root}/stale.txt`), null);
  await c.ok("pty_send", {
    wait: false,
    session_id: "gen",
    generation: now.generation,
    text: `echo fresh > ${t.root}/fresh.txt`,
  });
  assertEquals(await eventually(() => fileText(`${t.root}/fresh.txt`)), "fresh\n");
  const rows = await c.ok<{ sessions: { session_id: string; generation: string | null }[] }>("pty_list");
  assertEquals(rows.sessions.find((r) => r.session_id === "gen")?.generation, now.generation);
});

Deno.test("pty_list env_keys says which variables aiterm set for each session, never their values", opts, async () => {
  await using t = await makeTestEnv({ AITERM_TEST_VISIBLE: "shown-value", AITERM_TEST_OTHER: "other-value" });
  await using c = await connect(t.env);
  await c.ok("pty_open", { name: "envy", cwd: t.root, env_vars: ["AITERM_TEST_VISIBLE"] });
  await c.ok("pty_open", { name: "plain", cwd: t.root });
  const keys = ["AITERM_TEST_VISIBLE", "AITERM_TEST_OTHER", "AITERM_SESSION_ID", "PATH"];
  const raw = await c.call("pty_list", { env_keys: keys });
  assert(!JSON.stringify(raw).includes("shown-value"), "pty_list returned a value");
  const r = raw.structuredContent as { sessions: { session_id: string; environment?: Record<string, boolean> }[] };
  const by = Object.fromEntries(r.sessions.map((s) => [s.session_id, s.environment]));
  assertEquals(by.envy, { AITERM_TEST_VISIBLE: true, AITERM_TEST_OTHER: false, AITERM_SESSION_ID: true, PATH: false });
  assertEquals(by.plain, {
    AITERM_TEST_VISIBLE: false,
    AITERM_TEST_OTHER: false,
    AITERM_SESSION_ID: true,
    PATH: false,
  });
  assertEquals((await c.err("pty_list", { env_keys: ["bad key"] })).code, "INVALID_ARGUMENT");
});

Deno.test("diagnostics does not hang when a FIFO sits where the error aggregate should be", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  await c.ok("pty_open", { cwd: t.root });
  await Deno.mkdir(`${t.stateDir}/runtime-errors`, { recursive: true });
  const made = await new Deno.Command("mkfifo", { args: [`${t.stateDir}/runtime-errors/aggregate.json`] }).output();
  assert(made.success, "mkfifo");
  const d = await c.ok<{ runtime_errors: { status: string }; sessions: { count: number } }>("diagnostics");
  assertEquals([d.runtime_errors.status, d.sessions.count], ["unreadable", 1]);
  // Terminal work goes on, and recording a failure does not block the call that failed.
  assertEquals((await c.err("pty_send", { wait: false, session_id: "nope", text: "x" })).code, "SESSION_NOT_FOUND");
});
