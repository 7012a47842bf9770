import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { codexTransport, findGrokEntry, grokCommand, parseClaudeMcpGet } from "./clients.ts";
import { sameCommand, serverCommand } from "./server_command.ts";

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

Deno.test("codex mcp get --json (Codex 0.169.0): the stdio transport", () => {
  const entry = {
    name: "aiterm",
    enabled: true,
    transport: { type: "stdio", command: "/opt/a", args: ["x"], env: null, env_vars: [], cwd: null },
  };
  assertEquals(codexTransport(entry), { command: "/opt/a", args: ["x"], env: null });
  assertEquals(codexTransport({ name: "aiterm", transport: { type: "streamable_http", url: "http://x" } }), null);
});

Deno.test("grok mcp list --json: the entry is found in arrays, maps and wrappers", () => {
  const flat = { name: "aiterm", command: "/a", args: [] };
  assertEquals(findGrokEntry([{ name: "other" }, flat], "aiterm"), flat);
  assertEquals(findGrokEntry({ aiterm: { command: "/a" } }, "aiterm"), { name: "aiterm", command: "/a" });
  assertEquals(findGrokEntry({ servers: [flat] }, "aiterm"), flat);
  assertEquals(findGrokEntry({ mcp_servers: { aiterm: { command: "/a" } } }, "aiterm")?.command, "/a");
  assertEquals(findGrokEntry([{ name: "other" }], "aiterm"), null);
  assertEquals(grokCommand({ name: "aiterm", transport: { command: "/a", args: ["b"] } }), {
    command: "/a",
    args: ["b"],
  });
  assertEquals(grokCommand({ name: "aiterm", enabled: true }), null);
});

Deno.test("the registered command: compiled binary alone, aiterm-setup's sibling, or deno run -A main.ts", async () => {
  assertEquals(serverCommand("/opt/aiterm/aiterm-mcp", true), { command: "/opt/aiterm/aiterm-mcp", args: [] });
  const dir = await Deno.makeTempDir({ prefix: "aiterm-setup-cmd-" });
  try {
    await Deno.writeTextFile(`${dir}/aiterm-mcp`, "");
    assertEquals(serverCommand(`${dir}/aiterm-setup`, true), { command: `${dir}/aiterm-mcp`, args: [] });
    await Deno.remove(`${dir}/aiterm-mcp`);
    let code = "";
    try {
      serverCommand(`${dir}/aiterm-setup`, true);
    } catch (err) {
      code = (err as { reasonCode?: string }).reasonCode ?? "";
    }
    assertEquals(code, "server_binary_not_found");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const src = serverCommand("/usr/bin/deno", false, "file:///src/aiterm/main.ts");
  assertEquals(src, { command: "/usr/bin/deno", args: ["run", "-A", "/src/aiterm/main.ts"] });
  // Run from a bundle, the server is the bundle itself (there is no main.ts beside it).
  assertEquals(serverCommand("/usr/bin/deno", false, "file:///opt/dist/aiterm.js").args, [
    "run",
    "-A",
    "/opt/dist/aiterm.js",
  ]);
  assert(sameCommand("/a", undefined, { command: "/a", args: [] }));
  assert(!sameCommand("/a", ["x"], { command: "/a", args: [] }));
});
