import { assert, assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import type { AppError } from "../../base/errors.ts";
import { loadConfig } from "../../base/config.ts";
import { controlDirFor, controlDirProblem, parseProbe, remoteCommand, SshConnections, sshInvocation } from "./ssh.ts";

Deno.test("parseProbe tells POSIX, cmd and PowerShell apart and ignores profile noise", () => {
  assertEquals(parseProbe("motd line\naiterm-probe %OS%\n"), "posix");
  assertEquals(parseProbe("aiterm-probe Windows_NT $PSHOME\r\n"), "cmd");
  assertEquals(parseProbe("aiterm-probe\r\n%OS%\r\nC:\\Program Files\\PowerShell\\7\r\n"), "powershell");
  assertEquals(parseProbe("nothing"), null);
});

Deno.test("remoteCommand runs aiterm-mcp under /bin/sh with only PATH from the login shell", () => {
  const posix = remoteCommand("posix", "wait", ["--session", "a1", "--cursor", "3"]);
  assertStringIncludes(posix, "/bin/sh -c '");
  assertStringIncludes(posix, "exec aiterm-mcp wait --session a1 --cursor 3");
  assertEquals(remoteCommand("cmd", "serve"), "aiterm-mcp serve");
  assertEquals(remoteCommand("powershell", "wait", ["--session", "a1"]), "aiterm-wait --session a1");
});

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as AppError).code;
  }
  return "no error";
}

Deno.test("controlDirFor creates the control directory 0700 and refuses one with another mode, owner or a link", async () => {
  const root = await Deno.makeTempDir();
  try {
    // Created fresh (even under a missing state root), owner-only whatever the umask.
    const fresh = `${root}/state`;
    assertEquals(controlDirFor(fresh), `${fresh}/ssh`);
    assertEquals(Deno.statSync(`${fresh}/ssh`).mode! & 0o7777, 0o700);
    assertEquals(controlDirFor(fresh), `${fresh}/ssh`);
    // An existing directory with group/other bits is refused, not silently repaired.
    for (const mode of [0o755, 0o701, 0o770, 0o1700]) {
      Deno.chmodSync(`${fresh}/ssh`, mode);
      assertEquals(codeOf(() => controlDirFor(fresh)), "REMOTE_CONTROL_DIR_UNSAFE", mode.toString(8));
      assertEquals(Deno.statSync(`${fresh}/ssh`).mode! & 0o7777, mode);
    }
    Deno.chmodSync(`${fresh}/ssh`, 0o700);
    assertEquals(controlDirFor(fresh), `${fresh}/ssh`);
    // A link (even to a private directory) or a file is refused.
    const linked = `${root}/linked`;
    Deno.mkdirSync(`${root}/elsewhere`, { mode: 0o700 });
    Deno.mkdirSync(linked, { mode: 0o700 });
    Deno.symlinkSync(`${root}/elsewhere`, `${linked}/ssh`);
    assertEquals(codeOf(() => controlDirFor(linked)), "REMOTE_CONTROL_DIR_UNSAFE");
    const file = `${root}/file`;
    Deno.mkdirSync(file, { mode: 0o700 });
    Deno.writeTextFileSync(`${file}/ssh`, "");
    assertEquals(codeOf(() => controlDirFor(file)), "REMOTE_CONTROL_DIR_UNSAFE");
    // Another user's directory (only root can hand one over to test this).
    if (Deno.uid() === 0) {
      Deno.chownSync(`${fresh}/ssh`, 65534, null);
      const err = (() => {
        try {
          controlDirFor(fresh);
        } catch (e) {
          return e as AppError;
        }
        return null;
      })();
      assertEquals(err?.code, "REMOTE_CONTROL_DIR_UNSAFE");
      assertStringIncludes(err!.message, "uid 65534");
      assertEquals(controlDirProblem(`${fresh}/ssh`), "it belongs to uid 65534, not 0");
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("connection keys differ for every credential difference and never hold the passphrase", async () => {
  const controlDir = await Deno.makeTempDir();
  try {
    const env = { HOME: "/nonexistent", AITERM_PP_A: "secret-a", AITERM_PP_B: "secret-b" };
    const ssh = new SshConnections();
    const keyOf = async (target: Record<string, unknown>, extraEnv: Record<string, string> = {}) => {
      const merged = { ...env, ...extraEnv };
      const inv = await sshInvocation({
        target: { host: "h", ...target } as never,
        controlDir,
        env: merged,
        sshConfig: loadConfig(merged).sshConfig,
      }, ssh);
      const path = inv.args.find((a) => a.startsWith("ControlPath="));
      assertEquals(path, `ControlPath=${controlDir}/c-${inv.connection}`);
      return inv.connection;
    };
    const base = await keyOf({ user: "u", port: 22, identity_file: "/k1" });
    assertEquals(await keyOf({ user: "u", port: 22, identity_file: "/k1" }), base, "same destination, same key");
    const variants: [string, Record<string, unknown>, Record<string, string>?][] = [
      ["identity file", { user: "u", port: 22, identity_file: "/k2" }],
      ["no identity file", { user: "u", port: 22 }],
      ["options", { user: "u", port: 22, identity_file: "/k1", ssh_options: ["IdentitiesOnly=yes"] }],
      ["passphrase", { user: "u", port: 22, identity_file: "/k1", passphrase: "secret-a" }],
      ["other passphrase", { user: "u", port: 22, identity_file: "/k1", passphrase: "secret-b" }],
      ["passphrase from env", { user: "u", port: 22, identity_file: "/k1", passphrase_env: "AITERM_PP_A" }],
      ["other env var", { user: "u", port: 22, identity_file: "/k1", passphrase_env: "AITERM_PP_B" }],
      ["ssh config", { user: "u", port: 22, identity_file: "/k1" }, { AITERM_SSH_CONFIG: "/etc/other" }],
      ["user", { user: "v", port: 22, identity_file: "/k1" }],
      ["port", { user: "u", port: 23, identity_file: "/k1" }],
      ["host", { host: "h2", user: "u", port: 22, identity_file: "/k1" }],
    ];
    const seen = new Set([base]);
    for (const [why, target, extraEnv] of variants) {
      const k = await keyOf(target, extraEnv);
      assert(!seen.has(k), `${why}: shares a connection key`);
      seen.add(k);
      for (const secret of ["secret-a", "secret-b"]) assert(!k.includes(secret));
    }
    // The same passphrase again: the same key within this process (the kept connection is reused).
    assertEquals(
      await keyOf({ user: "u", port: 22, identity_file: "/k1", passphrase: "secret-a" }),
      await keyOf({ user: "u", port: 22, identity_file: "/k1", passphrase: "secret-a" }),
    );
    // A refused option never yields an argv, even when the schema was bypassed (a stored record).
    const err = await sshInvocation({
      target: { host: "h", ssh_options: ["ProxyCommand=touch /tmp/x"] } as never,
      controlDir,
      env,
      sshConfig: null,
    }, ssh).catch((e) => e as AppError);
    assertEquals((err as AppError).code, "INVALID_ARGUMENT");
    assertStringIncludes((err as AppError).message, "ProxyCommand");
  } finally {
    await Deno.remove(controlDir, { recursive: true });
  }
});
