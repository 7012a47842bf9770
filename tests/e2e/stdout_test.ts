/** Every byte the server writes to stdout is JSON-RPC, even while it logs and fails. */
import { assert, assertEquals } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { serverCommand } from "../helpers/mcp.ts";

Deno.test("every line on the server's stdout parses as JSON-RPC 2.0", { ignore: !hasTmux }, async () => {
  await using t = await makeTestEnv({ AITERM_LOG: "debug" });
  const { command, args } = serverCommand();
  const child = new Deno.Command(command, {
    args,
    env: t.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const requests = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "pty_open", arguments: { cwd: t.root } } },
    {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "pty_send", arguments: { session_id: "t1", text: "echo hi >&2; echo out" } },
    },
    {
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: { name: "pty_read", arguments: { session_id: "t1", wait: true } },
    },
    {
      jsonrpc: "2.0",
      id: 6,
      method: "tools/call",
      params: { name: "pty_send", arguments: { session_id: "missing", text: "x" } },
    },
    { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "diagnostics", arguments: {} } },
    { jsonrpc: "2.0", id: 8, method: "no/such/method" },
  ];
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const lines: string[] = [];
  for (const req of requests) {
    await writer.write(new TextEncoder().encode(JSON.stringify(req) + "\n"));
    if (!("id" in req)) continue;
    while (!lines.some((l) => l.includes(`"id":${req.id}`))) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      const parts = buf.split("\n");
      buf = parts.pop() ?? "";
      lines.push(...parts.filter((p) => p !== ""));
    }
  }
  await writer.close();
  await reader.cancel();
  await child.status;
  const stderr = await new Response(child.stderr).text();
  assert(stderr.includes('"level"'), "expected structured logs on stderr");
  assertEquals(lines.length, 8);
  for (const line of lines) {
    const msg = JSON.parse(line);
    assertEquals(msg.jsonrpc, "2.0");
  }
});
