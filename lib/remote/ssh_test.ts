import { assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import type { AppError } from "../errors.ts";
import { controlDirFor, controlDirProblem, parseProbe, remoteCommand } from "./ssh.ts";

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
