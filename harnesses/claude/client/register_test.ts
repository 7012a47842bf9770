import { assertEquals } from "../../../tests/helpers/assert.ts";
import { parseClaudeMcpGet } from "./register.ts";

Deno.test("claude mcp get output (Claude Code 2.1.328): scope, status, issue, command", () => {
  const ok = [
    "aiterm:",
    "  Scope: User config (available in all your projects)",
    "  Status: ✔ Connected",
    "  Type: stdio",
    "  Command: /opt/aiterm/aiterm-mcp",
    "  Args: ",
    "  Environment:",
    "",
    "To remove this server, run: claude mcp remove aiterm -s user",
  ].join("\n");
  assertEquals(parseClaudeMcpGet(ok), {
    scope: "User config (available in all your projects)",
    status: "✔ Connected",
    command: "/opt/aiterm/aiterm-mcp",
  });
  const bad =
    "aiterm:\n  Scope: User config\n  Status: ✘ Failed to connect\n  Issue: ENOENT: no such file\n  Command: /x\n";
  assertEquals(parseClaudeMcpGet(bad).issue, "ENOENT: no such file");
});
