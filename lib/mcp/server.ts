/**
 * The MCP server: tools/list and tools/call over the SDK's low-level Server. Arguments are validated
 * here with the tool's zod schema so that bad input gets the same `INVALID_ARGUMENT: …` result as
 * every other failure (the SDK's own validation would answer in its own words).
 */
import { z } from "zod";
import { AppError, toAppError } from "../errors.ts";
import { runtimeCodeFor } from "../errors_store/mod.ts";
import { log } from "../log.ts";
import { SERVER_NAME } from "../version.ts";
import { errorResult, successResult } from "./result.ts";
import {
  controlDirFor,
  prepareRemote,
  relayStartFailure,
  remoteCommand,
  remoteWaitProcess,
  secretOf,
} from "../remote/mod.ts";
import type { RemoteTarget } from "../remote/mod.ts";
import { ERROR_CODES, type ErrorCode } from "../errors.ts";
import { CallToolRequestSchema, Client, ListToolsRequestSchema, Server, StdioClientTransport } from "./sdk.ts";
import type { Tool } from "./sdk.ts";
import type { CallContext, ToolDef, ToolDeps } from "./tool.ts";
import { parentContextOf } from "./parent.ts";
import { ALL_TOOLS } from "./tools/mod.ts";

/** The structured form of every failed call. */
export const ToolErrorSchema = z.object({
  code: z.string().describe("UPPER_SNAKE error code"),
  message: z.string().describe("What failed"),
  suggestion: z.string().optional().describe("What to do about it"),
}).strict();

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { target: "draft-7", io, unrepresentable: "any" }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

/** The tools/list entry of a tool. Success and failure share one output schema (anyOf). */
export function toolListing(def: ToolDef): Tool {
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: jsonSchema(def.input, "input") as Tool["inputSchema"],
    outputSchema: {
      type: "object",
      anyOf: [jsonSchema(def.output, "output"), jsonSchema(ToolErrorSchema, "output")],
    } as Tool["outputSchema"],
    annotations: { title: def.title, ...def.annotations },
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(arguments)"}: ${i.message}`).join("; ");
}

/** Runs one tool call; never throws. */
export async function callTool(
  def: ToolDef,
  args: unknown,
  deps: ToolDeps,
  ctx: CallContext,
): Promise<Awaited<ReturnType<typeof successResult>>> {
  const parsed = def.input.safeParse(args ?? {});
  if (!parsed.success) {
    return errorResult(
      new AppError("INVALID_ARGUMENT", `Invalid arguments for ${def.name}: ${describeIssues(parsed.error)}`, {
        suggestion: "nothing was done",
      }),
      def.name,
    );
  }
  try {
    const remote = (parsed.data as { remote?: RemoteTarget }).remote;
    const value = remote
      ? await relay(def.name, remote, parsed.data, deps, ctx)
      : await def.handler(parsed.data, deps, ctx);
    const out = def.output.parse(value) as Record<string, unknown>;
    return successResult(out, def.text ? def.text(out) : JSON.stringify(out));
  } catch (err) {
    // Environment failures are counted (code only, never text) without making the caller wait.
    const rc = runtimeCodeFor(toAppError(err).code);
    if (rc) void deps.runtimeErrors?.record(rc).catch(() => {});
    return errorResult(err, def.name);
  }
}

/** The longest a relayed call may take (pty_read waits up to 600 s). */
const RELAY_TIMEOUT_MS = 660_000;

/**
 * Runs the same tool on the remote aiterm-mcp over ssh's stdio (lib/remote prepares the connection)
 * and returns its structured result with remote_host/remote_version; wait_process becomes an ssh
 * command that runs the remote waiter.
 */
async function relay(
  tool: string,
  remote: RemoteTarget,
  data: unknown,
  deps: ToolDeps,
  ctx: { progress: (p: number, total?: number, message?: string) => Promise<void>; signal: AbortSignal },
): Promise<Record<string, unknown>> {
  const { remote: _remote, ...args } = data as Record<string, unknown>;
  const prepared = await prepareRemote({
    target: remote,
    controlDir: controlDirFor(deps.terminal.layout.root),
    env: deps.env,
  });
  const transport = new StdioClientTransport({
    command: "ssh",
    args: [...prepared.sshArgs, remoteCommandFor(prepared)],
    env: prepared.childEnv,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: unknown) => {
    stderr = (stderr + String(chunk)).slice(-8192);
  });
  const client = new Client({ name: "aiterm-relay", version: deps.version });
  try {
    try {
      await client.connect(transport, { timeout: 60_000 });
    } catch {
      await new Promise((r) => setTimeout(r, 50));
      throw relayStartFailure(remote.host, stderr, secretOf(prepared.childEnv));
    }
    const version = client.getServerVersion()?.version;
    let result;
    try {
      result = await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: RELAY_TIMEOUT_MS,
        signal: ctx.signal,
        onprogress: (p) => void ctx.progress(p.progress, p.total, p.message),
      });
    } catch (err) {
      throw new AppError(
        "REMOTE_PROTOCOL_FAILED",
        `Cannot complete ${tool} on ${remote.host}: ${(err as Error).message}`,
        {
          data: { host: remote.host },
          cause: err,
        },
      );
    }
    const sc = (result.structuredContent ?? null) as Record<string, unknown> | null;
    if (result.isError) {
      const code = typeof sc?.code === "string" ? sc.code : "";
      const message = typeof sc?.message === "string" ? sc.message : "the remote call failed";
      const suggestion = typeof sc?.suggestion === "string" ? sc.suggestion : undefined;
      if ((ERROR_CODES as readonly string[]).includes(code)) {
        throw new AppError(code as ErrorCode, `${message} (on ${remote.host})`, suggestion ? { suggestion } : {});
      }
      throw new AppError("REMOTE_PROTOCOL_FAILED", `${remote.host} answered ${code || "an error"}: ${message}`);
    }
    if (!sc) throw new AppError("REMOTE_PROTOCOL_FAILED", `${remote.host} returned no structured result`);
    const out: Record<string, unknown> = { ...sc, remote_host: remote.host };
    if (version) out.remote_version = version;
    const wp = sc.wait_process as { args?: unknown } | null | undefined;
    if (wp && Array.isArray(wp.args)) {
      const rewritten = remoteWaitProcess(prepared, wp.args.map(String));
      out.wait_process = rewritten;
      if ("wait_command" in sc) out.wait_command = [rewritten.executable, ...rewritten.args.map(shellQuote)].join(" ");
    }
    return out;
  } finally {
    await client.close().catch(() => {});
  }
}

function remoteCommandFor(prepared: Awaited<ReturnType<typeof prepareRemote>>): string {
  return remoteCommand(prepared.shell, "serve");
}

function shellQuote(a: string): string {
  return /^[A-Za-z0-9_.:=\/%@,+-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`;
}

/** Builds the server with every tool. Connect it to a transport to serve. */
export function createServer(deps: ToolDeps, tools: ToolDef[] = ALL_TOOLS): InstanceType<typeof Server> {
  const server = new Server({ name: SERVER_NAME, version: deps.version }, {
    capabilities: { tools: {} },
    instructions:
      "aiterm gives you persistent terminals (tmux sessions that survive restarts). pty_open a session, pty_send text, pty_read the output, pty_key for control keys, pty_close when done. A human can watch with the attach command in the pty_open receipt.",
  });
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listing = tools.map(toolListing);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const def = byName.get(request.params.name);
    if (!def) {
      return errorResult(
        new AppError("TOOL_UNKNOWN", `Cannot call tool "${request.params.name}": no such tool`, {
          suggestion: "call tools/list",
        }),
        request.params.name,
      );
    }
    const token = request.params._meta?.progressToken;
    const progress = async (p: number, total?: number, message?: string) => {
      if (token === undefined) return;
      await extra.sendNotification({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress: p,
          ...(total !== undefined ? { total } : {}),
          ...(message ? { message } : {}),
        },
      }).catch(() => {});
    };
    const started = performance.now();
    const parent = parentContextOf(server.getClientVersion()?.name, request.params._meta);
    const result = await callTool(def, request.params.arguments, deps, { progress, signal: extra.signal, parent });
    log("debug", "tool call", {
      tool: def.name,
      ms: Math.round(performance.now() - started),
      is_error: result.isError === true,
    });
    return result;
  });
  return server;
}
