import { assertEquals } from "../../../tests/helpers/assert.ts";
import { codexTransport } from "./register.ts";

Deno.test("codex mcp get --json (Codex 0.169.0): the stdio transport", () => {
  const entry = {
    name: "aiterm",
    enabled: true,
    transport: { type: "stdio", command: "/opt/a", args: ["x"], env: null, env_vars: [], cwd: null },
  };
  assertEquals(codexTransport(entry), { command: "/opt/a", args: ["x"], env: null });
  assertEquals(codexTransport({ name: "aiterm", transport: { type: "streamable_http", url: "http://x" } }), null);
});
