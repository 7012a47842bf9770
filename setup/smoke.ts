/**
 * The smoke test: start the server command exactly as a client will (the MCP SDK client over
 * stdio), open a terminal with pty_open, type a command with pty_send, read its output with
 * pty_read, close it with pty_close. It runs with a throwaway state directory, whose private tmux
 * server is killed and whose files are removed afterwards.
 */
import { knobEnv, knobFrom, VAR_PREFIX } from "../base/config.ts";
import { join } from "node:path";
import { type CallToolResult, Client, StdioClientTransport } from "../lib/mcp/mod.ts";
import { createTmux } from "../platform/mod.ts";
import { VERSION } from "../base/version.ts";
import { SetupFailure } from "../harnesses/clients/mod.ts";
import { currentOs, makeShortTempDir, smokeProbe } from "./platform_deps.ts";
import type { ServerCommand } from "./server_command.ts";

const CALL_TIMEOUT_MS = 30_000;

/** What the smoke test proved. */
export interface SmokeReport {
  detail: string;
}

function textOf(r: CallToolResult): string {
  const first = r.content[0];
  return first && first.type === "text" ? first.text.slice(0, 300) : "";
}

/** The environment the server gets: the caller's, minus tmux/aiterm variables, with a throwaway state dir. */
function smokeEnv(env: Record<string, string>, stateDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (k === "TMUX" || k === "TMUX_PANE" || k.startsWith(VAR_PREFIX)) continue;
    out[k] = v;
  }
  Object.assign(out, knobEnv({ tmuxBin: knobFrom(env, "tmuxBin"), stateDir, log: "warn" }));
  // The smoke test's shell keeps no history: "changes nothing" includes ~/.bash_history and ~/.zsh_history.
  out.HISTFILE = "/dev/null";
  return out;
}

/** Runs the smoke test. Throws {@link SetupFailure} `smoke_failed` with the step that failed. */
export async function smokeTest(server: ServerCommand, env: Record<string, string>): Promise<SmokeReport> {
  const root = await makeShortTempDir("aits-");
  const stateDir = join(root, "s");
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: smokeEnv(env, stateDir),
    cwd: root,
    stderr: "pipe",
  });
  let stderrTail = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    stderrTail = (stderrTail + (typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk))).slice(-2000);
  });
  const client = new Client({ name: "aiterm-setup", version: VERSION });
  let stage = "start the server";
  const call = async (name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    stage = name;
    const r =
      (await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
    if (r.isError) throw new Error(textOf(r) || "the tool reported an error");
    return (r.structuredContent ?? {}) as Record<string, unknown>;
  };
  try {
    await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
    const info = client.getServerVersion();
    if (info?.name !== "aiterm") throw new Error(`the command started "${info?.name ?? "?"}", not aiterm`);
    const probe = smokeProbe();
    const opened = await call("pty_open", {
      name: `setup-${crypto.randomUUID().slice(0, 8)}`,
      cwd: root,
      env_vars: ["HISTFILE"],
    });
    const id = String(opened.session_id ?? "");
    // One call per command: the send waits and carries the output; should it not (a slow machine), the log from the
    // send's cursor is read until the text comes.
    const sent = await call("pty_send", { session_id: id, text: probe.text });
    const read = String(sent.text ?? "").includes(probe.expect) ? sent : await call("pty_read", {
      session_id: id,
      wait: true,
      until: probe.expect,
      timeout: 20,
      raw: true,
      cursor: sent.log_cursor ?? 0,
    });
    if (!String(read.text ?? "").includes(probe.expect)) {
      throw new Error(`the terminal did not print ${probe.expect} within 20s`);
    }
    await call("pty_close", { session_id: id });
    return { detail: `started ${info.name} ${info.version}; pty_open, pty_send, pty_read and pty_close worked` };
  } catch (err) {
    const last = stderrTail.trim().split("\n").at(-1)?.slice(0, 300);
    throw new SetupFailure(
      "smoke_failed",
      `${stage}: ${(err as Error).message}${last ? ` (server stderr: ${last})` : ""}`,
    );
  } finally {
    await client.close().catch(() => {});
    if (currentOs() !== "windows") {
      await createTmux({ socketPath: join(stateDir, "tmux.sock"), scratchDir: root }).killServer().catch(() => {});
    }
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}
