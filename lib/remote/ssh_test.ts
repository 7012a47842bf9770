import { assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import { parseProbe, remoteCommand } from "./ssh.ts";

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
