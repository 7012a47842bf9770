/**
 * The escaping chokepoint for tmux arguments (ADR 0014). Every caller-controlled string that
 * reaches a tmux argv goes through exactly one of these two functions, chosen by what tmux does
 * with that argument position:
 *
 * - {@link tmuxArg}: a plain argument. tmux's command-line parser still looks at it: an argument
 *   that ends in `;` ends the command (the rest of the argv becomes a new command), so a trailing
 *   `;` is written as `\;`, which tmux turns back into `;`.
 * - {@link tmuxFormatArg}: an argument tmux expands as a format (`new-session -c`, `pipe-pane`'s
 *   command, `load-buffer`'s path, …). `#(…)` there runs a shell command and `#{…}` substitutes
 *   server state, so every `#` is doubled (`##` is tmux's literal `#`), then the plain rule applies.
 *
 * - {@link tmuxTimeFormatArg}: a format tmux first passes through strftime(3) (`pipe-pane`'s command):
 *   `%` is doubled as well, else `%d` in a path becomes the day of the month.
 *
 * Which positions are formats is fixed by tmux, not by us; `tmux_args_test.ts` asserts each one we
 * use against a real tmux, so a tmux that changes a position is caught.
 */

/** A plain tmux argument: the value arrives exactly, whatever it ends with. */
export function tmuxArg(value: string): string {
  // tmux strips one trailing ';' and, if a '\' precedes it, turns that '\' into the ';' instead.
  return value.endsWith(";") ? `${value.slice(0, -1)}\\;` : value;
}

/** An argument tmux expands as a format: no `#(…)` runs, no `#{…}` is substituted. */
export function tmuxFormatArg(value: string): string {
  return tmuxArg(value.replaceAll("#", "##"));
}

/** A format tmux runs through strftime(3) first (`pipe-pane`'s command): no `%…` conversion either. */
export function tmuxTimeFormatArg(value: string): string {
  return tmuxFormatArg(value.replaceAll("%", "%%"));
}
