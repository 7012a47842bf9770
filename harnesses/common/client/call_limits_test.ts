import { assertEquals, assertMatch } from "../../../tests/helpers/assert.ts";
import { callLimitsFor } from "../../clients/mod.ts";
import { blockWithin } from "./call_limits.ts";

Deno.test("blockWithin leaves 8 % of a client's cut (3 to 15 s) for the work around the wait", () => {
  assertEquals(
    [120_000, 300_000, 60_000, 30_000, 8_000, 2_000, 86_400_000].map(blockWithin),
    [110_000, 285_000, 55_000, 27_000, 5_000, 1_000, 86_385_000],
  );
});

Deno.test("each client's cut and result size, from its name and its own settings", async () => {
  const claude = callLimitsFor("claude-code", {});
  assertEquals([claude.clientCutMs, claude.maxBlockMs, claude.maxResultBytes], [120_000, 110_000, 65_000]);
  assertMatch(claude.source, /moved to the background/);
  // Its own variables: a lower hard limit cuts first; a later background move; a larger output allowance.
  const hard = callLimitsFor("claude-code", { MCP_TOOL_TIMEOUT: "30000", MAX_MCP_OUTPUT_TOKENS: "50000" });
  assertEquals([hard.maxBlockMs, hard.maxResultBytes], [27_000, 130_000]);
  assertMatch(hard.source, /MCP_TOOL_TIMEOUT=30000/);
  assertEquals(callLimitsFor("claude-code", { CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS: "600000" }).maxBlockMs, 585_000);
  assertEquals(callLimitsFor("claude-code", { MCP_TOOL_TIMEOUT: "junk" }).maxBlockMs, 110_000);

  const home = await Deno.makeTempDir();
  try {
    const codex = callLimitsFor("codex-mcp-client", { CODEX_HOME: home });
    assertEquals([codex.clientCutMs, codex.maxBlockMs, codex.maxResultBytes], [300_000, 285_000, 32_768]);
    // aiterm's entry in Codex's config.toml; another server's value is not ours.
    await Deno.writeTextFile(
      `${home}/config.toml`,
      '[mcp_servers.other]\ntool_timeout_sec = 5\n[mcp_servers.aiterm]\ncommand = "x"\ntool_timeout_sec = 30\n',
    );
    const set = callLimitsFor("codex-mcp-client", { CODEX_HOME: home });
    assertEquals(set.maxBlockMs, 27_000);
    assertMatch(set.source, /30 s \(tool_timeout_sec in config.toml\)/);
    await Deno.writeTextFile(`${home}/config.toml`, "not [ toml");
    assertEquals(callLimitsFor("codex-mcp-client", { CODEX_HOME: home }).maxBlockMs, 285_000);
    // Found through HOME when CODEX_HOME is unset.
    await Deno.mkdir(`${home}/.codex`);
    await Deno.writeTextFile(`${home}/.codex/config.toml`, "[mcp_servers.aiterm]\ntool_timeout_sec = 600\n");
    assertEquals(callLimitsFor("codex-mcp-client", { HOME: home }).maxBlockMs, 585_000);
  } finally {
    await Deno.remove(home, { recursive: true });
  }

  const other = callLimitsFor("some-client", {});
  assertEquals([other.maxBlockMs, other.maxResultBytes], [55_000, 1024 * 1024]);
  assertEquals(callLimitsFor(undefined, {}).maxBlockMs, 55_000);
  // A user's override wins over what the client says.
  const over = callLimitsFor("claude-code", {}, { cutS: 600, resultBytes: 20_000 });
  assertEquals([over.maxBlockMs, over.maxResultBytes, over.source], [585_000, 20_000, "AITERM_CALL_LIMIT_S=600"]);
});
