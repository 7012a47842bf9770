/**
 * The control-mode transport (issue 16, AITERM_TMUX_TRANSPORT=control) through the real MCP client:
 * two aiterm processes on one socket each keep their own `tmux -C` client, the tool flow works on it,
 * pty_list does not count those clients as people watching, and no control client outlives its process.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import { processAlive } from "../../platform/process.ts";
import { findExecutable } from "../../platform/which.ts";
import { createTmux } from "../../platform/tmux/tmux.ts";
import { StateLayout } from "../../state/mod.ts";
import { loadConfig } from "../../base/config.ts";
import { Terminal } from "../../lib/terminal/mod.ts";

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
      await a.ok("pty_send", { wait: false, session_id, text: "echo from-a-$((40+2))" });
      const ra = await a.ok<{ is_complete: boolean; text: string }>("pty_read", {
        session_id,
        wait: true,
        timeout: 10,
      });
      assert(ra.is_complete, JSON.stringify(ra));
      assert(ra.text.includes("from-a-42"), ra.text);
      await b.ok("pty_send", { wait: false, session_id, text: "echo 'from b; #{x} $HOME'" });
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
    await a.ok("pty_send", { wait: false, session_id, text: "true" });
    assertEquals((await controlClients(t)).length, 1);
    Deno.kill(a.pid, "SIGKILL");
  } finally {
    await a.close();
  }
  await eventually(async () => (await leftoverControlProcesses(t)).length === 0, 10_000, "control client to exit");
});

Deno.test(
  "AITERM_TMUX_TRANSPORT: unset means the control client; cli spawns tmux per command and starts none",
  opts,
  async () => {
    for (const transport of [undefined, "cli"]) {
      await using t = await makeTestEnv();
      const env = { ...t.env };
      delete env.AITERM_TMUX_TRANSPORT;
      if (transport) env.AITERM_TMUX_TRANSPORT = transport;
      const a = await connect(env);
      try {
        const { session_id } = await a.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: "bash" });
        await a.ok("pty_send", { wait: false, session_id, text: "echo via-$((6*7))" });
        const r = await a.ok<{ is_complete: boolean; text: string }>("pty_read", {
          session_id,
          wait: true,
          timeout: 10,
        });
        assert(r.is_complete && r.text.includes("via-42"), JSON.stringify(r));
        assertEquals((await controlClients(t)).length, transport === "cli" ? 0 : 1, `transport ${transport}`);
        await a.ok("pty_close", { session_id });
      } finally {
        await a.close();
      }
    }
  },
);

const hasSetpriv = Deno.build.os === "linux" && findExecutable("setpriv", Deno.env.get("PATH")) !== null;

Deno.test(
  "control transport: an aiterm process SIGKILLed while tmux owes its client a reply leaves no client, and kill-server ends the server",
  { ...opts, ignore: !hasTmux || !hasSetpriv },
  async () => {
    await using t = await makeTestEnv({ AITERM_TMUX_TRANSPORT: "control" });
    const a = await connect(t.env);
    let serverPid = 0;
    try {
      const { session_id } = await a.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: "bash" });
      await a.ok("pty_send", { wait: false, session_id, text: "true" });
      assertEquals((await controlClients(t)).length, 1);
      serverPid = Number((await t.tmux("display-message", "-p", "#{pid}")).stdout.trim());
      // A stopped server holds the send's lines; aiterm dies before tmux answers them.
      Deno.kill(serverPid, "SIGSTOP");
      try {
        const send = a.call("pty_send", { wait: false, session_id, text: "echo owed" }).catch(() => null);
        await new Promise((r) => setTimeout(r, 300));
        Deno.kill(a.pid, "SIGKILL");
        await send;
      } finally {
        Deno.kill(serverPid, "SIGCONT");
      }
    } finally {
      await a.close();
    }
    // tmux would keep a client whose reader died with a reply unwritten (and then never exit on kill-server).
    await eventually(async () => (await leftoverControlProcesses(t)).length === 0, 10_000, "control client to exit");
    assertEquals((await controlClients(t)).length, 0);
    assertEquals((await t.tmux("kill-server")).code, 0);
    await eventually(() => Promise.resolve(!processAlive(serverPid)), 10_000, "the tmux server to end");
  },
);

Deno.test(
  "control transport: a send to a remembered pane whose log writer died types nothing there, restarts the writer, types once",
  { ...opts, ignore: !hasTmux || Deno.build.os !== "linux" },
  async () => {
    await using t = await makeTestEnv();
    const layout = new StateLayout(t.stateDir);
    const mux = createTmux({
      socketPath: layout.socketPath,
      scratchDir: layout.scratchDir,
      serverRecordPath: layout.tmuxServerRecord,
      env: t.env,
      transport: "control",
    }) as ReturnType<typeof createTmux> & { close(): Promise<void> };
    // Which way each send typed (no log sweep runs here: only the send itself can restart the writer).
    const ways: string[] = [];
    const { pasteIfReady, pasteText } = {
      pasteIfReady: mux.pasteIfReady!.bind(mux),
      pasteText: mux.pasteText.bind(mux),
    };
    mux.pasteIfReady = async (...a) => {
      const r = await pasteIfReady(...a);
      ways.push(`ready:${r}`);
      return r;
    };
    mux.pasteText = async (...a) => {
      await pasteText(...a);
      ways.push("paste");
    };
    const term = new Terminal({ mux, layout, env: t.env, defaultCwd: t.root, config: loadConfig(t.env) });
    try {
      const { session_id: id } = await term.open({ shell: "bash", cwd: t.root });
      await term.send({ session_id: id, text: "true" });
      await term.send({ session_id: id, text: "true" });
      assertEquals(ways, ["paste", "ready:typed"], "the second send typed in one round trip");
      // The writer dies; tmux closes the pipe once the pane writes again.
      const writer = await findSplit(layout.sessionLogDir(id));
      Deno.kill(writer, "SIGKILL");
      await eventually(
        async () => {
          await t.tmux("send-keys", "-t", `=${id}:`, "C-l");
          return (await t.tmux("display", "-p", "-t", `=${id}:`, "#{pane_pipe}")).stdout === "0\n";
        },
        10_000,
        "tmux to see the dead pipe",
      );
      ways.length = 0;
      const sent = await term.send({ session_id: id, text: "echo once-$((40+2))" });
      assertEquals(ways, ["ready:not_ready", "paste"], "tmux refused the remembered pane, then the send typed once");
      const done = await term.read({ session_id: id, wait: true, timeout: 10, cursor: sent.log_cursor });
      assertEquals(done.is_complete, true, JSON.stringify(done));
      assert(done.text.includes("once-42"), done.text);
      const screen = (await t.tmux("capture-pane", "-p", "-J", "-t", `=${id}:`)).stdout;
      assertEquals(screen.split("echo once-").length - 1, 1, `typed once: ${screen}`);
    } finally {
      await mux.close();
    }
  },
);

/** The pid of the `split` writing a session's log (found by /proc, like tests/e2e/log_writer_test.ts). */
async function findSplit(logDir: string): Promise<number> {
  return await eventually(
    async () => {
      for await (const e of Deno.readDir("/proc")) {
        if (!/^\d+$/.test(e.name)) continue;
        const argv = await Deno.readTextFile(`/proc/${e.name}/cmdline`).catch(() => "");
        if (argv.startsWith("split\0") && argv.includes(`${logDir}/seg.`)) return Number(e.name);
      }
      return null;
    },
    10_000,
    "the log writer",
  );
}

Deno.test(
  "eight pty_open at once on a fresh server all succeed (the first one starts the server alone)",
  opts,
  async () => {
    for (let run = 0; run < 3; run++) {
      await using t = await makeTestEnv();
      const c = await connect(t.env);
      try {
        const opened = await Promise.all(Array.from({ length: 8 }, (_, i) => c.call("pty_open", { name: `s${i}` })));
        const failed = opened.flatMap((r, i) => (r.isError ? [`s${i}: ${JSON.stringify(r.content)}`] : []));
        assertEquals(failed, [], `run ${run}`);
        const listed = await c.ok<{ sessions: unknown[] }>("pty_list", {});
        assertEquals(listed.sessions.length, 8);
      } finally {
        await c.close();
      }
    }
  },
);

Deno.test(
  "two aiterm processes opening sessions at once on a fresh server: every open succeeds on one server",
  opts,
  async () => {
    for (let run = 0; run < 3; run++) {
      await using t = await makeTestEnv();
      const a = await connect(t.env);
      const b = await connect(t.env);
      try {
        // Each process's first open starts or joins the server, then its control client attaches while the
        // other process is still creating sessions (the attach gate is a file both processes lock).
        const opened = await Promise.all(
          Array.from({ length: 8 }, (_, i) => (i % 2 ? b : a).call("pty_open", { name: `p${i}` })),
        );
        const failed = opened.flatMap((r, i) => (r.isError ? [`p${i}: ${JSON.stringify(r.content)}`] : []));
        assertEquals(failed, [], `run ${run}`);
        const more = await Promise.all(
          Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).call("pty_open", { name: `q${i}` })),
        );
        assertEquals(more.filter((r) => r.isError).length, 0, `run ${run}: second burst`);
        const listed = await t.tmux("list-sessions", "-F", "#{session_name}");
        assertEquals(listed.stdout.trim().split("\n").length, 14, `run ${run}: ${listed.stdout}${listed.stderr}`);
      } finally {
        await a.close();
        await b.close();
      }
    }
  },
);
