/** The one place where handler outcomes become MCP tool results. */
import { log } from "../log.ts";
import { toAppError } from "../errors.ts";
import type { CallToolResult } from "./sdk.ts";

/** A success: the structured value plus the text an AI reads. */
export function successResult(value: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: value };
}

/** Any thrown value → `isError: true`, text `CODE: message`, structuredContent `{code, message}`. */
export function errorResult(err: unknown, tool: string): CallToolResult {
  const e = toAppError(err);
  if (e.code === "INTERNAL") {
    log("error", "tool failed", { tool, code: e.code, stack: e.cause instanceof Error ? e.cause.stack : undefined });
  } else {
    log("warn", "tool failed", { tool, code: e.code });
  }
  const structured: Record<string, unknown> = { code: e.code, message: e.message };
  if (e.suggestion) structured.suggestion = e.suggestion;
  return { isError: true, content: [{ type: "text", text: e.toText() }], structuredContent: structured };
}
