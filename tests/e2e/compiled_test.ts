/**
 * The e2e path against real `deno compile` binaries, built for this machine when the base runtime
 * can be had (downloaded, or DENORT_BIN). Offline without DENORT_BIN the build fails: the test is
 * then ignored with the reason printed, never silently. Release CI runs the whole e2e suite against
 * the binary as well (AITERM_TEST_SERVER, .github/workflows/release.yml).
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { Client, StdioClientTransport } from "../../lib/mcp/sdk.ts";
import type { CallToolResult } from "../../lib/mcp/sdk.ts";

const root = new URL("../../", import.meta.url).pathname;
const out = await Deno.makeTempDir({ dir: "/tmp", prefix: "ait-bin-" });

async function build(entry: string, name: string): Promise<string | null> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["compile", "-A", "--no-check", "-q", "-o", `${out}/${name}`, entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (r.success) return null;
  const lines = new TextDecoder().decode(r.stderr).split("\n").map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /error sending request|denort|DENORT|dns/i.test(l)) ?? lines.slice(-1)[0] ?? "unknown";
}

const failure = hasTmux ? (await build("main.ts", "aiterm-mcp")) ?? (await build("wait.ts", "aiterm-wait")) : "no tmux";
if (failure) {
  // deno-lint-ignore no-console
  console.warn(`compiled_test: ignored: cannot build the binaries here (${failure}); set DENORT_BIN to run it`);
  await Deno.remove(out, { recursive: true }).catch(() => {});
}

Deno.test("compiled aiterm-mcp: serves every tool from another cwd; receipts name the aiterm-wait beside it", {
  ignore: failure !== null,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await using t = await makeTestEnv({ CODEX_BIN: `${root}tests/fixtures/bin/codex` });
  t.env.CODEX_HOME = `${t.home}/.codex`;
  try {
    const version = await new Deno.Command(`${out}/aiterm-mcp`, { args: ["version"], stdout: "piped" }).output();
    assert(version.success, "version");
    const transport = new StdioClientTransport({ command: `${out}/aiterm-mcp`, args: [], env: t.env, cwd: t.root });
    const client = new Client({ name: "compiled-test", version: "1" });
    await client.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult;
      const tools = (await client.listTools()).tools.map((x) => x.name);
      for (const n of ["pty_open", "pty_send", "pty_read", "agent_launch", "diagnostics"]) assert(tools.includes(n), n);
      const open = await call("pty_open", { cwd: t.root });
      const id = (open.structuredContent as { session_id: string }).session_id;
      await call("pty_send", { wait: false, session_id: id, text: "echo compiled-$((40+2))" });
      const read = await call("pty_read", { session_id: id, wait: true });
      assertStringIncludes((read.structuredContent as { text: string }).text, "compiled-42");
      const launch = await call("agent_launch", { harness: "codex-cli", cwd: t.root, prompt: "hello" });
      const wp = (launch.structuredContent as { wait_process: { executable: string; args: string[] } }).wait_process;
      assertEquals(wp.executable, `${out}/aiterm-wait`);
      const waited = await new Deno.Command(wp.executable, {
        args: [...wp.args, "--timeout", "60"],
        env: t.env,
        clearEnv: true,
        stdout: "piped",
      }).output();
      assertEquals(waited.code, 0);
    } finally {
      await client.close();
    }
    // The hooks are subcommands of the binary itself.
    const hook = new Deno.Command(`${out}/aiterm-mcp`, {
      args: ["hook", "claude-post-tool-use"],
      env: t.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const w = hook.stdin.getWriter();
    await w.write(new TextEncoder().encode(JSON.stringify({ tool_use_id: "toolu_none" })));
    await w.close();
    assertEquals((await hook.output()).code, 0);
  } finally {
    await Deno.remove(out, { recursive: true }).catch(() => {});
  }
});
