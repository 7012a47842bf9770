/**
 * The deprecated aliases are off by default (issue 32 item 1, ADR 0036): tools/list holds the twelve main tools,
 * and calling an alias is TOOL_UNKNOWN naming the main tool and AITERM_LEGACY_TOOLS; with AITERM_LEGACY_TOOLS=1
 * the aliases are listed and served again. Through the real MCP SDK client.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, serverCommand } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };

const MAIN_TOOLS = [
  "diagnostics",
  "pty_open",
  "pty_send",
  "pty_read",
  "pty_key",
  "pty_observe",
  "pty_close",
  "pty_list",
  "agent_launch",
  "agent_models",
  "agent_approval",
  "agent_configure",
];
const ALIASES: [string, Record<string, unknown>, RegExp][] = [
  ["claude_agent", { prompt: "hi" }, /call agent_launch with harness "claude-code"/],
  ["codex_agent", { prompt: "hi" }, /call agent_launch with harness "codex-cli"/],
  ["grok_agent", {}, /call agent_launch with harness "grok-cli"/],
  ["claude_approval", { action: "inspect", session_id: "nope" }, /call agent_approval with the same arguments/],
];

Deno.test("by default tools/list holds the twelve main tools and an alias call is TOOL_UNKNOWN", opts, async () => {
  for (const value of [undefined, "", "0"]) {
    await using t = await makeTestEnv(value === undefined ? {} : { AITERM_LEGACY_TOOLS: value });
    await using c = await connect(t.env);
    const names = (await c.client.listTools()).tools.map((x) => x.name);
    assertEquals(names, MAIN_TOOLS, `AITERM_LEGACY_TOOLS=${value}`);
    for (const [alias, args, replacement] of ALIASES) {
      const r = await c.call(alias, args);
      assert(r.isError, `${alias} was served with AITERM_LEGACY_TOOLS=${value}`);
      const sc = r.structuredContent as { code: string; message: string; suggestion: string };
      assertEquals(sc.code, "TOOL_UNKNOWN");
      assertStringIncludes(sc.message, `"${alias}": it is a deprecated alias`);
      assertStringIncludes(sc.message, "AITERM_LEGACY_TOOLS=1");
      assertMatch(sc.suggestion, replacement);
      assertStringIncludes(sc.suggestion, "AITERM_LEGACY_TOOLS=1");
      assertStringIncludes(sc.suggestion, "setup --legacy-tools");
    }
    // A name that never was a tool keeps the plain answer.
    const other = await c.err("no_such_tool", {});
    assertEquals([other.code, other.message], ["TOOL_UNKNOWN", 'Cannot call tool "no_such_tool": no such tool']);
    assertEquals((await c.ok<{ sessions: unknown[] }>("pty_list")).sessions, [], "an alias call started something");
  }
});

Deno.test("AITERM_LEGACY_TOOLS=1 lists the four aliases after the main tools and serves them", opts, async () => {
  await using t = await makeTestEnv({ AITERM_LEGACY_TOOLS: "1" });
  await using c = await connect(t.env);
  const names = (await c.client.listTools()).tools.map((x) => x.name);
  assertEquals(names, [...MAIN_TOOLS, ...ALIASES.map(([a]) => a)]);
  // Served: each call reaches its tool's own validation or handler, not TOOL_UNKNOWN.
  assertEquals((await c.err("claude_agent", { harness: "codex-cli" })).code, "INVALID_ARGUMENT");
  assertEquals((await c.err("grok_agent", { trust_project: "yes" })).code, "INVALID_ARGUMENT");
  assertEquals((await c.err("claude_approval", { action: "inspect", session_id: "nope" })).code, "SESSION_NOT_FOUND");
});

Deno.test(
  "a value AITERM_LEGACY_TOOLS does not take stops the server before it serves (CONFIG_INVALID)",
  opts,
  async () => {
    await using t = await makeTestEnv();
    const { command, args } = serverCommand();
    for (const value of ["true", "yes", "2", "1 "]) {
      const r = await new Deno.Command(command, {
        args,
        env: { ...t.env, AITERM_LEGACY_TOOLS: value },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assertEquals(r.code, 2, value);
      assertEquals(new TextDecoder().decode(r.stdout), "", value);
      assertMatch(new TextDecoder().decode(r.stderr), /CONFIG_INVALID: AITERM_LEGACY_TOOLS=.* expected one of 0, 1/);
    }
  },
);
