/**
 * Invisible shell integration for bash and zsh: after every command the shell prints OSC 133 marks
 * (`ESC ] 133 ; D ; <status> BEL` then `ESC ] 133 ; A BEL`) before its prompt. Terminals and tmux do
 * not display them; aiterm strips them on read and uses them to know that a command ended and with
 * which exit status. The user's own rc files are still read first.
 */
import { join } from "node:path";
import { posixQuote } from "./shell_dialect.ts";

/** The byte pattern of a command-end mark; group 1 is the exit status. */
// deno-lint-ignore no-control-regex
export const COMMAND_END_MARK = /\x1b\]133;D;(\d+)\x07/g;
/** The byte pattern of a prompt-start mark. */
// deno-lint-ignore no-control-regex
export const PROMPT_MARK = /\x1b\]133;A\x07/g;

// The status is saved first and the marks printed last, so the marks come after the user's own
// prompt hooks (some are slow) and the prompt mark means "about to read the next line".
const BASH_RC = `# aiterm shell integration (generated; rewritten when a session opens)
if [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi
__aiterm_save() { __aiterm_status=$?; }
__aiterm_mark() { printf '\\033]133;D;%s\\007\\033]133;A\\007' "\${__aiterm_status:-0}"; }
if [[ "$(declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
  PROMPT_COMMAND=(__aiterm_save "\${PROMPT_COMMAND[@]}" __aiterm_mark)
else
  PROMPT_COMMAND="__aiterm_save
\${PROMPT_COMMAND:-}
__aiterm_mark"
fi
`;

const ZSH_ENV = `# aiterm shell integration (generated)
__aiterm_zdotdir="$ZDOTDIR"
ZDOTDIR="\${AITERM_USER_ZDOTDIR:-$HOME}"
[[ -f "$ZDOTDIR/.zshenv" ]] && . "$ZDOTDIR/.zshenv"
AITERM_USER_ZDOTDIR="$ZDOTDIR"
ZDOTDIR="$__aiterm_zdotdir"
`;

const ZSH_RC = `# aiterm shell integration (generated)
ZDOTDIR="$AITERM_USER_ZDOTDIR"
[[ -f "$ZDOTDIR/.zshrc" ]] && . "$ZDOTDIR/.zshrc"
__aiterm_save() { __aiterm_status=$?; }
__aiterm_mark() { printf '\\033]133;D;%s\\007\\033]133;A\\007' "\${__aiterm_status:-0}"; }
precmd_functions=(__aiterm_save $precmd_functions __aiterm_mark)
`;

/** What it takes to start a shell with integration. */
export interface IntegratedShell {
  argv: string[];
  env: Record<string, string>;
  /** Files to write (path → content) before the shell starts. */
  files: Record<string, string>;
}

/**
 * The argv, extra environment and rc files for `shellPath` with integration installed under
 * `dir`, or null when this shell has no integration (it then runs plain, and completion falls back
 * to sentinels, `until` and quiescence).
 */
export function integratedShell(
  shellPath: string,
  dir: string,
  env: Record<string, string | undefined>,
): IntegratedShell | null {
  const base = shellPath.split("/").pop() ?? "";
  if (base === "bash") {
    const rc = join(dir, "bashrc");
    return { argv: [shellPath, "--rcfile", rc, "-i"], env: {}, files: { [rc]: BASH_RC } };
  }
  if (base === "zsh") {
    const zdot = join(dir, "zsh");
    const extra: Record<string, string> = { ZDOTDIR: zdot, AITERM_USER_ZDOTDIR: env.ZDOTDIR ?? env.HOME ?? "" };
    return {
      argv: [shellPath, "-i"],
      env: extra,
      files: { [join(zdot, ".zshenv")]: ZSH_ENV, [join(zdot, ".zshrc")]: ZSH_RC },
    };
  }
  return null;
}

/** A one-line description for docs and tests of how a shell is started. */
export function describeIntegration(shellPath: string): string {
  return integratedShell(shellPath, "/x", {})?.argv.map(posixQuote).join(" ") ?? "(none)";
}
