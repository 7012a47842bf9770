import { assertEquals } from "../../../tests/helpers/assert.ts";
import { findGrokEntry, grokCommand } from "./register.ts";

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
