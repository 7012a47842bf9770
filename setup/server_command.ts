/**
 * The command AI clients are told to start: the aiterm MCP server in its default `serve` form.
 * Compiled: the absolute path of the `aiterm-mcp` binary with no arguments. From source:
 * `<deno> run -A <absolute main.ts>`.
 */
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isCompiled } from "../platform/mod.ts";
import { type ServerCommand, SetupFailure } from "../harnesses/clients/mod.ts";

export { sameCommand, type ServerCommand } from "../harnesses/clients/mod.ts";

/** True when this executable's name is `aiterm-setup` (the release ships setup under that name too). */
export function isSetupName(path: string): boolean {
  return /^aiterm-setup(\.exe)?$/i.test(basename(path));
}

/**
 * The registered server command. When running as `aiterm-setup`, the server is the `aiterm-mcp`
 * binary beside it (registering `aiterm-setup` itself would start setup, not the server).
 */
export function serverCommand(
  execPath: string = Deno.execPath(),
  compiled: boolean = isCompiled(),
  mainModule: string = Deno.mainModule,
): ServerCommand {
  if (compiled) {
    if (!isSetupName(execPath)) return { command: execPath, args: [] };
    const sibling = join(dirname(execPath), /\.exe$/i.test(execPath) ? "aiterm-mcp.exe" : "aiterm-mcp");
    try {
      if (Deno.statSync(sibling).isFile) return { command: sibling, args: [] };
    } catch {
      // reported below
    }
    throw new SetupFailure(
      "server_binary_not_found",
      `aiterm-setup needs the aiterm-mcp binary beside it (${sibling}); keep both files of the release together`,
    );
  }
  // The module this process started from (main.ts, or a bundle of it), never a path beside this source file:
  // a bundle has no main.ts next to it.
  const main = new URL(mainModule);
  return { command: execPath, args: ["run", "-A", main.protocol === "file:" ? fileURLToPath(main) : main.href] };
}

/** True when the command runs aiterm from source or a bundle (`deno run`), not a release binary. */
export function isDevelopmentCommand(server: ServerCommand): boolean {
  return server.args[0] === "run";
}
