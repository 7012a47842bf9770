/**
 * The one place where handler outcomes become MCP tool results, and where their size is bounded.
 *
 * Every result, serialized, stays within {@link MAX_RESULT_BYTES} (content and structuredContent
 * together): the SDK's stdio client drops the connection on a line over 10 MiB, and Claude Code and
 * Codex cut or park far smaller ones. Tools that can return much (pty_read) page below it; the
 * {@link limitResult} net turns anything still over it into `RESULT_TOO_LARGE`, never a broken line.
 * Claude Code and Codex show their model only structuredContent, so a large body is not repeated in
 * the text block: above {@link TEXT_COPY_BYTES} the text is a summary without the long strings.
 */
import { log } from "../../base/log.ts";
import { AppError, toAppError } from "../../base/errors.ts";
import { jsonBytes, utf8Bytes } from "../../base/json_size.ts";
import type { CallToolResult } from "./sdk.ts";

/** The most bytes one tool result may take as JSON (text block and structuredContent together). */
export const MAX_RESULT_BYTES = 1024 * 1024;
/** The largest text block that is sent as the tool's own text; a larger one becomes a summary. */
export const TEXT_COPY_BYTES = 32 * 1024;
/** Strings longer than this (UTF-16 units) are left out of a summary text block. */
const SUMMARY_STRING_CHARS = 240;

/** A success: the structured value plus the text an AI reads (a summary when that text is large). */
export function successResult(value: Record<string, unknown>, text: string): CallToolResult {
  const shown = utf8Bytes(text) <= TEXT_COPY_BYTES ? text : summaryText(value);
  return { content: [{ type: "text", text: shown }], structuredContent: value };
}

/**
 * The text block of a large result: the structured value as JSON with every long string replaced by
 * a note saying where it is; a value that is large even so gets a one-line note.
 */
export function summaryText(value: Record<string, unknown>): string {
  const brief = JSON.stringify(value, (key, v) => {
    if (typeof v !== "string" || v.length <= SUMMARY_STRING_CHARS) return v;
    return `[${v.length} characters, not repeated here: see structuredContent${key ? `.${key}` : ""}]`;
  });
  if (utf8Bytes(brief) <= TEXT_COPY_BYTES) return brief;
  return `[a ${jsonBytes(value)}-byte result, not repeated here: see structuredContent]`;
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

/**
 * The last check before a result is sent: one whose JSON exceeds {@link MAX_RESULT_BYTES} becomes
 * `RESULT_TOO_LARGE` naming the tool and the size (the handler's effects, if any, have happened).
 */
export function limitResult(result: CallToolResult, tool: string): CallToolResult {
  const size = jsonBytes(result);
  if (size <= MAX_RESULT_BYTES) return result;
  return errorResult(
    new AppError(
      "RESULT_TOO_LARGE",
      `Cannot return the result of ${tool}: it is ${size} bytes as JSON, over the ${MAX_RESULT_BYTES}-byte limit`,
      {
        suggestion: "ask for less: pty_read pages with cursor=next_cursor, lines, or a line_range",
        data: { tool, size_bytes: size, limit_bytes: MAX_RESULT_BYTES },
      },
    ),
    tool,
  );
}
