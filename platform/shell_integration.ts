/**
 * Invisible shell integration for bash and zsh: after every command the shell prints OSC 133 marks
 * (`ESC ] 133 ; D ; <status> BEL` then `ESC ] 133 ; A BEL`) before its prompt. Terminals and tmux do
 * not display them; aiterm strips them on read and uses them to know that a command ended and with
 * which exit status. The user's own rc files are still read first.
 */
import { CHILD_VARS } from "../base/config.ts";
import { join } from "node:path";
import { posixQuote } from "./shell_dialect.ts";

/** The byte pattern of a command-end mark; group 1 is the exit status. */
// deno-lint-ignore no-control-regex
export const COMMAND_END_MARK = /\x1b\]133;D;(\d+)\x07/g;
/** The byte pattern of a prompt-start mark. */
// deno-lint-ignore no-control-regex
export const PROMPT_MARK = /\x1b\]133;A\x07/g;
/**
 * The byte pattern of a continuation-prompt mark: the integration puts it into PS2 (kitty's
 * "secondary prompt" form of OSC 133), so the log says when the shell asks for more of a command.
 */
// deno-lint-ignore no-control-regex
export const CONTINUATION_MARK = /\x1b\]133;A;k=s\x07/g;

// bash: the whole hook is inline code in PROMPT_COMMAND, so that a bash started from the session
// (`bash`, `bash --norc`) picks the same integration up from the environment without any file.
// The status is saved first and the marks printed last, so the marks come after the user's own
// prompt hooks (some are slow) and the prompt mark means "about to read the next line".
// A shell's first prompt prints no command-end mark unless __aiterm_up is set: a nested shell that
// just started did not finish a command. PS2 gets the continuation mark (inside \[ \]: no width).
/** bash code, first in PROMPT_COMMAND: keeps the status of the command that just ended. */
const BASH_PC_SAVE = "__aiterm_status=$?";
/** bash code, last in PROMPT_COMMAND: the marks, and the continuation mark put into PS2 once. */
const BASH_PC_MARK = 'if [ -n "${__aiterm_up:-}" ]; then printf "\\033]133;D;%s\\007" "${__aiterm_status:-0}"; fi; ' +
  '__aiterm_up=1; case "$PS2" in *"133;A;k=s"*) ;; *) PS2="\\[\\033]133;A;k=s\\007\\]$PS2" ;; esac; ' +
  'printf "\\033]133;A\\007"';
/** The whole PROMPT_COMMAND a bash started from an integrated session picks up from its environment. */
const BASH_CHILD_PROMPT_COMMAND = `${BASH_PC_SAVE}\n${BASH_PC_MARK}`;

const BASH_RC = `# aiterm shell integration (generated; rewritten when a session opens)
if [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi
__aiterm_pc_save=${posixQuote(BASH_PC_SAVE)}
__aiterm_pc_mark=${posixQuote(BASH_PC_MARK)}
if [[ "$(declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
  PROMPT_COMMAND=("$__aiterm_pc_save" "\${PROMPT_COMMAND[@]}" "$__aiterm_pc_mark")
elif [ -z "\${PROMPT_COMMAND:-}" ] || [ "$PROMPT_COMMAND" = ${posixQuote(BASH_CHILD_PROMPT_COMMAND)} ]; then
  # Nothing of the user's in it: children get it too (a nested bash then reports its commands).
  export PROMPT_COMMAND="$__aiterm_pc_save
$__aiterm_pc_mark"
else
  PROMPT_COMMAND="$__aiterm_pc_save
$PROMPT_COMMAND
$__aiterm_pc_mark"
fi
unset __aiterm_pc_save __aiterm_pc_mark
__aiterm_up=1
`;

// zsh: ZDOTDIR points here while zsh starts, and again once the session's .zshrc is done, so that
// a zsh started from the session (not \`zsh -f\`) reads these files too. Each file reads the user's
// own file of the same name from AITERM_USER_ZDOTDIR (their ZDOTDIR, or HOME).
const ZSH_ENV = `# aiterm shell integration (generated)
__aiterm_zdotdir="$ZDOTDIR"
ZDOTDIR="\${AITERM_USER_ZDOTDIR:-$HOME}"
[[ -f "$ZDOTDIR/.zshenv" ]] && . "$ZDOTDIR/.zshenv"
export AITERM_USER_ZDOTDIR="$ZDOTDIR"
ZDOTDIR="$__aiterm_zdotdir"
`;

/** A zsh startup file that only reads the user's file of the same name. */
function zshShim(name: string): string {
  return `# aiterm shell integration (generated)
ZDOTDIR="$AITERM_USER_ZDOTDIR"
[[ -f "$ZDOTDIR/${name}" ]] && . "$ZDOTDIR/${name}"
ZDOTDIR="$__aiterm_zdotdir"
`;
}

const ZSH_RC = `# aiterm shell integration (generated)
ZDOTDIR="$AITERM_USER_ZDOTDIR"
[[ -f "$ZDOTDIR/.zshrc" ]] && . "$ZDOTDIR/.zshrc"
__aiterm_save() { __aiterm_status=$?; }
__aiterm_mark() {
  [[ -n "\${__aiterm_up:-}" ]] && printf '\\033]133;D;%s\\007' "\${__aiterm_status:-0}"
  __aiterm_up=1
  [[ "$PS2" == *'133;A;k=s'* ]] || PS2=$'%{\\e]133;A;k=s\\a%}'"$PS2"
  printf '\\033]133;A\\007'
}
precmd_functions=(__aiterm_save \${precmd_functions:#__aiterm_*} __aiterm_mark)
if [[ -n "\${AITERM_SHELL_TOP:-}" ]]; then __aiterm_up=1; unset AITERM_SHELL_TOP; fi
export ZDOTDIR="$__aiterm_zdotdir"
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
  // Both shells get the zsh files and ZDOTDIR: a zsh started from the session is integrated too.
  const zdot = join(dir, "zsh");
  const zshEnv: Record<string, string> = {
    ZDOTDIR: zdot,
    [CHILD_VARS.userZdotdir]: env.ZDOTDIR ?? env.HOME ?? "",
  };
  const zshFiles: Record<string, string> = {
    [join(zdot, ".zshenv")]: ZSH_ENV,
    [join(zdot, ".zshrc")]: ZSH_RC,
    [join(zdot, ".zprofile")]: zshShim(".zprofile"),
    [join(zdot, ".zlogin")]: zshShim(".zlogin"),
    [join(zdot, ".zlogout")]: zshShim(".zlogout"),
  };
  if (base === "bash") {
    const rc = join(dir, "bashrc");
    return { argv: [shellPath, "--rcfile", rc, "-i"], env: zshEnv, files: { [rc]: BASH_RC, ...zshFiles } };
  }
  if (base === "zsh") {
    // AITERM_SHELL_TOP: the session's own zsh (not a nested one) marks its first prompt as a command end.
    // PROMPT_COMMAND means nothing to zsh; a bash started from it picks the integration up.
    return {
      argv: [shellPath, "-i"],
      env: { ...zshEnv, [CHILD_VARS.shellTop]: "1", PROMPT_COMMAND: BASH_CHILD_PROMPT_COMMAND },
      files: zshFiles,
    };
  }
  return null;
}

/** A one-line description for docs and tests of how a shell is started. */
export function describeIntegration(shellPath: string): string {
  return integratedShell(shellPath, "/x", {})?.argv.map(posixQuote).join(" ") ?? "(none)";
}
