import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { sameCommand, serverCommand } from "./server_command.ts";

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
