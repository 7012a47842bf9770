/**
 * The control-mode transport (issue 16, AITERM_TMUX_TRANSPORT=control) through the real MCP client:
 * two aiterm processes on one socket each keep their own `tmux -C` client, the tool flow works on it,
 * pty_list does not count those clients as people watching, and no control client outlives its process.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };

/** Control-mode clients on the test's socket: [client pid, session]. */
async function controlClients(t: TestEnv): Promise<[number, string][]> {
  const out = await t.tmux("list-clients", "-F", "#{client_control_mode}\t#{client_pid}\t#{session_name}");
  return out.stdout.split("\n").filter((l) => l.startsWith("1\t")).map((l) => {
    const [, pid, session] = l.split("\t");
    return [Number(pid), session!];
  });
}

/** `tmux -C` processes for this socket still running (from the process table). */
async function leftoverControlProcesses(t: TestEnv): Promise<string[]> {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid,args"], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l.includes(t.socketPath) && l.includes(" -C "));
}

Deno.test(
  "control transport: two aiterm processes on one socket keep their own client; the tool flow works; none is left",
  opts,
  async () => {
    await using t = await makeTestEnv({ AITERM_TMUX_TRANSPORT: "control" });
    const a = await connect(t.env);
    const b = await connect(t.env);
    try {
      const { session_id } = await a.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: "bash" });
      await a.ok("pty_send", { session_id, text: "echo from-a-$((40+2))" });
      const ra = await a.ok<{ is_complete: boolean; text: string }>("pty_read", {
        session_id,
        wait: true,
        timeout: 10,
      });
      assert(ra.is_complete, JSON.stringify(ra));
      assert(ra.text.includes("from-a-42"), ra.text);
      await b.ok("pty_send", { session_id, text: "echo 'from b; #{x} $HOME'" });
      const rb = await b.ok<{ is_complete: boolean; text: string }>("pty_read", {
        session_id,
        wait: true,
        timeout: 10,
      });
      assert(rb.text.includes("from b; #{x} $HOME"), rb.text);
      await b.ok("pty_key", { session_id, key: "ctrl-c" });

      // b's first calls came before any session existed (nothing to attach to: CLI, retried after a second).
      const clients = await eventually(
        async () => {
          await b.ok("pty_list", {});
          const found = await controlClients(t);
          return found.length === 2 ? found : null;
        },
        10_000,
        "a control client for each process",
      );
      assertEquals(clients.length, 2, `one control client per aiterm process: ${JSON.stringify(clients)}`);
      assert(clients[0]![0] !== clients[1]![0]);

      const list = await a.ok<{ sessions: { session_id: string; attached: boolean }[] }>("pty_list", {});
      const row = list.sessions.find((s) => s.session_id === session_id);
      assertEquals(row?.attached, false, "control clients are not people watching");

      await a.ok("pty_close", { session_id });
    } finally {
      await a.close();
      await b.close();
    }
    // A control client exits with its aiterm process (its stdin closes), whatever that process did.
    await eventually(async () => (await leftoverControlProcesses(t)).length === 0, 10_000, "control clients to exit");
  },
);

Deno.test("control transport: a SIGKILLed aiterm process leaves no control client behind", opts, async () => {
  await using t = await makeTestEnv({ AITERM_TMUX_TRANSPORT: "control" });
  const a = await connect(t.env);
  try {
    const { session_id } = await a.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: "bash" });
    await a.ok("pty_send", { session_id, text: "true" });
    assertEquals((await controlClients(t)).length, 1);
    Deno.kill(a.pid, "SIGKILL");
  } finally {
    await a.close();
  }
  await eventually(async () => (await leftoverControlProcesses(t)).length === 0, 10_000, "control client to exit");
});
