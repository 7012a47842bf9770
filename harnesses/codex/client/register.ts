/** Codex's registration: `codex mcp add aiterm -- <command…>`, read back with `codex mcp get aiterm --json`. */
import {
  cliClient,
  type ClientContext,
  type ClientIntegration,
  cliFailure,
  holdsEnv,
  isObject,
  REGISTRATION_NAME,
  runCli,
  sameCommand,
  type ServerCommand,
  SetupFailure,
  stringEnv,
} from "../../common/client/mod.ts";
import { codexBinary } from "../launch.ts";

/** The stdio transport of a `codex mcp get --json` entry, or null for another shape. */
export function codexTransport(entry: unknown): { command: unknown; args: unknown; env: unknown } | null {
  if (!isObject(entry)) return null;
  const t = entry.transport;
  if (!isObject(t) || t.type !== "stdio") return null;
  return { command: t.command, args: t.args, env: t.env };
}

async function codexGet(bin: string, ctx: ClientContext): Promise<Record<string, unknown> | null> {
  const args = ["mcp", "get", REGISTRATION_NAME, "--json"];
  const r = await runCli(bin, args, ctx);
  if (r.code !== 0) {
    if (/no mcp server named/i.test(r.stderr + r.stdout)) return null;
    throw cliFailure(bin, args, r);
  }
  try {
    const v = JSON.parse(r.stdout);
    if (isObject(v)) return v;
  } catch {
    // reported below
  }
  throw new SetupFailure("cli_failed", "codex mcp get aiterm --json did not print a JSON object");
}

function codexMatches(
  entry: Record<string, unknown> | null,
  server: ServerCommand,
  env: Record<string, string | undefined>,
  serverEnv?: Record<string, string>,
): boolean {
  const t = codexTransport(entry);
  const home = env.CODEX_HOME;
  // Codex starts MCP servers with a cleared environment: a non-default CODEX_HOME must be registered
  // with the server, or parent delivery would look for the parent's thread in ~/.codex.
  const homeOk = !home || new Map(stringEnv(t?.env)).get("CODEX_HOME") === home;
  return t !== null && entry?.enabled !== false && sameCommand(t.command, t.args, server) && homeOk &&
    holdsEnv(t.env, serverEnv);
}

/** The server's env entries for Codex: the user's own, plus CODEX_HOME when it is set here. */
function codexServerEnv(
  existing: Record<string, unknown> | null,
  env: Record<string, string | undefined>,
): [string, string][] {
  const entries = new Map(stringEnv(codexTransport(existing)?.env));
  if (env.CODEX_HOME) entries.set("CODEX_HOME", env.CODEX_HOME);
  return [...entries];
}

/** Codex's registration: `codex mcp add aiterm -- <command…>`, read back with `codex mcp get aiterm --json`. */
export const codexClient: ClientIntegration = cliClient({
  id: "codex",
  label: "Codex CLI",
  cli: "codex",
  binary: codexBinary,
  lookedIn: "CODEX_BIN, PATH",
  head: ["mcp", "add", REGISTRATION_NAME],
  envFlag: "--env",
  async current(ctx, det) {
    const existing = await codexGet(det.bin!, ctx);
    return { same: codexMatches(existing, ctx.server, ctx.env), env: codexServerEnv(existing, ctx.env) };
  },
  sameDetail: "codex mcp get aiterm shows the same command",
  async readBack(ctx, det) {
    const entry = await codexGet(det.bin!, ctx);
    if (!entry) {
      throw new SetupFailure("config_readback_failed", "codex mcp get aiterm finds no server after adding it");
    }
    if (!codexMatches(entry, ctx.server, ctx.env, ctx.serverEnv)) {
      throw new SetupFailure("config_readback_failed", "codex mcp get aiterm shows a different or disabled server");
    }
    return { detail: "codex mcp get aiterm --json shows the aiterm command, enabled" };
  },
});
