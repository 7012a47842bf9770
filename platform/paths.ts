/** OS-specific locations. The only module that knows where per-user state lives on each OS. */
import { join } from "node:path";
import { knobFrom } from "../base/config.ts";

/**
 * The state root: the configured one (Config.stateDir, AITERM_STATE_DIR), else `$XDG_STATE_HOME/aiterm-mcp`,
 * else `~/.local/state/aiterm-mcp` (Windows: `%LOCALAPPDATA%\aiterm-mcp`). A caller that passes no
 * `stateDir` (transitional: lib/agent/delivery/cli.ts) gets it read from `env` through base/config.ts.
 */
export function defaultStateRoot(env: Record<string, string | undefined>, stateDir?: string | null): string {
  const configured = stateDir === undefined ? knobFrom(env, "stateDir") : stateDir;
  if (configured) return configured;
  if (Deno.build.os === "windows") {
    const base = env.LOCALAPPDATA ?? join(env.USERPROFILE ?? "C:\\", "AppData", "Local");
    return join(base, "aiterm-mcp");
  }
  if (env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith("/")) return join(env.XDG_STATE_HOME, "aiterm-mcp");
  const home = env.HOME ?? "/tmp";
  return join(home, ".local", "state", "aiterm-mcp");
}

/** The current user's numeric id, or null where the OS has none. */
export function currentUid(): number | null {
  // A process's user does not change (Deno cannot switch it): asked once, not before every tmux command.
  if (uid === undefined) {
    try {
      uid = Deno.uid();
    } catch {
      uid = null;
    }
  }
  return uid;
}
let uid: number | null | undefined;
