/** pty_observe through MCP: states, identities, activity deltas, and no text leaks. */
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux || Deno.build.os !== "linux", sanitizeOps: false, sanitizeResources: false };

interface Obs {
  state: string;
  reason: string;
  pane_alive: boolean;
  foreground: { pid: number; start: string; argv_digest: string | null; is_shell: boolean } | null;
  activity: {
    cursor: string;
    screen_changed: boolean | null;
    cpu_ms_delta: number | null;
    cpu_delta_complete: boolean | null;
    processes: { pid: number; cpu_ms_delta: number | null }[];
  };
}

Deno.test(
  "pty_observe reports idle, running, stopped (blocked) and ended, with CPU deltas from its cursor",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
    const idle = await c.ok<Obs>("pty_observe", { session_id });
    assertEquals([idle.state, idle.foreground?.is_shell, idle.activity.cpu_ms_delta], ["idle_shell", true, null]);
    assertMatch(idle.foreground?.argv_digest ?? "", /^sha256:[0-9a-f]{64}$/);
    await c.ok("pty_send", { wait: false, session_id, text: "SECRETWORDXYZ=1 sh -c 'while :; do :; done'" });
    const busy = await eventually(async () => {
      const o = await c.ok<Obs>("pty_observe", { session_id, cursor: idle.activity.cursor });
      return o.state === "running" ? o : null;
    });
    assert(!JSON.stringify(busy).includes("SECRETWORDXYZ"), "argv or screen text leaked");
    assertEquals(busy.activity.screen_changed, true);
    await new Promise((r) => setTimeout(r, 400));
    const later = await c.ok<Obs>("pty_observe", { session_id, cursor: busy.activity.cursor });
    assert((later.activity.cpu_ms_delta ?? 0) > 100, `expected CPU use, got ${later.activity.cpu_ms_delta}`);
    assertEquals(later.activity.cpu_delta_complete, true);
    await c.ok("pty_key", { session_id, key: "C-c" });
    const back = await eventually(async () => {
      const o = await c.ok<Obs>("pty_observe", { session_id, cursor: later.activity.cursor });
      return o.state === "idle_shell" ? o : null;
    });
    assertEquals(back.activity.cpu_delta_complete, false);
    assertEquals((await c.err("pty_observe", { session_id, cursor: "garbage" })).code, "INVALID_ARGUMENT");
    // A harness running under a script (no job control): when it is stopped, nobody takes the terminal back.
    await c.ok("pty_send", { wait: false, session_id, text: "sh -c 'sleep 600; :'" });
    const sleeper = await eventually(async () => {
      const o = await c.ok<Obs>("pty_observe", { session_id, cursor: back.activity.cursor });
      return o.activity.processes.length >= 3 ? o : null;
    });
    const pid = Math.max(...sleeper.activity.processes.map((p) => p.pid));
    Deno.kill(pid, "SIGSTOP");
    const stopped = await eventually(async () => {
      const o = await c.ok<Obs>("pty_observe", { session_id });
      return o.state === "blocked" ? o : null;
    });
    assertEquals(stopped.reason, "harness_stopped");
    Deno.kill(pid, "SIGCONT");
    Deno.kill(pid, "SIGTERM");
    await c.ok("pty_send", { wait: false, session_id, text: "exit" });
    const ended = await eventually(async () => {
      const o = await c.ok<Obs>("pty_observe", { session_id });
      return o.state === "ended" ? o : null;
    });
    assertEquals(ended.pane_alive, false);
    assertEquals((await c.err("pty_observe", { session_id: "nope" })).code, "SESSION_NOT_FOUND");
  },
);

Deno.test("pty_observe says nested for a REPL waiting at its prompt", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  await c.ok("pty_send", { wait: false, session_id, text: "python3 -q" });
  const o = await eventually(async () => {
    const r = await c.ok<Obs>("pty_observe", { session_id });
    return r.state === "nested" ? r : null;
  });
  assertEquals(o.foreground?.is_shell, false);
});
