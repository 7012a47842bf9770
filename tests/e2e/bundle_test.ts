/**
 * The closest offline stand-in for the compiled binary: `deno bundle` main.ts into one file, move it
 * away from the source tree, and drive it through MCP. Catches dynamic imports and files read next to
 * the source.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { Client, StdioClientTransport } from "../../lib/mcp/sdk.ts";
import type { CallToolResult } from "../../lib/mcp/sdk.ts";

const root = new URL("../../", import.meta.url).pathname;

Deno.test("a single-file bundle run from elsewhere serves every tool and names itself for waiters", {
  ignore: !hasTmux,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await using t = await makeTestEnv({ CODEX_BIN: new URL("../fixtures/bin/codex", import.meta.url).pathname });
  t.env.CODEX_HOME = `${t.home}/.codex`;
  const bundle = `${t.root}/elsewhere/aiterm.js`;
  await Deno.mkdir(`${t.root}/elsewhere`);
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "-q", "-o", bundle, "main.ts"],
    cwd: root,
    stderr: "piped",
  })
    .output();
  assert(built.success, new TextDecoder().decode(built.stderr));
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", bundle],
    env: t.env,
    cwd: t.root,
    stderr: "pipe",
  });
  const client = new Client({ name: "bundle-test", version: "1" });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((x) => x.name);
    for (const name of ["pty_open", "pty_send", "pty_read", "agent_launch", "agent_models"]) {
      assert(tools.includes(name), name);
    }
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    const open = await call("pty_open", { cwd: t.root });
    const id = (open.structuredContent as { session_id: string }).session_id;
    await call("pty_send", { wait: false, session_id: id, text: "x=41\necho from-bundle-$((x+1))" });
    const read = await call("pty_read", { session_id: id, wait: true });
    assertStringIncludes((read.structuredContent as { text: string }).text, "from-bundle-42");
    assertEquals((await call("pty_close", { session_id: id })).isError, undefined);
    // The waiter a receipt names is the bundle itself, not a file next to the source.
    const launch = await call("agent_launch", { harness: "codex-cli", cwd: t.root, prompt: "hello" });
    const wp =
      (launch.structuredContent as { wait_process: { executable: string; args: string[] } | null }).wait_process;
    assert(wp, JSON.stringify(launch.content));
    assertEquals(wp.args.slice(0, 4), ["run", "-A", bundle, "wait"]);
    const waited = await new Deno.Command(wp.executable, {
      args: [...wp.args, "--timeout", "60"],
      env: t.env,
      clearEnv: true,
      stdout: "piped",
    })
      .output();
    assertEquals(waited.code, 0);
    // Setup run from the bundle registers the bundle (not <bundle dir>/../main.ts), named a development command.
    const setup = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", bundle, "setup", "--dry-run"],
      env: t.env,
      clearEnv: true,
      cwd: t.root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const result = JSON.parse(new TextDecoder().decode(setup.stdout));
    assertEquals(result.server, { command: Deno.execPath(), args: ["run", "-A", bundle], development: true });
  } finally {
    await client.close();
  }
});
