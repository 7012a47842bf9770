/**
 * How a new pane's program receives its environment without any value in an argv (ADR 0014). An
 * argv is readable by every local user (`/proc/<pid>/cmdline`, `ps`) and tmux's server keeps the
 * argv of the client that started it for its whole life, so `new-session -e NAME=value` or
 * `env NAME=value …` would publish every value. Instead the values go into an owner-only file in
 * the session's private directory, and the pane runs a small POSIX launcher that sources that file,
 * deletes it and `exec`s the real program. The launcher's argv holds the file's path, never a value.
 */
import { AppError } from "../base/errors.ts";
import { posixQuote } from "./shell_dialect.ts";

/** A name the launcher may export: a portable shell identifier. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The launcher (`sh -c` script): `$1` is the env file, the rest is the program's argv. Only
 * positional parameters are used, so no exported name can change what the script does next.
 */
export const LAUNCHER_SCRIPT = '. "$1" || exit 126; rm -f -- "$1"; shift; exec "$@"';

/** The launcher's `$0`: what `ps` shows for the instant before the program replaces it. */
export const LAUNCHER_NAME = "aiterm-launch";

/**
 * The env file's text: one `export NAME='value'` line per variable (values quoted for POSIX sh).
 * @throws {AppError} INVALID_ARGUMENT when a name is not a shell identifier
 */
export function envFileText(env: Record<string, string>): string {
  let text = "";
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name)) {
      throw new AppError("INVALID_ARGUMENT", `Cannot pass variable "${name}" to a session: not a shell identifier`, {
        data: { field: "env_vars" },
      });
    }
    text += `export ${name}=${posixQuote(value)}\n`;
  }
  return text;
}

/** argv that runs `argv` with the variables of `envFile` (see the module doc). */
export function launcherArgv(envFile: string, argv: string[]): string[] {
  return ["/bin/sh", "-c", LAUNCHER_SCRIPT, LAUNCHER_NAME, envFile, ...argv];
}

/**
 * Writes `env` to a new owner-only file in `dir` (which must be private) and returns its path.
 * @throws {AppError} INVALID_ARGUMENT (a bad name), STATE_WRITE_FAILED
 */
export async function writeEnvFile(dir: string, env: Record<string, string>): Promise<string> {
  const text = envFileText(env);
  const path = `${dir}/launch-env.${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  try {
    await Deno.writeTextFile(path, text, { mode: 0o600, createNew: true });
  } catch (err) {
    throw new AppError("STATE_WRITE_FAILED", `Cannot write a session's launch file: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return path;
}
