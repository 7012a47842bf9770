/**
 * How a new pane's program gets its environment and its working directory (ADRs 0014, 0033).
 *
 * Environment. A pane's program would otherwise inherit the environment of the tmux server, which is the
 * environment of whichever process first started that server (it outlives every session: `exit-empty off`).
 * So the pane starts from the environment of the aiterm process that opens it: that whole environment
 * (less the multiplexer's and the shell's own variables) and aiterm's variables on top go into an owner-only
 * file in the session's private directory, and the pane runs a small POSIX launcher that drops everything it
 * inherited (`env -i`), keeps only the variables tmux sets for the pane itself (TERM, TMUX, TMUX_PANE, …:
 * handed over on a here-document, never in an argv), sources the file and `exec`s the real program. An argv
 * is readable by every local user (`/proc/<pid>/cmdline`, `ps`), so no value is ever in one: the launcher's
 * argv holds the file's path and the directory only.
 *
 * Directory. tmux's `new-session -c` is a format, and tmux 3.x keeps `##[` as is (a style for its status
 * line) where every other `##` becomes `#`, so no escaping gives back every name on every tmux version, and
 * tmux silently starts the pane in another directory when the one it got does not exist. So the launcher
 * `cd`s itself, with the directory as a plain argument, and reports where it is: it overwrites the file
 * (the environment is gone from the disk from then on) with `pwd -P`, the kernel's answer for the pane, or
 * with {@link LAUNCH_CWD_FAILED} when the directory cannot be entered (then it exits 125, before any program).
 */
import { AppError } from "../base/errors.ts";
import { posixQuote } from "./shell_dialect.ts";

/** A name the launcher may export: a portable shell identifier. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The variables tmux sets for a pane itself (environ_for_session and spawn in tmux 3.x): the pane's, not the
 * opener's. The launcher keeps tmux's values of these, whatever the opener had. The order is the order of the
 * here-document lines; TMUX last.
 */
export const MUX_OWN_VARS = ["TERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "TMUX_PANE", "TMUX"] as const;

/**
 * The shell's own variables: set by the launcher's `cd` and by the shell itself, or read-only in bash (an
 * assignment would end the launcher). Never copied from the opener.
 */
const SHELL_OWN_VARS = new Set(["PWD", "OLDPWD", "BASHOPTS", "BASH_VERSINFO", "EUID", "PPID", "SHELLOPTS", "UID"]);

/** The env file's first line: the file is never empty and never starts with `/` until the launcher reported. */
const FILE_HEADER = "# aiterm launch: read once, then overwritten with the pane's directory\n";

/** What the launcher writes into the file when it cannot enter the directory. */
export const LAUNCH_CWD_FAILED = "cwd\n";

/** Where `/usr/bin/env` is: the one tool the launcher runs (POSIX `env -i`; at this path on Linux and macOS). */
const ENV_BIN = "/usr/bin/env";

/**
 * Stage one (the pane's first process, with tmux's environment): `cd`, then `exec env -i` into stage two with
 * tmux's own variables on fd 3, a here-document of one line each (`=value` when set, empty when not; a value
 * holding a newline, which only a socket path could, keeps its first line). Its arguments: `$0` the launcher
 * name, `$1` the file, `$2` the directory, `$3` stage two's script, the rest the program.
 */
export const LAUNCHER_SCRIPT = [
  'cd -- "$2" 2>/dev/null || { echo cwd >"$1"; exit 125; }',
  `exec ${ENV_BIN} -i /bin/sh -c "$3" "$0" "$@" 3<<E`,
  ...MUX_OWN_VARS.map((n) => "${" + n + "+=}${" + n + "}"),
  "E",
  "exit 126",
].join("\n");

/**
 * Stage two (an empty environment): tmux's own variables back from fd 3, the opener's from the file, then the
 * directory reported into the file, and the program. Only positional parameters and `_aiterm_n`/`_aiterm_v`
 * (unexported) are used, so no variable the file exports can change what it does next.
 */
export const LAUNCHER_STAGE_TWO = [
  `for _aiterm_n in ${MUX_OWN_VARS.join(" ")}; do`,
  `IFS= read -r _aiterm_v <&3 && case $_aiterm_v in =*) export "$_aiterm_n=\${_aiterm_v#=}";; esac`,
  `done; exec 3<&-; unset _aiterm_n _aiterm_v`,
  `. "$1" || exit 126`,
  `pwd -P >"$1" || exit 126`,
  `shift 3; exec "$@"`,
].join("\n");

/** The launcher's `$0`: what `ps` shows for the instant before the program replaces it. */
export const LAUNCHER_NAME = "aiterm-launch";

/**
 * The environment file's text: a header line, then one `export NAME='value'` line per variable (values quoted
 * for POSIX sh): `base` (the opener's environment) less the multiplexer's and the shell's own variables and
 * less any name sh cannot export (an exported bash function, `a-b`: skipped), then `env` on top.
 * @throws {AppError} INVALID_ARGUMENT when a name of `env` (aiterm's own and the caller's `env_vars`) is not a
 *   shell identifier
 */
export function envFileText(base: Record<string, string>, env: Record<string, string>): string {
  let text = FILE_HEADER;
  for (const [name, value] of Object.entries(base)) {
    if (!ENV_NAME.test(name) || Object.hasOwn(env, name) || SHELL_OWN_VARS.has(name)) continue;
    if ((MUX_OWN_VARS as readonly string[]).includes(name)) continue;
    text += `export ${name}=${posixQuote(value)}\n`;
  }
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

/** argv that runs `argv` in `cwd` with the environment of `envFile` (see the module doc). */
export function launcherArgv(envFile: string, cwd: string, argv: string[]): string[] {
  return [
    "/bin/sh",
    "-c",
    LAUNCHER_SCRIPT,
    LAUNCHER_NAME,
    envFile,
    cwd,
    LAUNCHER_STAGE_TWO,
    ...argv,
  ];
}

/** What the launcher's file says now. */
export type LaunchReport =
  /** The launcher has not reported yet (or the file is gone). */
  | { state: "pending" }
  /** The directory could not be entered; the program was not started. */
  | { state: "cwd_failed" }
  /** The launcher entered its directory (`cwd`, as `pwd -P` printed it) and is starting the program. */
  | { state: "started"; cwd: string };

/** Reads the launcher's report from the file's text (see the module doc). */
export function parseLaunchReport(text: string | null): LaunchReport {
  if (text === LAUNCH_CWD_FAILED) return { state: "cwd_failed" };
  // `pwd -P` prints the path and one newline in one write; a path may itself hold newlines.
  if (text !== null && text.startsWith("/") && text.endsWith("\n")) return { state: "started", cwd: text.slice(0, -1) };
  return { state: "pending" };
}

/**
 * Writes the environment to a new owner-only file in `dir` (which must be private) and returns its path.
 * @throws {AppError} INVALID_ARGUMENT (a bad name in `env`), STATE_WRITE_FAILED
 */
export async function writeEnvFile(
  dir: string,
  base: Record<string, string>,
  env: Record<string, string>,
): Promise<string> {
  const text = envFileText(base, env);
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
