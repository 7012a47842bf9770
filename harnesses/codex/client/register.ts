/** Codex's registration: `codex mcp add aiterm -- <command…>`, read back with `codex mcp get aiterm --json`. */
import {
  type ClientContext,
  type ClientIntegration,
  cliFailure,
  displayCommand,
  isObject,
  REGISTRATION_NAME,
  resolveBinary,
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
): boolean {
  const t = codexTransport(entry);
  const home = env.CODEX_HOME;
  // Codex starts MCP servers with a cleared environment: a non-default CODEX_HOME must be registered
  // with the server, or parent delivery would look for the parent's thread in ~/.codex.
  const homeOk = !home || new Map(stringEnv(t?.env)).get("CODEX_HOME") === home;
  return t !== null && entry?.enabled !== false && sameCommand(t.command, t.args, server) && homeOk;
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
export const codexClient: ClientIntegration = {
  id: "codex",
  label: "Codex CLI",
  detect(ctx) {
    const bin = resolveBinary(codexBinary, ctx.env);
    return Promise.resolve(
      bin
        ? { found: true, bin, how: `codex CLI at ${bin}` }
        : { found: false, bin: null, how: "no codex CLI (CODEX_BIN, PATH)" },
    );
  },
  async register(ctx, det) {
    const bin = det.bin!;
    const existing = await codexGet(bin, ctx);
    if (codexMatches(existing, ctx.server, ctx.env)) {
      return {
        status: "already_registered",
        detail: "codex mcp get aiterm shows the same command",
        config_path_kind: "cli",
      };
    }
    // Keep the user's environment entries for the server (values are passed, never printed).
    const env = codexServerEnv(existing, ctx.env).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
    const args = ["mcp", "add", REGISTRATION_NAME, ...env, "--", ctx.server.command, ...ctx.server.args];
    const shown = displayCommand([[
      "codex",
      "mcp",
      "add",
      REGISTRATION_NAME,
      "--",
      ctx.server.command,
      ...ctx.server.args,
    ]]);
    if (ctx.dryRun) return { status: "would_register", detail: `would run: ${shown}`, config_path_kind: "cli" };
    const r = await runCli(bin, args, ctx);
    if (r.code !== 0) throw cliFailure(bin, args.slice(0, 3), r);
    return { status: "registered", detail: `ran: ${shown}`, config_path_kind: "cli" };
  },
  async readBack(ctx, det) {
    const entry = await codexGet(det.bin!, ctx);
    if (!entry) {
      throw new SetupFailure("config_readback_failed", "codex mcp get aiterm finds no server after adding it");
    }
    if (!codexMatches(entry, ctx.server, ctx.env)) {
      throw new SetupFailure("config_readback_failed", "codex mcp get aiterm shows a different or disabled server");
    }
    return { detail: "codex mcp get aiterm --json shows the aiterm command, enabled" };
  },
};
