/**
 * The MCP server: initialize and tools/list over the SDK's low-level Server, tools/call answered beside it
 * (./tool_calls.ts). Arguments are validated here with the tool's zod schema so that bad input gets the same
 * `INVALID_ARGUMENT: …` result as every other failure (the SDK's own validation would answer in its own words).
 */
import { z } from "zod";
import { AppError, toAppError } from "../../base/errors.ts";
import { knob } from "../../base/config.ts";
import { runtimeCodeFor } from "../errors_store/mod.ts";
import { log } from "../../base/log.ts";
import { SERVER_NAME } from "../../base/version.ts";
import { errorResult, limitResult, successResult } from "./result.ts";
import type { RemoteTarget } from "../remote/mod.ts";
import { InitializeRequestSchema, ListToolsRequestSchema, Server } from "./sdk.ts";
import type { CallContext, ToolDef, ToolDeps } from "./tool.ts";
import type { Transport } from "./sdk.ts";
import { type ToolCallDispatch, ToolCallRouter } from "./tool_calls.ts";
import { serverInstructions } from "../agent/delivery/mod.ts";
import { identifyParent, type ParentIntegration } from "../../harnesses/clients/mod.ts";
import { relayedLimits, tighterLimits } from "./call_limits.ts";
import { toolListing } from "./listing.ts";

// The tools/list entries (slim advertised schemas, structure-only output schemas): lib/mcp/listing.ts.
export { ToolErrorSchema, toolListing } from "./listing.ts";

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
      ? await deps.relay.relay(
        def.name,
        remote,
        parsed.data,
        deps,
        def.aliasOf ? { ...ctx, aliasOf: def.aliasOf } : ctx,
      )
      : await def.handler(parsed.data, deps, ctx);
    const out = def.output.parse(value) as Record<string, unknown>;
    return limitResult(successResult(out, def.text ? def.text(out) : JSON.stringify(out)), def.name);
  } catch (err) {
    // Environment failures are counted (code only, never text) without making the caller wait.
    const rc = runtimeCodeFor(toAppError(err).code);
    if (rc) void deps.runtimeErrors?.record(rc).catch(() => {});
    return errorResult(err, def.name);
  }
}

/**
 * The `instructions` of the initialize answer name what this client must do for a child's answer
 * (lib/agent/delivery/guidance.ts): the client is known from the same initialize request. The
 * SDK's own initialize handler still runs (it records the client for getClientVersion); only the
 * instructions of its answer are replaced. If the SDK ever stops having that handler, the generic
 * instructions given to the constructor stay.
 */
function instructPerParent(server: InstanceType<typeof Server>, parents: readonly ParentIntegration[]): void {
  const sdk = server as unknown as { _oninitialize?: (request: unknown) => Promise<Record<string, unknown>> };
  const original = sdk._oninitialize?.bind(server);
  if (!original) return;
  server.setRequestHandler(InitializeRequestSchema, async (request) => {
    const answer = await original(request);
    const parent = identifyParent(parents, request.params.clientInfo?.name, undefined);
    return { ...answer, instructions: serverInstructions(parent, Deno.build.os) } as Awaited<
      ReturnType<typeof original>
    >;
  });
}

/** The MCP server: the SDK's Server for initialize, tools/list, ping and notifications; tool calls beside it. */
export interface McpServer {
  /** Serves over `transport`. */
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/** How the server is built beyond its dependencies. */
export interface ServerOptions {
  /**
   * List and serve the deprecated aliases too (Config.legacyTools, AITERM_LEGACY_TOOLS=1; ADR 0036).
   * Without it tools/list holds the main tools only and calling an alias is TOOL_UNKNOWN naming its replacement.
   */
  legacyTools?: boolean;
}

/** The TOOL_UNKNOWN of a deprecated alias called while the aliases are off. */
function aliasOff(def: ToolDef): AppError {
  const variable = `${knob("legacyTools").name}=1`;
  return new AppError(
    "TOOL_UNKNOWN",
    `Cannot call tool "${def.name}": it is a deprecated alias, served only when the server runs with ${variable}`,
    {
      suggestion: `call ${def.replacement ?? def.aliasOf}, or start the server with ${variable} ` +
        "(aiterm-mcp setup --legacy-tools writes it into each client's registration)",
    },
  );
}

/**
 * Builds the server over `tools` (the composition root passes lib/mcp/tools/mod.ts ALL_TOOLS, so this
 * folder does not import its tools/ subfolder). Connect it to a transport to serve.
 */
export function createServer(deps: ToolDeps, tools: ToolDef[], options: ServerOptions = {}): McpServer {
  const server = new Server({ name: SERVER_NAME, version: deps.version }, {
    capabilities: { tools: {} },
    instructions: serverInstructions(undefined, Deno.build.os),
  });
  instructPerParent(server, deps.parents);
  const served = options.legacyTools ? tools : tools.filter((t) => !t.aliasOf);
  const byName = new Map(served.map((t) => [t.name, t]));
  const hidden = new Map(tools.filter((t) => !byName.has(t.name)).map((t) => [t.name, t]));
  const listing = served.map(toolListing);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  const dispatch: ToolCallDispatch = async (params, { progress, signal, settle }) => {
    const def = byName.get(params.name);
    if (!def) {
      const alias = hidden.get(params.name);
      return errorResult(
        alias ? aliasOff(alias) : new AppError("TOOL_UNKNOWN", `Cannot call tool "${params.name}": no such tool`, {
          suggestion: "call tools/list",
        }),
        params.name,
      );
    }
    const started = performance.now();
    const client = server.getClientVersion()?.name;
    const parent = identifyParent(deps.parents, client, params._meta);
    const limits = tighterLimits(deps.callLimits(client), relayedLimits(params._meta));
    const result = await callTool(def, params.arguments, deps, {
      progress,
      signal,
      parent,
      limits,
      startedAt: started,
      settle,
    });
    log("debug", "tool call", {
      tool: def.name,
      ms: Math.round(performance.now() - started),
      is_error: result.isError === true,
    });
    return result;
  };
  return {
    connect: (transport) => server.connect(new ToolCallRouter(transport, dispatch)),
    close: () => server.close(),
  };
}
