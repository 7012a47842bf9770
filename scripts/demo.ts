// deno-lint-ignore-file no-console
/**
 * `deno task demo`: acts as a real MCP client would. Starts the server over stdio with the SDK
 * client, opens a session, sends a multi-line script, reads the result back, closes, and prints
 * each step. Uses a throwaway state directory so it never touches your sessions.
 */
import { Client, StdioClientTransport } from "../lib/mcp/sdk.ts";
import type { CallToolResult } from "../lib/mcp/sdk.ts";

const main = new URL("../main.ts", import.meta.url).pathname;
const stateDir = await Deno.makeTempDir({ dir: "/tmp", prefix: "aiterm-demo-" });
const env = { ...Deno.env.toObject(), AITERM_STATE_DIR: stateDir, AITERM_LOG: "warn" };
delete (env as Record<string, string | undefined>).TMUX;

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
}

function step(title: string, body: string): void {
  console.log(`\n── ${title}\n${body}`);
}

const transport = new StdioClientTransport({
  command: Deno.execPath(),
  args: ["run", "-A", main],
  env,
  stderr: "inherit",
});
const client = new Client({ name: "aiterm-demo", version: "1" });
const t0 = performance.now();
await client.connect(transport);
step("connected", `server ${JSON.stringify(client.getServerVersion())} in ${Math.round(performance.now() - t0)} ms`);
try {
  const tools = await client.listTools();
  step("tools", tools.tools.map((t) => t.name).join(", "));

  const open = await client.callTool({ name: "pty_open", arguments: { cwd: stateDir } }) as CallToolResult;
  step("pty_open", text(open));
  if (open.isError) throw new Error("pty_open failed");
  const id = (open.structuredContent as { session_id: string }).session_id;

  const script = [
    "name=aiterm",
    "cat <<EOF",
    "hello from a heredoc, $name",
    "EOF",
    'for i in 1 2 3; do echo "line $i"; done',
    "cd / && pwd",
  ].join("\n");
  const sent = await client.callTool({
    name: "pty_send",
    arguments: { session_id: id, text: script },
  }) as CallToolResult;
  // One call per command: the send waits for the script and returns its verdict and output (docs/terminals.md).
  step("pty_send (a 6-line script; it waits and returns the output)", text(sent));

  const slow = await client.callTool({
    name: "pty_send",
    arguments: { session_id: id, text: "echo started; sleep 2; echo finished", timeout: 1 },
  }) as CallToolResult;
  step("pty_send (timeout 1 s: still running, it names the next call)", text(slow));
  const next = (slow.structuredContent as { next_call?: { tool: string; arguments: Record<string, unknown> } })
    .next_call;
  if (next) {
    const rest = await client.callTool({ name: next.tool, arguments: next.arguments }) as CallToolResult;
    step(`${next.tool} (the next_call it named)`, text(rest));
  }

  const close = await client.callTool({ name: "pty_close", arguments: { session_id: id } }) as CallToolResult;
  step("pty_close", text(close));
} finally {
  await client.close();
  new Deno.Command("tmux", { args: ["-S", `${stateDir}/tmux.sock`, "kill-server"], stderr: "null" }).outputSync();
  await Deno.remove(stateDir, { recursive: true }).catch(() => {});
}
