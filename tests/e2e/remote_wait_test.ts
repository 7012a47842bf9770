/**
 * The wait_process of a remote agent turn (`aiterm-mcp remote-wait -- ssh … aiterm-mcp wait …`) against
 * a private loopback sshd: ssh dying in the middle of a wait is observed again from the same cursor
 * and the answer arrives once; a verdict of the remote waiter itself is final.
 *
 * The turn is held deterministically by the fake Claude's permission dialog (prompt "PERM …"), so the
 * kill always lands mid-wait; pressing Enter through the relay lets the turn finish.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import { hasSshd, processes, type ProcInfo, startSshd, stopMasters, type TestSshd } from "../helpers/sshd.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const opts = { ignore: !hasTmux || !hasSshd, sanitizeOps: false, sanitizeResources: false };

interface Receipt {
  session_id: string;
  event_cursor: number;
  wait_process: { executable: string; args: string[] };
}

/** A running wait_process whose stdout and stderr are collected as they arrive. */
interface RunningWaiter {
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Exit code, once stdout and stderr are drained. */
  done: Promise<number>;
}

function startWaiter(env: Record<string, string>, wp: Receipt["wait_process"]): RunningWaiter {
  const child = new Deno.Command(wp.executable, {
    args: wp.args,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  let err = "";
  const pump = async (s: ReadableStream<Uint8Array>, add: (t: string) => void) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) add(chunk);
  };
  const done = Promise.all([
    pump(child.stdout, (t) => out += t),
    pump(child.stderr, (t) => err += t),
    child.status,
  ]).then(([, , st]) => st.code);
  return { pid: child.pid, stdout: () => out, stderr: () => err, done };
}

/**
 * The remote `aiterm-mcp wait` processes (deno … main.ts wait --session <id> …) of this sshd's aiterm:
 * its state dir tells them apart from waiters of tests running in parallel.
 */
async function remoteWaiters(sshd: TestSshd, session: string): Promise<ProcInfo[]> {
  const found: ProcInfo[] = [];
  for (const p of await processes()) {
    const i = p.argv.findIndex((a) => a.endsWith("/main.ts"));
    if (i < 0 || p.argv[i + 1] !== "wait" || !p.argv.includes(session)) continue;
    const environ = await Deno.readTextFile(`/proc/${p.pid}/environ`).catch(() => "");
    if (environ.split("\0").includes(`AITERM_STATE_DIR=${sshd.remoteState}`)) found.push(p);
  }
  return found;
}

async function sshChild(waiterPid: number): Promise<ProcInfo | null> {
  return (await processes()).find((p) => p.ppid === waiterPid && p.argv[0]?.endsWith("ssh")) ?? null;
}

async function remoteAgentEnv(): Promise<{ sshd: TestSshd; cwd: string }> {
  const sshd = await startSshd({ CLAUDE_BIN: `${FIXTURE_BIN}claude` });
  const cwd = `${sshd.root}/proj`;
  await Deno.mkdir(cwd);
  return { sshd, cwd: await Deno.realPath(cwd) };
}

/** Launches the fake Claude on the remote host with a turn held at its permission dialog. */
async function launchHeld(c: TestClient, remote: Record<string, unknown>, cwd: string): Promise<Receipt> {
  const l = await c.ok<Receipt>("agent_launch", {
    harness: "claude-code",
    cwd,
    trust_project: true,
    prompt: "PERM first task",
    remote,
  });
  assertEquals(l.event_cursor, 0);
  await eventually(
    async () => {
      const o = await c.ok<{ state: string; reason: string }>("pty_observe", { session_id: l.session_id, remote });
      return o.state === "blocked" && o.reason === "approval_required";
    },
    30_000,
    "the permission dialog",
  );
  return l;
}

Deno.test(
  "remote: ssh killed in the middle of a wait is observed again from the same cursor; the answer comes once",
  opts,
  async () => {
    const { sshd, cwd } = await remoteAgentEnv();
    await using _sshd = sshd;
    await using t = await makeTestEnv();
    const control = `${t.stateDir}/ssh`;
    try {
      await using c = await connect(t.env);
      const remote = sshd.remote();
      const l = await launchHeld(c, remote, cwd);
      const w = startWaiter(t.env, l.wait_process);
      // The first attempt: a local ssh (child of remote-wait) running the remote waiter.
      const first = await eventually(
        async () => {
          const ssh = await sshChild(w.pid);
          const waiters = await remoteWaiters(sshd, l.session_id);
          return ssh && waiters.length === 1 ? { ssh, remote: waiters[0]! } : null;
        },
        30_000,
        "the first remote waiter",
      );
      assert(first.remote.argv.includes("--cursor"), JSON.stringify(first.remote.argv));
      assertEquals(first.remote.argv[first.remote.argv.indexOf("--cursor") + 1], "0");
      // Kill only that ssh (a mux client of the shared connection): it exits 255, as on a lost link.
      Deno.kill(first.ssh.pid, "SIGTERM");
      const second = await eventually(
        async () => {
          const ssh = await sshChild(w.pid);
          const waiters = (await remoteWaiters(sshd, l.session_id)).filter((p) => p.pid !== first.remote.pid);
          return ssh && ssh.pid !== first.ssh.pid && waiters.length === 1 ? { ssh, remote: waiters[0]! } : null;
        },
        30_000,
        "the second remote waiter",
      );
      assertStringIncludes(w.stderr(), "ssh failed (attempt 1); re-observing");
      // The same command again: same session, same cursor, same generation.
      assertEquals(second.ssh.argv, first.ssh.argv);
      assertEquals(second.remote.argv, first.remote.argv);
      assertEquals(w.stdout(), "", "a verdict was printed before the turn ended");
      // Let the turn finish: approve the dialog through the relay.
      await c.ok("pty_key", { session_id: l.session_id, key: "Enter", remote });
      assertEquals(await w.done, 0, w.stderr());
      const lines = w.stdout().trim().split("\n");
      assertEquals(lines.length, 1, w.stdout());
      const verdict = JSON.parse(lines[0]!) as { outcome: string; cursor: number; turn_id: string };
      assertEquals([verdict.outcome, verdict.cursor], ["done", 0]);
      assertEquals(w.stderr().match(/re-observing/g)?.length, 1, w.stderr());
      // The answer of exactly that turn.
      const a = await c.ok<{ text: string; turn_id: string }>("pty_read", {
        session_id: l.session_id,
        agent_transcript: true,
        cursor: 0,
        remote,
      });
      // The fake answers "ANSWER(<first 40 characters of the prompt>)"; aiterm prefixes the first prompt.
      assertStringIncludes(a.text, "ANSWER(");
      assert(!a.text.includes("second task"), a.text);
      assertEquals(a.turn_id, verdict.turn_id);
      // A second turn has its own answer; cursor 0 still gives the first one, never the newer body.
      const s2 = await c.ok<Receipt>("pty_send", {
        wait: false,
        session_id: l.session_id,
        text: "second task",
        remote,
      });
      assertEquals(s2.event_cursor, 1);
      const w2 = startWaiter(t.env, s2.wait_process);
      assertEquals(await w2.done, 0, w2.stderr());
      const a1 = await c.ok<{ text: string; turn_id: string }>("pty_read", {
        session_id: l.session_id,
        agent_transcript: true,
        cursor: 1,
        remote,
      });
      assertStringIncludes(a1.text, "ANSWER(second task");
      assert(a1.turn_id !== verdict.turn_id, "two turns share a turn id");
      const a0 = await c.ok<{ text: string; turn_id: string }>("pty_read", {
        session_id: l.session_id,
        agent_transcript: true,
        cursor: 0,
        remote,
      });
      assertEquals([a0.text, a0.turn_id], [a.text, a.turn_id]);
      // The first remote waiter (cut off from its caller) ends once the turn is over: nothing leaks.
      await eventually(async () => !(await remoteWaiters(sshd, l.session_id)).length, 30_000, "remote waiters to end");
      await c.ok("pty_close", { session_id: l.session_id, remote });
    } finally {
      await stopMasters(control);
    }
  },
);

Deno.test(
  "remote: a verdict of the remote waiter itself (closed, exit 4) is final and never retried",
  opts,
  async () => {
    const { sshd, cwd } = await remoteAgentEnv();
    await using _sshd = sshd;
    await using t = await makeTestEnv();
    const control = `${t.stateDir}/ssh`;
    try {
      await using c = await connect(t.env);
      const remote = sshd.remote();
      const l = await launchHeld(c, remote, cwd);
      const w = startWaiter(t.env, l.wait_process);
      await eventually(async () => (await remoteWaiters(sshd, l.session_id)).length === 1, 30_000, "the remote waiter");
      // Closing the session ends the turn without an answer: the remote waiter says "closed" (exit 4).
      await c.ok("pty_close", { session_id: l.session_id, remote });
      assertEquals(await w.done, 4, w.stderr());
      const verdict = JSON.parse(w.stdout().trim()) as { outcome: string; cursor: number };
      assertEquals([verdict.outcome, verdict.cursor], ["closed", 0]);
      assert(!w.stderr().includes("re-observing"), w.stderr());
      assertEquals(await remoteWaiters(sshd, l.session_id), []);
      // Run again after the fact: the same final verdict at once, still a single attempt.
      const again = startWaiter(t.env, l.wait_process);
      assertEquals(await again.done, 4, again.stderr());
      assert(!again.stderr().includes("re-observing"), again.stderr());
    } finally {
      await stopMasters(control);
    }
  },
);
