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
        wait: false,
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
    // AITERM_LEGACY_TOOLS=1: the deprecated codex_agent alias is served, and refuses remote below.
    const env = { ...t.env, PATH: `${rec.binDir}:${t.env.PATH}`, AITERM_LEGACY_TOOLS: "1" };
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

/**
 * ssh options a caller may not choose (issue 14 item 3), each with the option name the refusal must
 * name. `MARK` is replaced by a file that must never appear. Case, `Key Value`, `-oKey=value`, quotes
 * and tabs are how ssh itself accepts them.
 */
const REFUSED_OPTIONS: [string, string][] = [
  ["ProxyCommand=touch MARK", "ProxyCommand"],
  ["proxycommand=touch MARK", "ProxyCommand"],
  ["PROXYCOMMAND=touch MARK", "ProxyCommand"],
  ["pRoXyCoMmAnD=touch MARK", "ProxyCommand"],
  ["ProxyCommand touch MARK", "ProxyCommand"],
  ["ProxyCommand\ttouch MARK", "ProxyCommand"],
  ["-oProxyCommand=touch MARK", "ProxyCommand"],
  ["-o ProxyCommand=touch MARK", "ProxyCommand"],
  ['"ProxyCommand"=touch MARK', "ProxyCommand"],
  ["ProxyCommand =touch MARK", "ProxyCommand"],
  [" ProxyCommand=touch MARK", "ProxyCommand"],
  ["LocalCommand=touch MARK", "LocalCommand"],
  ["PermitLocalCommand=yes", "PermitLocalCommand"],
  ["KnownHostsCommand=/bin/sh -c 'touch MARK'", "KnownHostsCommand"],
  ['Match=exec "touch MARK"', "Match"],
  ['Match exec "touch MARK"', "Match"],
  ["Include=/etc/passwd", "Include"],
  ["PKCS11Provider=/tmp/ait-evil.so", "PKCS11Provider"],
  ["smartcarddevice=/tmp/ait-evil.so", "SmartcardDevice"],
  ["SecurityKeyProvider=/tmp/ait-evil.so", "SecurityKeyProvider"],
  ["ControlPath=/tmp/ait-shared-%C", "ControlPath"],
  ["ControlMaster=yes", "ControlMaster"],
  ["controlpersist=yes", "ControlPersist"],
  ["RemoteCommand=touch MARK", "RemoteCommand"],
  ["ProxyUseFdpass=yes", "ProxyUseFdpass"],
  ["XAuthLocation=/tmp/ait-xauth", "XAuthLocation"],
  ["EnableSSHKeysign=yes", "EnableSSHKeysign"],
  ["SendEnv=*", "SendEnv"],
  ["SetEnv=LD_PRELOAD=/tmp/x.so", "SetEnv"],
  ["ForwardAgent=yes", "ForwardAgent"],
  ["ForwardX11=yes", "ForwardX11"],
  ["IdentityAgent=/tmp/ait-agent.sock", "IdentityAgent"],
  ["LocalForward=127.0.0.1:1 127.0.0.1:22", "LocalForward"],
  ["RemoteForward=2222 127.0.0.1:22", "RemoteForward"],
  ["DynamicForward=1080", "DynamicForward"],
  ["AddKeysToAgent=yes", "AddKeysToAgent"],
  ["IgnoreUnknown=*", "IgnoreUnknown"],
  ["CanonicalizeHostname=always", "CanonicalizeHostname"],
  ["RequestTTY=force", "RequestTTY"],
  ["BatchMode=no", "BatchMode"],
  ["Hostname=127.0.0.2", "Hostname"],
  ["IdentityFile=/tmp/other", "IdentityFile"],
  ["UserKnownHostsFile=/tmp/${HOME}", "UserKnownHostsFile"],
  ["UserKnownHostsFile=/root/.bashrc", "UserKnownHostsFile"],
  ["HostKeyAlias=a;reboot", "HostKeyAlias"],
  ["ProxyJump=x$(touch MARK)", "ProxyJump"],
  ["ProxyJump=-oProxyCommand=touch", "ProxyJump"],
  ["ProxyJump=a b", "ProxyJump"],
  ["NoSuchOption=1", "NoSuchOption"],
];

Deno.test(
  "remote: ssh_options that run programs, load code or take over ssh's config/sockets are INVALID_ARGUMENT naming the option, even on read-only tools; ssh never runs",
  { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false },
  async () => {
    await using t = await makeTestEnv();
    const rec = await sshRecorder(t.root);
    const env = { ...t.env, PATH: `${rec.binDir}:${t.env.PATH}` };
    const mark = `${t.root}/ran-a-command`;
    try {
      await using c = await connect(env);
      for (const [raw, name] of REFUSED_OPTIONS) {
        const option = raw.replaceAll("MARK", mark);
        for (const [tool, args] of Object.entries(RELAYABLE)) {
          const remote = { host: "127.0.0.1", port: 9, ssh_options: ["IdentitiesOnly=yes", option] };
          const e = await c.err(tool, { ...args, remote });
          const why = `${tool}: ${JSON.stringify(option)}: ${e.code}: ${e.message}`;
          assertEquals(e.code, "INVALID_ARGUMENT", why);
          assertStringIncludes(e.message, "remote.ssh_options.1", why);
          assertStringIncludes(e.message.toLowerCase(), name.toLowerCase(), why);
          assertStringIncludes(e.message, "ssh_config", why);
        }
      }
      assertEquals(await rec.calls(), [], "ssh ran for a refused option");
      assert(!(await Deno.stat(mark).catch(() => null)), "a refused option ran a command");
      assert(!(await Deno.stat(`${t.stateDir}/ssh`).catch(() => null)), "ssh state was created for refused input");
      // The harmless ones still reach ssh as given (a closed port: the connect fails, nothing else).
      const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (l.addr as Deno.NetAddr).port;
      l.close();
      const fine = [
        "ProxyJump=none",
        "StrictHostKeyChecking=accept-new",
        `globalknownhostsfile=${t.root}/known_hosts`,
        "userknownhostsfile=none",
        "IdentitiesOnly=yes",
        "ConnectionAttempts=1",
        "ForwardAgent=no",
      ];
      const down = await c.err("pty_list", { remote: { host: "127.0.0.1", port, ssh_options: fine } });
      assertEquals(down.code, "REMOTE_CONNECT_FAILED", down.message);
      const calls = await rec.calls();
      assert(calls.length > 0, "ssh did not run for allowed options");
      for (const call of calls) for (const o of fine) assert(call.argv.includes(o), `${o}: ${call.argv.join(" ")}`);
    } finally {
      await stopMasters(`${t.stateDir}/ssh`);
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

/** The remote `aiterm-mcp serve` processes of this sshd's aiterm (its state dir tells them apart). */
async function remoteServers(remoteState: string): Promise<number> {
  let n = 0;
  for (const p of await processes()) {
    const i = p.argv.findIndex((a) => a.endsWith("/main.ts"));
    if (i < 0 || p.argv[i + 1] !== "serve") continue;
    const environ = await Deno.readTextFile(`/proc/${p.pid}/environ`).catch(() => "");
    if (environ.split("\0").includes(`AITERM_STATE_DIR=${remoteState}`)) n++;
  }
  return n;
}

/** Control sockets (not logs or the askpass helper) in the control directory. */
async function controlSockets(control: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(control)) if (!/\.(log|sh)$/.test(e.name)) names.push(e.name);
  return names.sort();
}

Deno.test(
  "remote: a kept connection or remote aiterm serves only the same credentials: an unauthorised key or passphrase after an authorised one is REMOTE_CONNECT_FAILED",
  opts,
  async () => {
    await using sshd = await startSshd();
    await using t = await makeTestEnv();
    const control = `${t.stateDir}/ssh`;
    const wrongInEnv = `wrong-env-${crypto.randomUUID()}`;
    const env = { ...t.env, AITERM_TEST_RIGHT_PP: sshd.passphrase, AITERM_TEST_WRONG_PP: wrongInEnv };
    try {
      await using c = await connect(env);
      const remoteLs = async () =>
        new TextDecoder().decode(
          (await new Deno.Command("tmux", {
            args: ["-S", `${sshd.remoteState}/tmux.sock`, "list-sessions", "-F", "#{session_name}"],
            stdout: "piped",
            stderr: "null",
          }).output()).stdout,
        );
      // The authorised key: a master and a kept remote aiterm.
      const opened = await c.ok<Record<string, unknown>>("pty_open", { name: "k1", remote: sshd.remote() });
      assertEquals(opened.remote_host, "127.0.0.1");
      assertEquals((await controlSockets(control)).length, 1);
      // Same host/port/user, a key the server does not accept: its own connection, refused.
      const stranger = sshd.remote({ identity_file: sshd.strangerKey });
      for (
        const [tool, args] of [["pty_list", {}], ["pty_open", { name: "k2" }], ["pty_close", { session_id: "k1" }]]
      ) {
        const e = await c.err(tool as string, { ...(args as Record<string, unknown>), remote: stranger });
        assertEquals(e.code, "REMOTE_CONNECT_FAILED", `${tool}: ${e.message}`);
        assertStringIncludes(e.message, "Permission denied");
      }
      // Nothing it asked for happened on the remote host.
      assert(!(await remoteLs()).includes("k2"), "the unauthorised key opened a remote session");
      assertStringIncludes(await remoteLs(), "k1");
      // Without an identity_file (ssh's defaults: none of them is authorised here) it is refused too.
      const { identity_file: _k, ...noKey } = sshd.remote();
      assertEquals((await c.err("pty_list", { remote: noKey })).code, "REMOTE_CONNECT_FAILED");
      // The locked key with its passphrase: another connection of its own.
      const locked = (extra: Record<string, unknown>) => sshd.remote({ identity_file: sshd.lockedKey, ...extra });
      await c.ok("pty_list", { remote: locked({ passphrase: sshd.passphrase }) });
      assertEquals((await controlSockets(control)).length, 2);
      // The same key with a wrong passphrase, from a value or from the environment, or with none: refused.
      const wrong = `wrong-${crypto.randomUUID()}`;
      for (const extra of [{ passphrase: wrong }, { passphrase_env: "AITERM_TEST_WRONG_PP" }, {}]) {
        const e = await c.err("pty_list", { remote: locked(extra) });
        assertEquals(e.code, "REMOTE_CONNECT_FAILED", `${JSON.stringify(extra)}: ${e.message}`);
        assert(!e.text.includes(wrong) && !e.text.includes(wrongInEnv) && !e.text.includes(sshd.passphrase), e.text);
      }
      // The right passphrase from the environment is a different source: it authenticates on its own and works.
      await c.ok("pty_list", { remote: locked({ passphrase_env: "AITERM_TEST_RIGHT_PP" }) });
      // Different ssh options are a different destination too.
      const opts2 = sshd.remote({ ssh_options: [...(sshd.remote().ssh_options as string[]), "Compression=no"] });
      await c.ok("pty_list", { remote: opts2 });
      const sockets = await controlSockets(control);
      assertEquals(sockets.length, 4, sockets.join(" "));
      // And a kept remote aiterm of its own for each (none serves another credential's calls).
      assertEquals(await remoteServers(sshd.remoteState), 4);
      // No socket name holds a passphrase; the control dir holds no secret.
      for (const secret of [sshd.passphrase, wrong, wrongInEnv]) {
        assert(!sockets.some((n) => n.includes(secret)));
        assertEquals(await filesContaining(t.root, secret), []);
      }
      // The authorised calls still work, on their kept connections (no new master).
      const before = (await masterPids(control)).length;
      const list = await c.ok<Record<string, unknown>>("pty_list", { remote: sshd.remote() });
      assertStringIncludes(JSON.stringify(list), "k1");
      await c.ok("pty_list", { remote: locked({ passphrase: sshd.passphrase }) });
      assertEquals((await masterPids(control)).length, before);
      assertEquals((await controlSockets(control)).length, 4);
      assertEquals(await remoteServers(sshd.remoteState), 4);
      await c.ok("pty_close", { session_id: "k1", remote: sshd.remote() });
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

Deno.test(
  "remote: a relayed wait and page fit the calling client (its limits travel with the call), one call per command",
  opts,
  async () => {
    await using sshd = await startSshd();
    await using t = await makeTestEnv({ AITERM_CALL_LIMIT_S: "10" });
    const control = `${t.stateDir}/ssh`;
    try {
      await using c = await connect(t.env, "codex-mcp-client");
      const remote = sshd.remote();
      await c.ok("pty_open", { name: "rl", remote });
      // One call: the remote aiterm's send waits and returns the output.
      const one = await c.ok<Record<string, unknown>>("pty_send", {
        session_id: "rl",
        text: "echo relay-$((6*7))",
        remote,
      });
      assertEquals(one.is_complete, true);
      assertStringIncludes(String(one.text), "relay-42");
      // Codex hands its model about 32 KB whole: a relayed page of a large output stays within it.
      await c.ok("pty_send", { session_id: "rl", text: "seq 1 40000", remote });
      const page = await c.ok<Record<string, unknown>>("pty_read", { session_id: "rl", cursor: 0, full: true, remote });
      assert(JSON.stringify(page).length <= 32 * 1024, `${JSON.stringify(page).length} bytes`);
      assertEquals(page.has_more, true);
      // The local cut (10 s → 7 s) less the relay's margin (3 s): the remote waits at most 4 s, and says why.
      await c.ok("pty_send", { session_id: "rl", text: "sleep 30", wait: false, remote });
      const capped = await c.ok<Record<string, unknown>>("pty_read", {
        session_id: "rl",
        wait: true,
        timeout: 600,
        remote,
      });
      assertEquals([capped.is_complete, capped.timeout_used], [false, 4]);
      assertMatch(String(capped.timeout_capped), /AITERM_CALL_LIMIT_S=10 \(relayed\)/);
      await c.ok("pty_close", { session_id: "rl", remote });
    } finally {
      await stopMasters(control);
    }
  },
);
