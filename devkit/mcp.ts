/** The real MCP SDK client over stdio against `deno run main.ts` (or a bundle, via AITERM_TEST_SERVER). */
import { Client, StdioClientTransport } from "../lib/mcp/sdk.ts";
import { SERVER_V8_FLAGS } from "../platform/self_command.ts";
import type { CallToolResult } from "../lib/mcp/sdk.ts";
import { type ServerCommand, serverCommand as setupServerCommand } from "../setup/server_command.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

/**
 * The command `aiterm-mcp setup` would register for this checkout (`deno run -A <main.ts>`), for tests that
 * install hooks in-process: inside `deno test` the main module is the test file, so it is named here.
 */
export function registeredServerCommand(): ServerCommand {
  return setupServerCommand(Deno.execPath(), false, new URL("../main.ts", import.meta.url).href);
}

/** argv that starts the server under test. AITERM_TEST_SERVER may name a bundle or compiled binary. */
export function serverCommand(): { command: string; args: string[] } {
  const override = Deno.env.get("AITERM_TEST_SERVER");
  if (override?.endsWith(".js")) return { command: Deno.execPath(), args: ["run", "-A", SERVER_V8_FLAGS, override] };
  if (override) return { command: override, args: [] };
  return { command: Deno.execPath(), args: ["run", "-A", SERVER_V8_FLAGS, MAIN] };
}

/** A connected client plus the server's pid. */
export interface TestClient extends AsyncDisposable {
  client: InstanceType<typeof Client>;
  pid: number;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** Calls a tool and returns its structuredContent, failing the test on isError. */
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Calls a tool that must fail; returns `{code, message, text}`. */
  err(name: string, args?: Record<string, unknown>): Promise<{ code: string; message: string; text: string }>;
  close(): Promise<void>;
}

/** Spawns a server with `env` and connects the SDK client. */
export async function connect(env: Record<string, string>, name = "aiterm-tests"): Promise<TestClient> {
  const { command, args } = serverCommand();
  const transport = new StdioClientTransport({ command, args, env, stderr: "pipe" });
  const client = new Client({ name, version: "0.0.0" });
  await client.connect(transport);
  const pid = transport.pid ?? -1;
  const call = async (tool: string, a: Record<string, unknown> = {}) =>
    (await client.callTool({ name: tool, arguments: a }, undefined, { timeout: 120_000 })) as CallToolResult;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.close().catch(() => {});
  };
  return {
    client,
    pid,
    call,
    async ok<T>(tool: string, a: Record<string, unknown> = {}) {
      const r = await call(tool, a);
      if (r.isError) throw new Error(`${tool} failed: ${JSON.stringify(r.content)}`);
      return r.structuredContent as T;
    },
    async err(tool: string, a: Record<string, unknown> = {}) {
      const r = await call(tool, a);
      if (!r.isError) throw new Error(`${tool} unexpectedly succeeded: ${JSON.stringify(r.structuredContent)}`);
      const sc = r.structuredContent as { code: string; message: string };
      const first = r.content[0];
      return { code: sc.code, message: sc.message, text: first && first.type === "text" ? first.text : "" };
    },
    close,
    async [Symbol.asyncDispose]() {
      await close();
    },
  };
}
