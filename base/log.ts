/**
 * Structured diagnostics on stderr, one JSON object per line. stdout belongs to JSON-RPC; nothing in
 * the product writes to it except the MCP transport. Field values are codes, counts and ids: never
 * prompts, terminal output or environment values.
 */

/** Log levels, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const encoder = new TextEncoder();

function threshold(): number {
  const wanted = (Deno.env.get("AITERM_LOG") ?? "info") as LogLevel;
  return ORDER[wanted] ?? ORDER.info;
}

/** Writes one structured line to stderr when `level` is at or above `AITERM_LOG` (default info). */
export function log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  if (ORDER[level] < threshold()) return;
  const line = JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields });
  try {
    Deno.stderr.writeSync(encoder.encode(line + "\n"));
  } catch {
    // stderr closed: diagnostics are best effort.
  }
}
