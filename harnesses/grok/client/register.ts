/** Grok Build's registration: `grok mcp add --scope user aiterm -- <command…>`, read back with `grok mcp list --json`. */
import { parse as parseToml } from "smol-toml";
import {
  cliClient,
  clientConfigPaths,
  type ClientContext,
  type ClientIntegration,
  cliFailure,
  holdsEnv,
  isObject,
  REGISTRATION_NAME,
  runCli,
  sameCommand,
  SetupFailure,
  stringEnv,
} from "../../common/client/mod.ts";
import { grokBinary } from "../launch.ts";

/** Finds the entry called `name` in `grok mcp list --json` output, whatever its container shape. */
export function findGrokEntry(value: unknown, name: string, depth = 0): Record<string, unknown> | null {
  if (depth > 3) return null;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isObject(item) && item.name === name) return item;
    }
    for (const item of value) {
      const hit = findGrokEntry(item, name, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  if (!isObject(value)) return null;
  if (value.name === name) return value;
  const direct = value[name];
  if (isObject(direct)) return { name, ...direct };
  for (const key of ["servers", "mcp_servers", "mcpServers", "user"]) {
    const hit = findGrokEntry(value[key], name, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/** `{command, args}` of a grok list entry (flat, or under transport/config), or null when not shown. */
export function grokCommand(entry: Record<string, unknown>): { command: unknown; args: unknown } | null {
  for (const holder of [entry, entry.transport, entry.config]) {
    if (isObject(holder) && typeof holder.command === "string") return { command: holder.command, args: holder.args };
  }
  return null;
}

async function grokConfigEntry(ctx: ClientContext): Promise<Record<string, unknown> | null> {
  const path = clientConfigPaths(ctx.env, ctx.home).grok;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return null;
  }
  try {
    const doc = parseToml(text) as Record<string, unknown>;
    const servers = doc.mcp_servers;
    const entry = isObject(servers) ? servers[REGISTRATION_NAME] : undefined;
    return isObject(entry) ? entry : null;
  } catch {
    return null;
  }
}

/** Grok Build's registration: `grok mcp add --scope user aiterm -- <command…>`, read back with `grok mcp list --json`. */
export const grokClient: ClientIntegration = cliClient({
  id: "grok",
  label: "Grok Build",
  cli: "grok",
  binary: grokBinary,
  lookedIn: "GROK_BIN, ~/.grok/bin, PATH",
  head: ["mcp", "add", "--scope", "user", REGISTRATION_NAME],
  envFlag: "-e",
  async current(ctx) {
    // Grok's own user config decides whether anything needs to change (its list also shows servers
    // it borrows from ~/.claude.json and ~/.cursor/mcp.json, which must not count as Grok's own).
    const existing = await grokConfigEntry(ctx);
    const same = existing !== null && existing.enabled !== false && existing.url === undefined &&
      sameCommand(existing.command, existing.args, ctx.server);
    return { same, env: stringEnv(existing?.env) };
  },
  sameDetail: "grok's user config already registers aiterm",
  async readBack(ctx, det) {
    const args = ["mcp", "list", "--json"];
    const r = await runCli(det.bin!, args, ctx);
    if (r.code !== 0) throw cliFailure(det.bin!, args, r);
    let listed: unknown;
    try {
      listed = JSON.parse(r.stdout);
    } catch {
      throw new SetupFailure("config_readback_failed", "grok mcp list --json did not print JSON");
    }
    const entry = findGrokEntry(listed, REGISTRATION_NAME);
    if (!entry) throw new SetupFailure("config_readback_failed", "grok mcp list --json does not list aiterm");
    if (entry.enabled === false) {
      throw new SetupFailure(
        "client_disabled",
        "grok lists aiterm as disabled; enable it with: grok mcp enable aiterm",
      );
    }
    const cmd = grokCommand(entry);
    if (cmd && !sameCommand(cmd.command, cmd.args, ctx.server)) {
      throw new SetupFailure("config_readback_failed", "grok mcp list --json shows a different command for aiterm");
    }
    // grok 1.0.41's list shows the server's env; where a list does not, its user config says.
    const env = isObject(entry.env) ? entry.env : (await grokConfigEntry(ctx))?.env;
    if (!holdsEnv(env, ctx.serverEnv)) {
      throw new SetupFailure(
        "config_readback_failed",
        `grok registers aiterm without ${Object.keys(ctx.serverEnv ?? {}).join(", ")} in its environment`,
      );
    }
    return { detail: `grok mcp list --json lists aiterm${cmd ? " with the same command" : ""}` };
  },
});
