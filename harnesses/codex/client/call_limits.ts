/**
 * Codex's limits on one MCP tool call (measured on 0.169.0, /work/shared/reference/client-limits.md): a call is
 * cancelled at the server's `tool_timeout_sec` (default 300 s; progress does not extend it), and a large result is
 * cut in its middle (about 48 KB kept for gpt-5.5, about 12 KB for a model Codex has no metadata for). The per-server
 * value is read from `$CODEX_HOME/config.toml` (`[mcp_servers.aiterm] tool_timeout_sec`), CODEX_HOME being the parent
 * Codex's when the server was not given one; a `-c mcp_servers.aiterm.tool_timeout_sec=N` on the command line of the
 * Codex that started the server overrides it (read from /proc on Linux; elsewhere AITERM_CALL_LIMIT_S covers it).
 */
import { parse as parseToml } from "smol-toml";
import { processArgvBytes, processEnvVar } from "../../../platform/mod.ts";
import { type ClientCut, positiveNumber, REGISTRATION_NAME, vendorDir } from "../../common/client/mod.ts";

/** The clientInfo name Codex sends in initialize. */
export const CODEX_CLIENT_NAME = "codex-mcp-client";
const DEFAULT_CUT_S = 300;
/** Well under the 48 KB Codex keeps whole for its current models. */
const RESULT_BYTES = 32 * 1024;

/**
 * Codex's folder as this server can tell it: CODEX_HOME when the server was given it, else the parent Codex process's
 * own (Codex 0.169.0 starts an MCP server with HOME, PATH, SHELL, TERM, LANG and the like, but no CODEX_HOME: a user's
 * CODEX_HOME reaches the server only when registered with it), else `~/.codex`. `parentPid` null: no parent is asked.
 */
export function codexHomeForServer(env: Record<string, string | undefined>, parentPid: number | null): string {
  return env.CODEX_HOME || (parentPid ? processEnvVar(parentPid, "CODEX_HOME") : null) ||
    vendorDir(env, "CODEX_HOME", ".codex");
}

/**
 * `tool_timeout_sec` of aiterm's entry in Codex's config.toml, or null (no file, no entry, no value). The folder is
 * {@link codexHomeForServer}'s (by default the parent process is the Codex that started this server).
 */
export function codexToolTimeout(
  env: Record<string, string | undefined>,
  parentPid: number | null = Deno.ppid,
): number | null {
  const dir = codexHomeForServer(env, parentPid);
  if (!dir) return null;
  let text: string;
  try {
    text = Deno.readTextFileSync(`${dir}/config.toml`);
  } catch {
    return null;
  }
  try {
    const doc = parseToml(text) as Record<string, unknown>;
    const servers = doc.mcp_servers as Record<string, unknown> | undefined;
    const entry = servers?.[REGISTRATION_NAME] as Record<string, unknown> | undefined;
    const v = entry?.tool_timeout_sec;
    return typeof v === "number" ? positiveNumber(String(v)) : null;
  } catch {
    return null;
  }
}

/** The key of aiterm's `tool_timeout_sec` in a `-c key=value` override. */
const FLAG_KEY = `mcp_servers.${REGISTRATION_NAME}.tool_timeout_sec`;

/**
 * aiterm's `tool_timeout_sec` among a Codex command line's overrides (`-c mcp_servers.aiterm.tool_timeout_sec=N`, also
 * spelled `--config K=V`, `-cK=V`, `--config=K=V`; the last one counts, as in Codex; nothing after `--`), or null.
 */
export function toolTimeoutFlag(argv: readonly string[]): number | null {
  let found: number | null = null;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    let v: string | undefined;
    if (a === "-c" || a === "--config") v = argv[++i];
    else if (a.startsWith("--config=")) v = a.slice("--config=".length);
    else if (a.startsWith("-c")) v = a.slice(2);
    const eq = v?.indexOf("=") ?? -1;
    if (v === undefined || eq < 0 || v.slice(0, eq).trim() !== FLAG_KEY) continue;
    found = positiveNumber(v.slice(eq + 1).trim()) ?? found;
  }
  return found;
}

/**
 * The `-c` value of {@link toolTimeoutFlag} on the command line of the parent process (the Codex that started this
 * server; Linux /proc only, else null). Only that one number is taken from the command line.
 */
function parentToolTimeoutFlag(parentPid: number | null): number | null {
  const raw = parentPid ? processArgvBytes(parentPid) : null;
  return raw ? toolTimeoutFlag(new TextDecoder().decode(raw).split("\0")) : null;
}

/**
 * Codex's cut and result size: aiterm's `tool_timeout_sec` given with `-c` to the Codex that started this server,
 * else the one in its config.toml, else Codex's default.
 */
export function codexCallCut(
  clientName: string,
  env: Record<string, string | undefined>,
  parentPid: number | null = Deno.ppid,
): ClientCut | null {
  if (clientName !== CODEX_CLIENT_NAME) return null;
  const flag = parentToolTimeoutFlag(parentPid);
  const set = flag ?? codexToolTimeout(env, parentPid);
  const s = set ?? DEFAULT_CUT_S;
  const where = flag !== null ? " given with -c" : set !== null ? " in config.toml" : ", default";
  return {
    cutMs: s * 1000,
    resultBytes: RESULT_BYTES,
    source: `codex: a call is cancelled at ${s} s (tool_timeout_sec${where})`,
  };
}
