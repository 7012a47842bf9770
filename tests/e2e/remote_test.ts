/** The remote relay through the real MCP client, against a private loopback sshd (tests/helpers/sshd.ts). */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import { hasSshd, masterPids, startSshd, stopMasters } from "../helpers/sshd.ts";

if (!hasSshd) {
  // deno-lint-ignore no-console
  console.warn("remote_test: ignored: /usr/sbin/sshd missing or not root (apt-get install -y openssh-server)");
}
const opts = { ignore: !hasTmux || !hasSshd, sanitizeOps: false, sanitizeResources: false };

async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  const walk = async (d: string): Promise<void> => {
    let entries: Deno.DirEntry[] = [];
    try {
      entries = await Array.fromAsync(Deno.readDir(d));
    } catch {
      return;
    }
    for (const e of entries) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (e.isFile) {
        const text = await Deno.readTextFile(p).catch(() => "");
        if (text.includes(needle)) hits.push(p);
      }
    }
  };
  await walk(dir);
  return hits;
}

Deno.test(
  "remote: pty_open/send/read/close run in the remote aiterm over one shared ssh connection",
  opts,
  async () => {
    await using sshd = await startSshd();
    await using t = await makeTestEnv();
    const control = `${t.stateDir}/ssh`;
    try {
      await using c = await connect(t.env);
      const remote = sshd.remote();
      const open = await c.ok<Record<string, unknown>>("pty_open", { name: "r1", remote });
      assertEquals(open.session_id, "r1");
      assertEquals(open.remote_host, "127.0.0.1");
      assertMatch(String(open.remote_version), /\S/);
      const sent = await c.ok<Record<string, unknown>>("pty_send", {
        session_id: "r1",
        text: "echo remote-$((40+2))",
        mark: true,
        remote,
      });
      assertEquals(sent.remote_host, "127.0.0.1");
      const read = await c.ok<{ text: string; is_complete: boolean }>("pty_read", {
        session_id: "r1",
        wait: true,
        timeout: 20,
        remote,
      });
      assertStringIncludes(read.text, "remote-42");
      // The session lives in the remote state dir's tmux, not the local one.
      const remoteLs = await new Deno.Command("tmux", {
        args: ["-S", `${sshd.remoteState}/tmux.sock`, "list-sessions", "-F", "#{session_name}"],
        stdout: "piped",
        stderr: "null",
      }).output();
      assertStringIncludes(new TextDecoder().decode(remoteLs.stdout), "r1");
      assert((await t.tmux("has-session", "-t", "r1")).code !== 0, "r1 exists in the local tmux");
      const list = await c.ok<Record<string, unknown>>("pty_list", { remote });
      assertStringIncludes(JSON.stringify(list), "r1");
      // One control socket, one master.
      const sockets = [];
      for await (const e of Deno.readDir(control)) if (!/\.(log|sh)$/.test(e.name)) sockets.push(e.name);
      assertEquals(sockets.length, 1);
      assertEquals((await masterPids(control)).length, 1);
      assertEquals((await Deno.stat(control)).mode! & 0o777, 0o700);
      const closed = await c.ok<{ outcome: string }>("pty_close", { session_id: "r1", remote });
      assertEquals(closed.outcome, "closed");
      // Remote errors keep their code.
      assertEquals((await c.err("pty_read", { session_id: "nope", remote })).code, "SESSION_NOT_FOUND");
      // Without remote, the local server answers as before.
      assertEquals((await c.err("pty_read", { session_id: "r1" })).code, "SESSION_NOT_FOUND");
    } finally {
      await stopMasters(control);
    }
  },
);

Deno.test(
  "remote: bad input is INVALID_ARGUMENT before ssh; missing env and unreachable hosts fail clearly",
  opts,
  async () => {
    await using t = await makeTestEnv();
    const control = `${t.stateDir}/ssh`;
    try {
      await using c = await connect(t.env);
      const bad: Record<string, unknown>[] = [
        { host: "-oProxyCommand=x" },
        { host: "a b" },
        { host: "h", user: "-x" },
        { host: "h", port: 0 },
        { host: "h", port: 70000 },
        { host: "h", ssh_options: ["ProxyCommand x"] },
        { host: "h", ssh_options: Array.from({ length: 33 }, () => "A=b") },
        { host: "h", passphrase: "p", passphrase_env: "P" },
        { host: "h", passphrase_env: "1BAD" },
        { host: "h", extra: 1 },
      ];
      for (const remote of bad) {
        assertEquals((await c.err("pty_list", { remote })).code, "INVALID_ARGUMENT", JSON.stringify(remote));
      }
      assertEquals((await c.err("diagnostics", { remote: { host: "h" } })).code, "INVALID_ARGUMENT");
      assertEquals((await c.err("codex_agent", { remote: { host: "h" } })).code, "INVALID_ARGUMENT");
      assert(!(await Deno.stat(control).catch(() => null)), "ssh state was created for invalid input");
      const missing = await c.err("pty_list", { remote: { host: "127.0.0.1", passphrase_env: "AITERM_NO_SUCH_PP" } });
      assertEquals(missing.code, "REMOTE_PASSPHRASE_ENV_MISSING");
      const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (l.addr as Deno.NetAddr).port;
      l.close();
      const started = Date.now();
      const down = await c.err("pty_list", { remote: { host: "127.0.0.1", port } });
      assertEquals(down.code, "REMOTE_CONNECT_FAILED");
      assertStringIncludes(down.message, "refused");
      assert(Date.now() - started < 15_000, "the unreachable host took too long");
    } finally {
      await stopMasters(control);
    }
  },
);

Deno.test(
  "remote: a passphrase-protected key works through SSH_ASKPASS and is never written to disk",
  opts,
  async () => {
    await using sshd = await startSshd();
    await using t = await makeTestEnv();
    const control = `${t.stateDir}/ssh`;
    try {
      await using c = await connect(t.env);
      const remote = sshd.remote({ identity_file: sshd.lockedKey, passphrase: sshd.passphrase });
      const list = await c.ok<Record<string, unknown>>("pty_list", { remote });
      assertEquals(list.remote_host, "127.0.0.1");
      assert(!JSON.stringify(list).includes(sshd.passphrase));
      assertEquals(await filesContaining(t.root, sshd.passphrase), []);
      assertEquals(await filesContaining(sshd.remoteState, sshd.passphrase), []);
      // Without the passphrase (BatchMode) the locked key cannot log in: REMOTE_CONNECT_FAILED.
      await stopMasters(control);
      const denied = await c.err("pty_list", { remote: sshd.remote({ identity_file: sshd.lockedKey }) });
      assertEquals(denied.code, "REMOTE_CONNECT_FAILED");
      assert(!denied.text.includes(sshd.passphrase));
    } finally {
      await stopMasters(control);
    }
  },
);

Deno.test(
  "remote: agent_launch on the remote host; its wait_process (remote-wait over ssh) and answer come back",
  opts,
  async () => {
    const remoteHome = await Deno.makeTempDir({ dir: "/tmp", prefix: "ait-rh-" });
    await using sshd = await startSshd({
      CODEX_BIN: new URL("../fixtures/bin/codex", import.meta.url).pathname,
      CODEX_HOME: `${remoteHome}/.codex`,
    });
    await using t = await makeTestEnv();
    const control = `${t.stateDir}/ssh`;
    try {
      await using c = await connect(t.env);
      const remote = sshd.remote();
      const l = await c.ok<{
        session_id: string;
        event_cursor: number;
        wait_process: { executable: string; args: string[] };
        remote_host: string;
      }>("agent_launch", { harness: "codex-cli", cwd: remoteHome, prompt: "remote task", remote });
      assertEquals([l.event_cursor, l.remote_host], [0, "127.0.0.1"]);
      assert(l.wait_process.args.includes("remote-wait"), JSON.stringify(l.wait_process));
      assert(l.wait_process.args.includes("ssh"), "the waiter does not go through ssh");
      const waited = await new Deno.Command(l.wait_process.executable, {
        args: l.wait_process.args,
        env: t.env,
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assertEquals(waited.code, 0, new TextDecoder().decode(waited.stderr));
      assertStringIncludes(new TextDecoder().decode(waited.stdout), '"outcome":"done"');
      const a = await c.ok<{ text: string }>("pty_read", {
        session_id: l.session_id,
        agent_transcript: true,
        cursor: 0,
        remote,
      });
      assertStringIncludes(a.text, "ANSWER(");
      await c.ok("pty_close", { session_id: l.session_id, remote });
    } finally {
      await stopMasters(control);
      await Deno.remove(remoteHome, { recursive: true }).catch(() => {});
    }
  },
);
