/** The shape of one tool: schemas, a plain handler that never sees MCP types, and its text form. */
import { z } from "zod";
import type { Terminal } from "../terminal/mod.ts";
import type { RuntimeErrorRecorder } from "../errors_store/mod.ts";
import type { ParentDeliveryManager } from "../agent/delivery/mod.ts";
import type { CallLimits, ParentCall, ParentIntegration } from "../../harnesses/clients/mod.ts";
import type { RemoteTarget } from "../remote/mod.ts";
import type { ModelCatalogs, TranscriptReaders } from "../agent/mod.ts";

/** Progress reporting for long waits; a no-op when the request carried no progress token. */
export type ProgressFn = (progress: number, total?: number, message?: string) => Promise<void>;

/** What a handler may use. Built once in main.ts (see lib/mcp/server.ts). */
export interface ToolDeps {
  terminal: Terminal;
  env: Record<string, string>;
  version: string;
  /** Default cwd for new sessions and agents. */
  cwd: string;
  /** Local runtime-error aggregate (fixed codes and counts only). */
  runtimeErrors?: RuntimeErrorRecorder;
  /** The AI clients as parents (harnesses/mod.ts parentIntegrations): who called, and how answers reach it. */
  parents: readonly ParentIntegration[];
  /** Parent delivery (absent: every parent gets wait_process). */
  delivery?: ParentDeliveryManager;
  /** Parent delivery for children on remote hosts (its own store; see lib/mcp/relay.ts). */
  remoteDelivery?: ParentDeliveryManager;
  /** The process's incremental transcript readers (handed to the agent layer as AgentDeps.transcripts). */
  transcripts: TranscriptReaders;
  /** The process's model catalog reads (handed to the agent layer as AgentDeps.catalogs). */
  catalogs: ModelCatalogs;
  /** Runs a call with `remote` on that host (lib/mcp/relay.ts RemoteRelay; one per process). */
  relay: Relay;
  /** The limits of the client named in initialize (harnesses/clients callLimitsFor, with the user's overrides). */
  callLimits(clientName: string | undefined): CallLimits;
  /** pty_send's wait on a terminal session when the call names none, in seconds (AITERM_SEND_WAIT_S; 0: none). */
  sendWaitS: number;
}

/** The remote relay as the server sees it (implemented by RemoteRelay in lib/mcp/relay.ts). */
export interface Relay {
  relay(
    tool: string,
    remote: RemoteTarget,
    data: unknown,
    deps: ToolDeps,
    ctx: CallContext,
  ): Promise<Record<string, unknown>>;
}

/** Runs once the call's answer was written to the client (`delivered`), or was not (cancelled, the client gone). */
export type SettleFn = (delivered: boolean) => Promise<void>;

/** Per-call context. */
export interface CallContext {
  progress: ProgressFn;
  signal: AbortSignal;
  /** The calling client's limits (absent outside the MCP server: any client's). */
  limits?: CallLimits;
  /** When the call started (performance.now()): a wait's deadline counts from here. */
  startedAt?: number;
  /**
   * Hands over work that must happen only if the answer reaches the client (a read's cursor moves only then). Absent
   * outside the MCP server: the caller does it at once.
   */
  settle?: (fn: SettleFn) => void;
  /** The calling client as a parent (absent outside the MCP server, e.g. in unit tests). */
  parent?: ParentCall;
  /** The tool the called one is a thin alias of (the relay treats an alias as that tool). */
  aliasOf?: string;
  /**
   * An alias: the call to make instead, as a model would read it (`agent_launch with harness "claude-code"`).
   * Aliases are deprecated: listed and served only with AITERM_LEGACY_TOOLS=1 (lib/mcp/server.ts, ADR 0036);
   * without it, calling one is TOOL_UNKNOWN with this as the suggestion.
   */
  replacement?: string;
}

/** A tool definition. */
export interface ToolDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  handler(input: z.output<I>, deps: ToolDeps, ctx: CallContext): Promise<z.input<O>>;
  /** The text an AI reads; default: the structured value as JSON. */
  text?(output: z.output<O>): string;
  /**
   * A thin alias: the name of the tool it stands for. tools/list then advertises `{type: "object"}` as its
   * input and output schemas (lib/mcp/listing.ts); the server still validates every call with `input`.
   */
  aliasOf?: string;
  /**
   * An alias: the call to make instead, as a model would read it (`agent_launch with harness "claude-code"`).
   * Aliases are deprecated: listed and served only with AITERM_LEGACY_TOOLS=1 (lib/mcp/server.ts, ADR 0036);
   * without it, calling one is TOOL_UNKNOWN with this as the suggestion.
   */
  replacement?: string;
}

/** Declares a tool with its types inferred (an identity function for type inference). */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

/** The session id schema every tool shares. */
export const SessionIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must match ^[A-Za-z0-9_-]{1,64}$")
  .describe("Session id");

/** The optional generation every session tool takes (a replaced session is then SESSION_STALE). */
export const GenerationSchema = z.string().regex(
  /^[0-9a-f]{12}$/,
  "must be the 12 hex digits of a receipt's generation",
)
  .nullish().describe("From the receipt; SESSION_STALE if the id was reopened since");
