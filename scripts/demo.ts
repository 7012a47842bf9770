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
  step("pty_send (a 6-line script)", text(sent));

  const hasRead = tools.tools.some((t) => t.name === "pty_read");
  if (hasRead) {
    const read = await client.callTool({
      name: "pty_read",
      arguments: { session_id: id, wait: true, timeout: 10 },
    }) as CallToolResult;
    step("pty_read (wait:true)", text(read));
  } else {
    await new Promise((r) => setTimeout(r, 500));
    const cap = new Deno.Command("tmux", {
      args: ["-S", `${stateDir}/tmux.sock`, "capture-pane", "-p", "-t", `=${id}:`],
    })
      .outputSync();
    step("screen (capture-pane)", new TextDecoder().decode(cap.stdout).trimEnd());
  }

  const close = await client.callTool({ name: "pty_close", arguments: { session_id: id } }) as CallToolResult;
  step("pty_close", text(close));
} finally {
  await client.close();
  new Deno.Command("tmux", { args: ["-S", `${stateDir}/tmux.sock`, "kill-server"], stderr: "null" }).outputSync();
  await Deno.remove(stateDir, { recursive: true }).catch(() => {});
}
