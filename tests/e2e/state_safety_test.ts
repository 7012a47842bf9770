/**
 * Issue 14 items 5 and 13 through the real MCP client on real tmux: planted state is refused with a
 * coded error (never chmod-ed and used), and a tmux server that is gone is reported as such, while a
 * deleted socket of a live server is re-created instead of a second server being started.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux || Deno.build.os !== "linux", sanitizeOps: false, sanitizeResources: false };
const asRoot = { ...opts, ignore: opts.ignore || Deno.uid() !== 0 };

function modeOf(path: string): number {
  return (Deno.lstatSync(path).mode ?? 0) & 0o7777;
}

/** pids of tmux server processes serving `socket` (the server keeps the argv of the client that started it). */
async function tmuxServers(socket: string): Promise<number[]> {
  const pids: number[] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const comm = (await Deno.readTextFile(`/proc/${e.name}/comm`).catch(() => "")).trim();
    const argv = await Deno.readTextFile(`/proc/${e.name}/cmdline`).catch(() => "");
    const state = (await Deno.readTextFile(`/proc/${e.name}/stat`).catch(() => "")).split(") ")[1]?.[0];
    if (comm === "tmux: server" && state !== "Z" && argv.split("\0").includes(socket)) pids.push(Number(e.name));
  }
  return pids;
}

async function panePid(t: TestEnv, id: string): Promise<number> {
  return Number((await t.tmux("display-message", "-p", "-t", `=${id}:`, "#{pane_pid}")).stdout.trim());
}

async function roundTrip(c: TestClient, session_id: string, tag: string): Promise<void> {
  await c.ok("pty_send", { wait: false, session_id, text: `echo ${tag}-$((40+2))` });
  const r = await c.ok<{ text: string }>("pty_read", { session_id, wait: true, timeout: 30 });
  assertStringIncludes(r.text, `${tag}-42`);
}

Deno.test("a state directory others can write to is STATE_ROOT_UNSAFE and is left as it was", asRoot, async () => {
  await using t = await makeTestEnv();
  await Deno.mkdir(t.stateDir);
  Deno.chmodSync(t.stateDir, 0o777);
  await using c = await connect(t.env);
  const err = await c.err("pty_open", { cwd: t.root });
  assertEquals(err.code, "STATE_ROOT_UNSAFE");
  assertStringIncludes(err.message, "0777");
  assertEquals(modeOf(t.stateDir), 0o777, "the directory was chmod-ed");
  assertEquals(await tmuxServers(t.socketPath), [], "a tmux server was started");
  const diag = await c.ok<{ overall: string; state_root: { status: string } }>("diagnostics");
  assertEquals([diag.overall, diag.state_root.status], ["not_ready", "unsafe"]);
  // A planted subdirectory is refused the same way.
  Deno.chmodSync(t.stateDir, 0o700);
  await Deno.mkdir(`${t.stateDir}/sessions`);
  Deno.chmodSync(`${t.stateDir}/sessions`, 0o733);
  assertEquals((await c.err("pty_open", { cwd: t.root })).code, "STATE_ROOT_UNSAFE");
  assertEquals(modeOf(`${t.stateDir}/sessions`), 0o733);
});

Deno.test("a tmux socket owned by another user is STATE_ROOT_UNSAFE for every tool; nothing runs", asRoot, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  Deno.chownSync(t.socketPath, 65534, 65534);
  try {
    for (
      const [tool, args] of [
        ["pty_open", { cwd: t.root }],
        ["pty_send", { wait: false, session_id, text: "echo should-not-run" }],
        ["pty_key", { session_id, key: "Enter" }],
        ["pty_list", {}],
      ] as const
    ) {
      const err = await c.err(tool, args);
      assertEquals(err.code, "STATE_ROOT_UNSAFE", tool);
      assertStringIncludes(err.message, "uid 65534");
    }
    const diag = await c.ok<{ state_root: { status: string } }>("diagnostics");
    assertEquals(diag.state_root.status, "unsafe");
  } finally {
    Deno.chownSync(t.socketPath, 0, 0);
  }
  const screen = await c.ok<{ text: string }>("pty_read", { session_id, screen: true });
  assert(!screen.text.includes("should-not-run"), "text was typed through a refused socket");
});

Deno.test(
  "tmux kill-server: send, key, wait, screen and observe say TMUX_SERVER_GONE; diagnostics too",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
    await roundTrip(c, session_id, "before");
    assertEquals((await t.tmux("kill-server")).code, 0);
    await eventually(async () => (await tmuxServers(t.socketPath)).length === 0, 10_000, "server exit");
    for (
      const [tool, args] of [
        ["pty_send", { wait: false, session_id, text: "echo x" }],
        ["pty_key", { session_id, key: "C-c" }],
        // (a plain wait would complete on the last command's mark, already in the log)
        ["pty_read", { session_id, until: "never-printed", timeout: 5 }],
        ["pty_read", { session_id, screen: true }],
        ["pty_observe", { session_id }],
      ] as const
    ) {
      assertEquals((await c.err(tool, args)).code, "TMUX_SERVER_GONE", `${tool} ${JSON.stringify(args)}`);
    }
    // The log stays readable.
    assertStringIncludes((await c.ok<{ text: string }>("pty_read", { session_id, full: true })).text, "before-42");
    const diag = await c.ok<{ overall: string; sessions: { count: number; server: string } }>("diagnostics");
    assertEquals(diag.sessions, { count: 0, server: "not_running" });
    // A new session starts a new server.
    const next = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
    await roundTrip(c, next.session_id, "after");
  },
);

Deno.test("a SIGKILLed tmux server is TMUX_SERVER_GONE, not SESSION_ENDED", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  const [server] = await tmuxServers(t.socketPath);
  assert(server, "no tmux server");
  Deno.kill(server, "SIGKILL");
  await eventually(async () => (await tmuxServers(t.socketPath)).length === 0, 10_000, "server death");
  assertEquals((await c.err("pty_send", { wait: false, session_id, text: "echo x" })).code, "TMUX_SERVER_GONE");
  assertEquals((await c.err("pty_key", { session_id, key: "Enter" })).code, "TMUX_SERVER_GONE");
});

Deno.test("the last shell exiting is SESSION_ENDED (the server stays), not TMUX_SERVER_GONE", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  await c.ok("pty_send", { wait: false, session_id, text: "exit" });
  await eventually(async () => (await t.tmux("has-session", "-t", `=${session_id}:`)).code !== 0, 10_000, "exit");
  assertEquals((await c.err("pty_send", { wait: false, session_id, text: "echo x" })).code, "SESSION_ENDED");
  const diag = await c.ok<{ sessions: { count: number; server: string } }>("diagnostics");
  assertEquals(diag.sessions, { count: 0, server: "running" });
});

Deno.test("a deleted tmux socket is re-created: the same shell answers and no second server starts", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  const pane = await panePid(t, session_id);
  const servers = await tmuxServers(t.socketPath);
  assertEquals(servers.length, 1);
  await Deno.remove(t.socketPath);
  await roundTrip(c, session_id, "recovered");
  assertEquals(await panePid(t, session_id), pane, "not the same shell");
  assertEquals(await tmuxServers(t.socketPath), servers, "a second tmux server");
  // Deleted again, then the call that would start a server: still the one server, both sessions on it.
  await Deno.remove(t.socketPath);
  const second = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  assertEquals(await tmuxServers(t.socketPath), servers, "pty_open started a second tmux server");
  const listed = await c.ok<{ sessions: { session_id: string; state: string }[] }>("pty_list");
  assertEquals(listed.sessions.map((s) => [s.session_id, s.state]), [[session_id, "running"], [
    second.session_id,
    "running",
  ]]);
});
