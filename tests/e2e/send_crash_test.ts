// deno-lint-ignore-file no-console
/**
 * A server SIGKILLed in the middle of a long send (issue 14 item 7). Afterwards a fresh server must
 * press C-c and send on the same session (the shell is never killed), no send lock may be left
 * behind, and no scratch file (the typed text) may outlive the send. Real servers over the real
 * MCP client, real tmux.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import { processAlive, processEnvVar } from "../../platform/process.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };
/** A harmless 65,536-byte line: a shell comment. */
const LONG = "# " + "0123456789abcdef".repeat(4096).slice(2);

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);
const scratchFiles = (t: TestEnv) =>
  [...Deno.readDirSync(`${t.stateDir}/scratch`)].map((e) => e.name).filter((n) => n.startsWith("aiterm-"));
const lockPath = (t: TestEnv, id: string) => `${t.stateDir}/sessions/${id}/send.lock`;

/** Sends the long line (not submitted) and SIGKILLs the server `delayMs` later, or when `when` says so. */
async function killMidSend(
  c: TestClient,
  socket: string,
  id: string,
  delayMs: number,
  when?: () => Promise<boolean>,
): Promise<void> {
  const call = c.call("pty_send", { wait: false, session_id: id, text: LONG, enter: false }).catch(() => null);
  if (when) await eventually(when, 30_000, "kill point");
  else await new Promise((r) => setTimeout(r, delayMs));
  Deno.kill(c.pid, "SIGKILL");
  await call;
  await c.close();
  await eventually(() => Promise.resolve(!processAlive(c.pid)), 10_000, "server gone");
  // A tmux client it had spawned finishes on its own (the send is typed whole or not at all): let it.
  await eventually(() => pastesRunning(socket).then((n) => n === 0), 60_000, "orphaned tmux clients");
}

/** tmux clients on `socket` still loading a paste buffer (Linux /proc). */
async function pastesRunning(socket: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const argv = await Deno.readTextFile(`/proc/${e.name}/cmdline`).catch(() => "");
    if (argv.includes(socket) && argv.includes("\0load-buffer\0")) n++;
  }
  return n;
}

/** Waits until the pane's foreground program is `program`. */
async function foregroundIs(t: TestEnv, id: string, program: string): Promise<void> {
  await eventually(
    async () => {
      const out = await t.tmux("display", "-p", "-t", `=${id}:`, "#{pane_current_command}");
      return out.stdout.trim() === program;
    },
    30_000,
    `foreground ${program}`,
  );
}

/**
 * Starts the program the long send goes to. (Not bash's line editor: C-c while bash is still digesting a
 * 64 KiB line can leave bash waiting for one more byte before it shows a prompt, which is bash's, not aiterm's.)
 */
async function startReader(c: TestClient, t: TestEnv, id: string): Promise<void> {
  await c.ok("pty_send", { wait: false, session_id: id, text: "cat > /dev/null" });
  await foregroundIs(t, id, "cat");
}

/** A fresh server recovers the session: C-c ends the reader, a command runs, nothing is left behind. */
async function recover(t: TestEnv, id: string, round: string): Promise<{ c: TestClient; recovered: boolean }> {
  const c = await connect(t.env);
  const k = await c.call("pty_key", { session_id: id, key: "C-c" });
  assert(!k.isError, `round ${round}: pty_key C-c failed: ${JSON.stringify(k.content)}`);
  const key = k.structuredContent as { key: string; recovered_stale_lock: boolean };
  assertEquals(key.key, "C-c");
  const text = k.content[0]?.type === "text" ? k.content[0].text : "";
  if (key.recovered_stale_lock) assertStringIncludes(text, "partly typed");
  await foregroundIs(t, id, "bash");
  const out = `${t.root}/round-${round}.txt`;
  const sent = await c.ok<{ recovered_stale_lock: boolean }>("pty_send", {
    wait: false,
    session_id: id,
    text: `echo ${round} > ${out}`,
  });
  assertEquals(sent.recovered_stale_lock, false, "the lock was clean after pty_key");
  const ran = await eventually(() => Deno.readTextFile(out).catch(() => null), 30_000, out).catch(async (err) => {
    const screen = (await t.tmux("capture-pane", "-p", "-t", `=${id}:`)).stdout;
    throw new Error(`${(err as Error).message}; screen:\n${screen.replace(/[0-9a-f]{200,}/g, "<hex…>")}`);
  });
  assertEquals(ran, `${round}\n`);
  assertEquals(await exists(lockPath(t, id)), false, `round ${round}: the send lock was left behind`);
  assertEquals(scratchFiles(t), [], `round ${round}: scratch files left`);
  return { c, recovered: key.recovered_stale_lock };
}

Deno.test(
  "SIGKILL at 16 points of a 64 KiB send: a fresh server presses C-c and sends; no lock or scratch file is left",
  opts,
  async () => {
    await using t = await makeTestEnv();
    let c = await connect(t.env);
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
    const shellPid = (await t.tmux("display", "-p", "-t", `=${session_id}:`, "#{pane_pid}")).stdout.trim();
    const delays = [0, 2, 5, 8, 12, 16, 20, 25, 30, 40, 50, 65, 80, 100, 150, 250];
    const seen = { lockLeft: 0, scratchLeft: 0, recovered: 0 };
    try {
      for (const [i, delay] of delays.entries()) {
        await startReader(c, t, session_id);
        await killMidSend(c, t.socketPath, session_id, delay);
        if (await exists(lockPath(t, session_id))) seen.lockLeft++;
        if (scratchFiles(t).length) seen.scratchLeft++;
        const next = await recover(t, session_id, `r${i}`);
        c = next.c;
        if (next.recovered) seen.recovered++;
      }
    } finally {
      await c.close();
    }
    // The user's shell was never killed or replaced.
    assertEquals((await t.tmux("display", "-p", "-t", `=${session_id}:`, "#{pane_pid}")).stdout.trim(), shellPid);
    assertEquals(seen.recovered, seen.lockLeft, "every lock left behind was taken over, and only those");
    console.log(
      `16 kills: send lock left by ${seen.lockLeft}, scratch file left by ${seen.scratchLeft}; all recovered`,
    );
  },
);

/**
 * A tmux that holds the paste for a second once `flag` exists, writing its pid to `flag.pid`. On the CLI transport
 * the paste is a `tmux load-buffer` process; on the control transport it is a `set-buffer` line on the control
 * client's stdin, which this wrapper passes on line by line.
 */
function slowPasteTmux(flag: string): string {
  const hold = `if [ -e '${flag}' ]; then echo $$ > '${flag}.pid'; sleep 1; fi`;
  return `#!/bin/sh
case " $* " in
  *" -C "*)
    while IFS= read -r line; do
      case "$line" in "set-buffer "*) ${hold};; esac
      printf '%s\n' "$line"
    done | tmux "$@"
    exit;;
  *" load-buffer "*) ${hold};;
esac
exec tmux "$@"
`;
}

for (const transport of ["cli", "control"] as const) {
  Deno.test(
    `a server SIGKILLed while it holds the send lock (${transport} transport): its lock is taken over, no scratch file is left`,
    opts,
    async () => {
      // A tmux that is slow to load the buffer keeps the killed server inside its lock for a second.
      await using t = await makeTestEnv();
      const flag = `${t.root}/slow-load`;
      const wrapper = `${t.root}/tmux-slow`;
      await Deno.writeTextFile(wrapper, slowPasteTmux(flag));
      await Deno.chmod(wrapper, 0o755);
      // The fresh server that recovers (below) runs on the same transport (whatever the suite's default is).
      t.env.AITERM_TMUX_TRANSPORT = transport;
      const env = { ...t.env, AITERM_TMUX_BIN: wrapper };
      const c = await connect(env);
      const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
      await startReader(c, t, session_id);
      await Deno.writeTextFile(flag, "");
      await killMidSend(
        c,
        t.socketPath,
        session_id,
        0,
        async () => await exists(`${flag}.pid`) && await exists(lockPath(t, session_id)),
      );
      await Deno.remove(flag);
      // The orphaned tmux client finishes the paste on its own: a send is typed whole or not at all. (A control
      // client whose owner died with a reply unwritten stays in tmux until the next aiterm reaps it: below.)
      const orphan = Number((await Deno.readTextFile(`${flag}.pid`)).trim());
      const orphanGone = () => eventually(() => Promise.resolve(!processAlive(orphan)), 10_000, "orphaned tmux client");
      if (transport === "cli") await orphanGone();
      assert(await exists(lockPath(t, session_id)), "the killed server's lock record is there");
      // The CLI paste loads a scratch file; the control paste carries the text in its command line.
      assertEquals(scratchFiles(t).length, transport === "cli" ? 1 : 0, "the killed server's scratch files");
      // An agent step does not take the lock over by itself; pty_key does, and says so.
      const { c: fresh, recovered } = await recover(t, session_id, "after");
      try {
        assert(recovered, "pty_key reported recovered_stale_lock");
        await orphanGone();
        // No control client of a dead aiterm process is left on the server (only live owners' clients).
        const clients = await t.tmux("list-clients", "-F", "#{client_control_mode} #{client_pid}");
        for (const row of clients.stdout.split("\n").filter((l) => l.startsWith("1 "))) {
          const owner = processEnvVar(Number(row.slice(2)), "AITERM_CONTROL_OWNER");
          assert(owner && processAlive(Number(owner.split(" ")[0])), `control client ${row} of a dead owner ${owner}`);
        }
      } finally {
        await fresh.close();
      }
    },
  );
}
