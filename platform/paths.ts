/** OS-specific locations. The only module that knows where per-user state lives on each OS. */
import { join } from "node:path";

/** The state root: `$XDG_STATE_HOME/aiterm-mcp`, else `~/.local/state/aiterm-mcp` (Windows: `%LOCALAPPDATA%\aiterm-mcp`). */
export function defaultStateRoot(env: Record<string, string | undefined>): string {
  if (env.AITERM_STATE_DIR) return env.AITERM_STATE_DIR;
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
  try {
    return Deno.uid();
  } catch {
    return null;
  }
}
