/**
 * Claude Code's registration: `mcpServers.aiterm` in `~/.claude.json` (user scope;
 * `$CLAUDE_CONFIG_DIR/.claude.json` when set), edited as a file, then read back from the file and with
 * `claude mcp get aiterm`, which starts the server and health-checks it.
 */
import {
  clientConfigPaths,
  type ClientIntegration,
  cliFailure,
  exists,
  isObject,
  type JsonClientSpec,
  readBackJson,
  registerJson,
  REGISTRATION_NAME,
  resolveBinary,
  runCli,
  SetupFailure,
  stdioEntryMatches,
  withoutRemoteFields,
} from "../../common/client/mod.ts";
import { claudeBinary } from "../launch.ts";

const CLAUDE_SPEC: JsonClientSpec = {
  id: "claude",
  label: "Claude Code",
  jsonc: false,
  path: (ctx) => clientConfigPaths(ctx.env, ctx.home).claude,
  // The shape `claude mcp add -s user` writes: {type, command, args, env}.
  build: (existing, server) => {
    const base = withoutRemoteFields(existing);
    return {
      ...base,
      type: "stdio",
      command: server.command,
      args: server.args,
      env: isObject(base.env) ? base.env : {},
    };
  },
  matches: stdioEntryMatches,
};

/** Parses `claude mcp get <name>` output: its Scope, Status, Issue and Command lines. */
export function parseClaudeMcpGet(text: string): { scope?: string; status?: string; issue?: string; command?: string } {
  const field = (name: string) => new RegExp(`^\\s*${name}:[ \\t]*(.*)$`, "m").exec(text)?.[1]?.trim();
  const out: { scope?: string; status?: string; issue?: string; command?: string } = {};
  const scope = field("Scope");
  const status = field("Status");
  const issue = field("Issue");
  const command = field("Command");
  if (scope !== undefined) out.scope = scope;
  if (status !== undefined) out.status = status;
  if (issue !== undefined) out.issue = issue;
  if (command !== undefined) out.command = command;
  return out;
}

/** Claude Code's registration: `mcpServers.aiterm` in `~/.claude.json`, read back with `claude mcp get aiterm`. */
export const claudeClient: ClientIntegration = {
  id: "claude",
  label: "Claude Code",
  async detect(ctx) {
    const bin = resolveBinary(claudeBinary, ctx.env);
    const path = CLAUDE_SPEC.path(ctx);
    const config = await exists(path);
    if (bin) return { found: true, bin, how: `claude CLI at ${bin}` };
    if (config) return { found: true, bin: null, how: `${path} exists (claude CLI not found)` };
    return { found: false, bin: null, how: `no claude CLI (CLAUDE_BIN, ~/.claude/local, PATH) and no ${path}` };
  },
  register: (ctx) => registerJson(CLAUDE_SPEC, ctx),
  async readBack(ctx, det) {
    const fromFile = await readBackJson(CLAUDE_SPEC, ctx);
    if (!det.bin) return { detail: `${fromFile}; claude CLI not found, so no health check`, health: "not_checked" };
    const args = ["mcp", "get", REGISTRATION_NAME];
    const r = await runCli(det.bin, args, ctx);
    if (r.code !== 0) throw cliFailure(det.bin, args, r);
    const got = parseClaudeMcpGet(r.stdout);
    if (!got.scope || !/user/i.test(got.scope)) {
      throw new SetupFailure(
        "shadowed_by_other_scope",
        `claude mcp get aiterm resolves to the "${got.scope ?? "unknown"}" entry, not the user config; ` +
          `remove that one with: claude mcp remove aiterm`,
      );
    }
    if (got.command !== ctx.server.command) {
      throw new SetupFailure("config_readback_failed", "claude mcp get aiterm shows a different command");
    }
    if (!got.status || !/connected/i.test(got.status) || /fail/i.test(got.status)) {
      throw new SetupFailure(
        "health_check_failed",
        `claude mcp get aiterm: ${got.status ?? "no status"}${got.issue ? ` (${got.issue})` : ""}`,
      );
    }
    return { detail: `${fromFile}; claude mcp get aiterm: ${got.status}`, health: "connected" };
  },
};
