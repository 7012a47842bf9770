/**
 * What the vendor folders' setup code reads about the host, and the command they register: the OS,
 * the home directory, config file modes, versions, and the aiterm server command (computed by
 * setup/server_command.ts and passed in).
 */
import { join } from "node:path";

/** The operating systems setup knows about. */
export type SetupOs = "linux" | "darwin" | "windows" | "other";

/** This process's OS. */
export function currentOs(): SetupOs {
  const os = Deno.build.os;
  return os === "linux" || os === "darwin" || os === "windows" ? os : "other";
}

/** The user's home directory (HOME; USERPROFILE on Windows), or null. */
export function homeDir(env: Record<string, string | undefined>, os: SetupOs = currentOs()): string | null {
  const home = os === "windows" ? env.USERPROFILE ?? env.HOME : env.HOME;
  return home && home.length > 0 ? home : null;
}

/** True when a config file must be treated as read-only (its owner write bit is off). */
export function isReadOnlyFile(info: Deno.FileInfo, os: SetupOs = currentOs()): boolean {
  // Windows reports no mode bits here; a read-only file there fails the rename (config_readonly).
  if (os === "windows") return false;
  return info.mode !== null && (info.mode & 0o200) === 0;
}

/** Permission bits to give a rewritten file: the old file's, else owner-only. */
export function fileModeFor(info: Deno.FileInfo | null): number {
  return info?.mode != null ? info.mode & 0o7777 : 0o600;
}

function numbers(text: string): number[] | null {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

/** True when dotted version `have` is at least `min` (missing parts count as 0). */
export function versionAtLeast(have: string, min: string): boolean {
  const a = numbers(have);
  const b = numbers(min);
  if (!a || !b) return false;
  for (let i = 0; i < 3; i++) {
    if (a[i]! !== b[i]!) return a[i]! > b[i]!;
  }
  return true;
}

/** A command sequence as one line a user can paste. */
export function displayCommand(steps: string[][]): string {
  return steps.map((argv) =>
    argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`)).join(" ")
  )
    .join(" && ");
}

/** An argv split the way client configs store it. */
export interface ServerCommand {
  command: string;
  args: string[];
}

/** True when a registered `command`/`args` pair is exactly `want`. */
export function sameCommand(command: unknown, args: unknown, want: ServerCommand): boolean {
  const a = args === undefined || args === null ? [] : args;
  return command === want.command && Array.isArray(a) && a.length === want.args.length &&
    a.every((x, i) => x === want.args[i]);
}

/** The standard locations of each client's user config (CLAUDE_CONFIG_DIR and GROK_HOME respected). */
export function clientConfigPaths(env: Record<string, string | undefined>, home: string): {
  claude: string;
  cursorDir: string;
  cursor: string;
  grok: string;
} {
  const claudeDir = env.CLAUDE_CONFIG_DIR || home;
  const grokHome = env.GROK_HOME || join(home, ".grok");
  return {
    claude: join(claudeDir, ".claude.json"),
    cursorDir: join(home, ".cursor"),
    cursor: join(home, ".cursor", "mcp.json"),
    grok: join(grokHome, "config.toml"),
  };
}
