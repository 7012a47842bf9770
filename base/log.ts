/**
 * Structured diagnostics on stderr, one JSON object per line. stdout belongs to JSON-RPC; nothing in
 * the product writes to it except the MCP transport. Field values are codes, counts and ids: never
 * prompts, terminal output or environment values.
 */

/** Log levels, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const encoder = new TextEncoder();

/**
 * The process's stderr threshold. The one piece of module state left on purpose: stderr itself is
 * process-wide. A program root sets it once from its Config (`setLogLevel(config.log)`).
 */
let threshold = ORDER.info;

/** Sets the lowest level written (each program root calls it once with the configured AITERM_LOG). */
export function setLogLevel(level: LogLevel): void {
  threshold = ORDER[level];
}

/** Writes one structured line to stderr when `level` is at or above the level the root set (default info). */
export function log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  if (ORDER[level] < threshold) return;
  const line = JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields });
  try {
    Deno.stderr.writeSync(encoder.encode(line + "\n"));
  } catch {
    // stderr closed: diagnostics are best effort.
  }
}
