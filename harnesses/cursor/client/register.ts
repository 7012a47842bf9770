/** Cursor's registration: `mcpServers.aiterm` in `~/.cursor/mcp.json`, edited as a file and read back. */
import type { ClientIntegration, JsonClientSpec } from "../../common/client/mod.ts";
import { clientConfigPaths, isDir, readBackJson, registerJson, resolveBinary } from "../../common/client/mod.ts";
import { stdioEntryMatches, withoutRemoteFields } from "../../common/client/mod.ts";
import { cursorBinary } from "../launch.ts";

const CURSOR_SPEC: JsonClientSpec = {
  id: "cursor",
  label: "Cursor",
  jsonc: true,
  path: (ctx) => clientConfigPaths(ctx.env, ctx.home).cursor,
  // Cursor's documented stdio shape: {command, args, env?}.
  build: (existing, server) => ({ ...withoutRemoteFields(existing), command: server.command, args: server.args }),
  matches: stdioEntryMatches,
};

/** Cursor's registration: `mcpServers.aiterm` in `~/.cursor/mcp.json` (JSONC tolerated), edited and read back here. */
export const cursorClient: ClientIntegration = {
  id: "cursor",
  label: "Cursor",
  async detect(ctx) {
    const dir = clientConfigPaths(ctx.env, ctx.home).cursorDir;
    const bin = resolveBinary(cursorBinary, ctx.env);
    if (await isDir(dir)) return { found: true, bin, how: `${dir} exists` };
    if (bin) return { found: true, bin, how: `cursor-agent at ${bin}` };
    return { found: false, bin: null, how: `no ${dir} and no cursor-agent (CURSOR_AGENT_BIN, ~/.local/bin, PATH)` };
  },
  register: (ctx) => registerJson(CURSOR_SPEC, ctx),
  async readBack(ctx) {
    return { detail: await readBackJson(CURSOR_SPEC, ctx) };
  },
};
