/**
 * Claude Code's limits on one MCP tool call (measured on 2.1.328, /work/shared/reference/client-limits.md):
 * - its interactive UI moves a call still running at 120 s to the background (`CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS`
 *   changes that): the model gets a placeholder and the result later, or never in headless SDK sessions;
 * - `MCP_TOOL_TIMEOUT` (ms), when a user sets it, cuts the call and cancels it;
 * - a result over about 25,000 tokens (`MAX_MCP_OUTPUT_TOKENS`) reaches the model only as a 2 KB preview of a file.
 * `claude -p` and the UI send the same clientInfo, so the 120 s rule holds for both.
 */
import { type ClientCut, positiveNumber } from "../../common/client/mod.ts";

/** The clientInfo name Claude Code sends in initialize. */
export const CLAUDE_CLIENT_NAME = "claude-code";
const BACKGROUND_MS = 120_000;
const OUTPUT_TOKENS = 25_000;
/**
 * JSON bytes per token counted on the safe side: logs with escapes and short words run at about 3 bytes per
 * token, so 2.6 keeps a 25,000-token allowance (65,000 bytes) whole.
 */
const BYTES_PER_TOKEN = 2.6;

/** Claude Code's cut and result size from its own variables in `env` (the server inherits its environment). */
export function claudeCallCut(clientName: string, env: Record<string, string | undefined>): ClientCut | null {
  if (clientName !== CLAUDE_CLIENT_NAME) return null;
  const background = positiveNumber(env.CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS);
  const hard = positiveNumber(env.MCP_TOOL_TIMEOUT);
  const bg = background ?? BACKGROUND_MS;
  const tokens = positiveNumber(env.MAX_MCP_OUTPUT_TOKENS) ?? OUTPUT_TOKENS;
  const resultBytes = Math.floor(tokens * BYTES_PER_TOKEN);
  if (hard !== null && hard < bg) {
    return {
      cutMs: hard,
      resultBytes,
      source: `claude-code: MCP_TOOL_TIMEOUT=${hard} cuts a call at ${hard / 1000} s`,
    };
  }
  return {
    cutMs: bg,
    resultBytes,
    source: `claude-code: a call still running at ${bg / 1000} s is moved to the background${
      background !== null ? " (CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS)" : ""
    }`,
  };
}
