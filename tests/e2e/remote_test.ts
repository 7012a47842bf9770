/** The remote relay through the real MCP client, against a private loopback sshd (tests/helpers/sshd.ts). */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import type { StdioClientTransport } from "../../lib/mcp/sdk.ts";
import {
  filesContaining,
  hasSshd,
  masterPids,
  processes,
  sshRecorder,
  startSshd,
  stopMasters,
} from "../helpers/sshd.ts";

if (!hasSshd) {
  // deno-lint-ignore no-console
  console.warn("remote_test: ignored: /usr/sbin/sshd missing or not root (apt-get install -y openssh-server)");
}
const opts = { ignore: !hasTmux || !hasSshd, sanitizeOps: false, sanitizeResources: false };

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

/** Minimal valid arguments of every tool that takes `remote`, so only `remote` can be wrong. */
const RELAYABLE: Record<string, Record<string, unknown>> = {
  pty_open: {},
  pty_send: { session_id: "x", text: "y" },
  pty_read: { session_id: "x" },
  pty_key: { session_id: "x", key: "Enter" },
  pty_close: { session_id: "x" },
  pty_observe: { session_id: "x" },
  pty_list: {},
  agent_launch: { harness: "codex-cli", cwd: "/tmp" },
  agent_models: { harness: "codex-cli" },
};

/** `remote` values that must be refused before ssh runs, with what makes each one wrong. */
const HOSTILE: [string, Record<string, unknown>][] = [
  ["host as an ssh option", { host: "-oProxyCommand=touch /tmp/ait-pwned" }],
  ["host as a bare flag", { host: "-p" }],
  ["host with a space", { host: "a b" }],
  ["host with a space before an option", { host: "h -oProxyCommand=x" }],
  ["host with a newline", { host: "h\n-oProxyCommand=x" }],
  ["host with a carriage return", { host: "h\r" }],
  ["host with a tab", { host: "h\tx" }],
  ["host with shell syntax", { host: "h;id" }],
  ["host with a substitution", { host: "$(id)" }],
  ["empty host", { host: "" }],
  ["host over 255 characters", { host: "a".repeat(256) }],
  ["user as an option", { host: "h", user: "-oProxyCommand=x" }],
  ["user with a space", { host: "h", user: "a b" }],
  ["user with a newline", { host: "h", user: "u\nx" }],
  ["user with shell syntax", { host: "h", user: "u;id" }],
  ["port 0", { host: "h", port: 0 }],
  ["port over 65535", { host: "h", port: 70000 }],
  ["fractional port", { host: "h", port: 22.5 }],
  ["port as a string", { host: "h", port: "22" }],
  ["identity_file with a newline", { host: "h", identity_file: "k\n-oProxyCommand=x" }],
  ["ssh option without '='", { host: "h", ssh_options: ["ProxyCommand x"] }],
  ["ssh option as a flag", { host: "h", ssh_options: ["-oProxyCommand=x"] }],
  ["ssh option with an empty key", { host: "h", ssh_options: ["=x"] }],
  ["ssh option with a leading space", { host: "h", ssh_options: [" BatchMode=no"] }],
  ["ssh option with a newline in the value", { host: "h", ssh_options: ["User=x\nProxyCommand=y"] }],
  ["33 ssh options", { host: "h", ssh_options: Array.from({ length: 33 }, () => "ConnectionAttempts=1") }],
  ["passphrase with passphrase_env", { host: "h", passphrase: "p", passphrase_env: "P" }],
  ["empty passphrase", { host: "h", passphrase: "" }],
  ["passphrase_env not a variable name", { host: "h", passphrase_env: "1BAD" }],
  ["passphrase_env with a dash", { host: "h", passphrase_env: "A-B" }],
  ["unknown field", { host: "h", extra: 1 }],
];

Deno.test(
  "remote: hostile or malformed remote input is INVALID_ARGUMENT on every tool and ssh never runs; nor with an unsafe control dir",
  opts,
  async () => {
    await using t = await makeTestEnv();
    const rec = await sshRecorder(t.root);
    const env = { ...t.env, PATH: `${rec.binDir}:${t.env.PATH}` };
    const control = `${t.stateDir}/ssh`;
    try {
      await using c = await connect(env);
      for (const [why, remote] of HOSTILE) {
        for (const [tool, args] of Object.entries(RELAYABLE)) {
          const e = await c.err(tool, { ...args, remote });
          assertEquals(e.code, "INVALID_ARGUMENT", `${tool}: ${why}`);
          assertStringIncludes(e.message, "remote", `${tool}: ${why}`);
        }
      }
      // Tools that never relay do not take remote at all.
      assertEquals((await c.err("diagnostics", { remote: { host: "h" } })).code, "INVALID_ARGUMENT");
      assertEquals((await c.err("codex_agent", { remote: { host: "h" } })).code, "INVALID_ARGUMENT");
      assertEquals(await rec.calls(), [], "ssh ran for invalid input");
      assert(!(await Deno.stat(control).catch(() => null)), "ssh state was created for invalid input");
      assert(!(await Deno.stat("/tmp/ait-pwned").catch(() => null)), "a ProxyCommand ran");
      // The limits themselves are allowed: 32 options reach ssh (and a refused port fails as a connect).
      const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (l.addr as Deno.NetAddr).port;
      l.close();
      const options = Array.from({ length: 32 }, () => "ConnectionAttempts=1");
      const started = Date.now();
      const down = await c.err("pty_list", { remote: { host: "127.0.0.1", port, ssh_options: options } });
      assertEquals(down.code, "REMOTE_CONNECT_FAILED");
      assertStringIncludes(down.message, "refused");
      assert(Date.now() - started < 15_000, "the unreachable host took too long");
      const calls = await rec.calls();
      assert(calls.length > 0, "ssh did not run for valid input");
      for (const call of calls) {
        assertEquals(call.argv.filter((a) => a === "ConnectionAttempts=1").length, 32, JSON.stringify(call.argv));
        // The host is always after "--": it can never be read as an option.
        assertEquals(call.argv.at(-1), "127.0.0.1");
        assertEquals(call.argv.at(-2), "--");
        assert(call.argv.includes("BatchMode=yes"), "no passphrase, yet ssh may prompt");
      }
      // A control directory that others could use is refused before ssh runs, and left as it is.
      assertEquals((await Deno.stat(control)).mode! & 0o777, 0o700);
      await Deno.chmod(control, 0o755);
      const unsafe = await c.err("pty_list", { remote: { host: "127.0.0.1", port } });
      assertEquals(unsafe.code, "REMOTE_CONTROL_DIR_UNSAFE");
      assertStringIncludes(unsafe.message, "0755");
      assertEquals((await rec.calls()).length, calls.length, "ssh ran with an unsafe control directory");
      assertEquals((await Deno.stat(control)).mode! & 0o777, 0o755);
    } finally {
      await stopMasters(control);
    }
  },
);

Deno.test(
  "remote: a missing passphrase_env variable is REMOTE_PASSPHRASE_ENV_MISSING before ssh runs",
  opts,
  async () => {
    await using t = await makeTestEnv();
    const rec = await sshRecorder(t.root);
    const env: Record<string, string> = { ...t.env, PATH: `${rec.binDir}:${t.env.PATH}`, AITERM_EMPTY_PP: "" };
    delete env.AITERM_NO_SUCH_PP;
    await using c = await connect(env);
    for (const name of ["AITERM_NO_SUCH_PP", "AITERM_EMPTY_PP"]) {
      const e = await c.err("pty_open", { name: "p1", remote: { host: "127.0.0.1", passphrase_env: name } });
      assertEquals(e.code, "REMOTE_PASSPHRASE_ENV_MISSING");
      assertStringIncludes(e.message, name);
    }
    assertEquals(await rec.calls(), [], "ssh ran without the passphrase");
    // Nothing else happened: no askpass helper, no log, no socket, no local session.
    assertEquals(await Array.fromAsync(Deno.readDir(`${t.stateDir}/ssh`)).catch(() => []), []);
    assert((await t.tmux("has-session", "-t", "p1")).code !== 0, "a local session was opened");
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
  "remote: a wrong passphrase is REMOTE_CONNECT_FAILED with ssh's reason; it is never shown, stored, logged or in argv",
  opts,
  async () => {
    await using sshd = await startSshd();
    await using t = await makeTestEnv({ AITERM_LOG: "debug" });
    const rec = await sshRecorder(t.root);
    const wrong = `wrong-${crypto.randomUUID()}`;
    const wrongInEnv = `wrong-env-${crypto.randomUUID()}`;
    const env = { ...t.env, PATH: `${rec.binDir}:${t.env.PATH}`, AITERM_TEST_PP: wrongInEnv };
    const control = `${t.stateDir}/ssh`;
    try {
      await using c = await connect(env);
      let serverLog = "";
      (c.client.transport as InstanceType<typeof StdioClientTransport>).stderr?.on("data", (d: unknown) => {
        serverLog += String(d);
      });
      // Watch every process's argv while the calls run.
      let watching = true;
      const inArgv: string[] = [];
      const watcher = (async () => {
        while (watching) {
          for (const p of await processes()) {
            if (p.argv.some((a) => a.includes(wrong) || a.includes(wrongInEnv))) inArgv.push(p.argv.join(" "));
          }
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const byValue = await c.err("pty_open", {
        name: "w1",
        remote: sshd.remote({ identity_file: sshd.lockedKey, passphrase: wrong }),
      });
      const byEnv = await c.err("pty_open", {
        name: "w2",
        remote: sshd.remote({ identity_file: sshd.lockedKey, passphrase_env: "AITERM_TEST_PP" }),
      });
      watching = false;
      await watcher;
      for (const e of [byValue, byEnv]) {
        assertEquals(e.code, "REMOTE_CONNECT_FAILED");
        assertStringIncludes(e.message, "Permission denied");
        for (const secret of [wrong, wrongInEnv]) assert(!JSON.stringify(e).includes(secret), e.text);
      }
      // ssh could only ask through the askpass helper (forced), never on a terminal.
      const calls = await rec.calls();
      assert(calls.length >= 2, "ssh did not run");
      for (const call of calls) {
        assertEquals([call.askpassRequire, call.askpass], ["force", true], JSON.stringify(call.argv));
        assert(call.argv.includes("KbdInteractiveAuthentication=no"), JSON.stringify(call.argv));
        assert(call.argv.includes("PasswordAuthentication=no"), JSON.stringify(call.argv));
      }
      // Nothing was typed or opened anywhere.
      assert((await t.tmux("has-session", "-t", "w1")).code !== 0, "a local session was opened");
      assert(!(await Deno.stat(`${sshd.remoteState}/tmux.sock`).catch(() => null)), "the remote aiterm started tmux");
      // The wrong passphrases are nowhere: argv, files (state, control dir, ssh logs, sshd), server log.
      assertEquals(inArgv, []);
      for (const secret of [wrong, wrongInEnv]) {
        assertEquals(await filesContaining(t.root, secret), []);
        assertEquals(await filesContaining(sshd.root, secret), []);
        assert(!serverLog.includes(secret), "the server log holds the passphrase");
      }
      assertStringIncludes(serverLog, "REMOTE_CONNECT_FAILED");
      // A failed login leaves nothing behind that would spoil the right passphrase.
      const ok = await c.ok<Record<string, unknown>>("pty_list", {
        remote: sshd.remote({ identity_file: sshd.lockedKey, passphrase: sshd.passphrase }),
      });
      assertEquals(ok.remote_host, "127.0.0.1");
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
