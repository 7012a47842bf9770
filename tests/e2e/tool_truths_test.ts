/**
 * What the tools' annotations and descriptions promise, held through the real MCP SDK client (issue 29 item 9):
 * pty_close is idempotent with a generation too, pty_open refuses a shell that is not a program with nothing
 * left open, and every tool that can reach another host through `remote` says so (openWorldHint).
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test(
  "pty_close with its generation: closed, then already_closed; a replacing session stays STALE",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const a = await c.ok<{ generation: string }>("pty_open", { name: "g1", cwd: t.root });
    const close = (generation?: string) =>
      c.ok<{ outcome: string }>("pty_close", { session_id: "g1", ...(generation ? { generation } : {}) });
    assertEquals((await close(a.generation)).outcome, "closed");
    assertEquals((await close(a.generation)).outcome, "already_closed");
    assertEquals((await close()).outcome, "already_closed");
    assertEquals((await close(a.generation)).outcome, "already_closed");

    // The same id reopened: the old receipt must not close the new session.
    const b = await c.ok<{ generation: string }>("pty_open", { name: "g1", cwd: t.root });
    const stale = await c.err("pty_close", { session_id: "g1", generation: a.generation });
    assertEquals(stale.code, "SESSION_STALE");
    assertEquals((await t.tmux("has-session", "-t", "=g1:")).code, 0, "the stale close killed the new session");
    assertEquals((await close(b.generation)).outcome, "closed");
    assertEquals((await t.tmux("has-session", "-t", "=g1:")).code, 1);

    // A human's session under that id has no generation of ours: STALE, and left alone.
    assertEquals((await t.tmux("new-session", "-d", "-s", "g1", "sleep 300")).code, 0);
    assertEquals((await c.err("pty_close", { session_id: "g1", generation: b.generation })).code, "SESSION_STALE");
    assertEquals((await t.tmux("has-session", "-t", "=g1:")).code, 0, "a human session was closed");
    assertEquals((await t.tmux("kill-session", "-t", "=g1:")).code, 0);

    // The tmux server gone under a session: its files are still ours to remove, then already_closed.
    const d = await c.ok<{ generation: string }>("pty_open", { name: "g2", cwd: t.root });
    await t.tmux("kill-server");
    assertEquals(
      (await c.ok<{ outcome: string }>("pty_close", { session_id: "g2", generation: d.generation })).outcome,
      "closed",
    );
    assertEquals(await exists(`${t.stateDir}/sessions/g2`), false);
    assertEquals(
      (await c.ok<{ outcome: string }>("pty_close", { session_id: "g2", generation: d.generation })).outcome,
      "already_closed",
    );
  },
);

Deno.test("pty_open refuses a shell that is not a program, with nothing left open", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const dir = `${t.root}/shells`;
  await Deno.mkdir(`${dir}/a directory`, { recursive: true });
  const write = async (name: string, text: string, mode: number) => {
    await Deno.writeTextFile(`${dir}/${name}`, text);
    await Deno.chmod(`${dir}/${name}`, mode);
    return `${dir}/${name}`;
  };
  const hostile = "#{ } ( ) ; \\ $ [ ]\nname";
  const cases: [string, RegExp][] = [
    ["/etc/hostname", /is not (executable|a program)/],
    [await write("text-exec", "myhost\n", 0o755), /is not a program/],
    [await write(hostile, "echo pwned > /tmp/should-not-exist\n", 0o755), /is not a program/],
    [await write("text-plain", "#!/bin/sh\nexec /bin/sh\n", 0o644), /is not executable \(mode 644\)/],
    [await write("bad-interp", "#!/no/such/interpreter\n", 0o755), /interpreter that is not an executable/],
    [await write("empty-interp", "#!\n", 0o755), /names no interpreter/],
    [await write("empty", "", 0o755), /is not a program/],
    [`${dir}/a directory`, /is a directory/],
    [`${dir}/missing`, /does not exist/],
    ["shells/text-exec", /is not an absolute path/],
    ["no-such-shell-xyz", /is not an executable on PATH/],
  ];
  for (const [shell, why] of cases) {
    const e = await c.err("pty_open", { shell, cwd: t.root });
    assertEquals(e.code, "SHELL_NOT_FOUND", shell);
    assertMatch(e.message, why, shell);
    assertMatch(e.text, /^SHELL_NOT_FOUND: /);
  }
  assertEquals((await c.ok<{ sessions: unknown[] }>("pty_list")).sessions, [], "a refused open left a session");
  const live = await t.tmux("list-sessions", "-F", "#{session_name}");
  assertEquals(live.stdout.trim(), "", "a refused open left a tmux session");
  const leftovers: string[] = [];
  if (await exists(`${t.stateDir}/sessions`)) {
    for await (const e of Deno.readDir(`${t.stateDir}/sessions`)) leftovers.push(e.name);
  }
  assertEquals(leftovers, []);
  assertEquals(await exists("/tmp/should-not-exist"), false);

  // What still opens: a #! script that becomes a shell, and a binary by absolute path.
  const ok = await c.ok<{ session_id: string; shell: string }>("pty_open", {
    shell: await write("wrapper", "#!/bin/sh\nexec /bin/sh\n", 0o755),
    cwd: t.root,
  });
  assertStringIncludes(ok.shell, "wrapper");
  await c.ok("pty_open", { shell: "/bin/sh", cwd: t.root });
  assertEquals((await c.ok<{ sessions: unknown[] }>("pty_list")).sessions.length, 2);
});

Deno.test("every tool that takes `remote` is annotated openWorldHint: true; pty_close idempotent", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { tools } = await c.client.listTools();
  const remoteTools = tools.filter((x) => "remote" in ((x.inputSchema.properties ?? {}) as Record<string, unknown>));
  assert(remoteTools.length >= 11, `only ${remoteTools.map((x) => x.name)} take remote`);
  for (const tool of remoteTools) assertEquals(tool.annotations?.openWorldHint, true, tool.name);
  const by = Object.fromEntries(tools.map((x) => [x.name, x.annotations]));
  assertEquals(by.diagnostics?.openWorldHint, false);
  assertEquals(by.pty_close?.idempotentHint, true);
  assertEquals(by.agent_launch?.openWorldHint, true);
});
