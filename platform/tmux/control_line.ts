/**
 * The control client's line protocol, without a process: how a CLI argv becomes one control-mode line
 * (its commands split as tmux splits them, each argument quoted for tmux's parser), which commands a
 * control line may carry and which only read, and the `list-clients` rows that count control clients.
 * The client and the transport that write these lines are in platform/tmux/tmux_control.ts.
 */

/**
 * The commands of a CLI argv, split the way tmux's `cmd_parse_from_arguments` does: an argument ending
 * in `;` ends a command (a lone `;` is only a separator), and a trailing `\;` stands for a literal `;`.
 */
export function splitCliCommands(argv: string[]): string[][] {
  const out: string[][] = [];
  let cmd: string[] = [];
  for (const raw of argv) {
    let arg = raw;
    let end = false;
    if (arg.endsWith(";")) {
      arg = arg.slice(0, -1);
      if (arg.endsWith("\\")) arg = `${arg.slice(0, -1)};`;
      else end = true;
    }
    if (!end || arg.length > 0) cmd.push(arg);
    if (end) {
      if (cmd.length) out.push(cmd);
      cmd = [];
    }
  }
  if (cmd.length) out.push(cmd);
  return out;
}

const BARE = /^[A-Za-z0-9_./:@,+-]+$/;

/**
 * One argument for tmux's command-line parser, so that it arrives byte for byte: bare when it is made
 * of harmless characters, else a double-quoted string in which `\`, `"`, `$` and `~` are escaped and
 * every control character (newline included) is a 3-digit octal escape. Nothing else is special
 * inside double quotes (`#`, `;`, `{`, `}`, `'` and spaces are literal there).
 */
export function quoteControlArg(value: string): string {
  if (BARE.test(value)) return value;
  let out = '"';
  for (const ch of value) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\" || ch === '"' || ch === "$" || ch === "~") out += `\\${ch}`;
    else if (c < 0x20 || c === 0x7f) out += `\\${c.toString(8).padStart(3, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Commands that change nothing: a line of only these is retried on the CLI when its reply is lost. */
const READ_COMMANDS = new Set([
  "capture-pane",
  "display-message",
  "has-session",
  "list-buffers",
  "list-clients",
  "list-panes",
  "list-sessions",
  "list-windows",
  "show-buffer",
  "show-options",
]);

/**
 * The commands the control client may carry: each runs to its end without waiting. Anything else stays
 * on the CLI: new-session starts the server and prints its pid; kill-session can end the session the
 * client is attached to; kill-server ends the client; load-buffer of a file and commands such as
 * wait-for or run-shell wait in the client's queue, so an exit of the client could cut their line in half.
 */
const CONTROL_COMMANDS = new Set([
  ...READ_COMMANDS,
  "delete-buffer",
  // Only with -F (a format, no shell): see controlLine.
  "if-shell",
  "paste-buffer",
  "pipe-pane",
  "send-keys",
  "set-buffer",
  "set-option",
]);

/** A CLI argv as one control-mode line: the line and how many commands (blocks) it holds. */
export interface ControlLine {
  line: string;
  commands: number;
  /** Every command only reads (safe to run again on the CLI). */
  readOnly: boolean;
}

/**
 * The control line for a CLI argv, or null when it must go through the CLI (see CONTROL_COMMANDS).
 * `blocks`: how many reply blocks the line makes when that is not one per command: `if-shell -F` adds
 * one per command of the branch it runs (so both branches must have as many). A line with if-shell
 * needs it.
 */
export function controlLine(argv: string[], blocks?: number): ControlLine | null {
  const cmds = splitCliCommands(argv);
  if (cmds.length === 0) return null;
  // NUL cannot be in an argv (the CLI refuses it); keep that behaviour by leaving it to the CLI.
  if (argv.some((a) => a.includes("\0"))) return null;
  if (!cmds.every((c) => CONTROL_COMMANDS.has(c[0]!))) return null;
  // if-shell without -F runs a shell and waits for it; -F decides from a format at once.
  const ifShell = cmds.filter((c) => c[0] === "if-shell");
  if (ifShell.some((c) => !c.includes("-F")) || (ifShell.length > 0 && blocks === undefined)) return null;
  const line = lineOf(cmds);
  return blocks === undefined ? line : { ...line, commands: blocks };
}

/**
 * A CLI argv as the text of a tmux command list (what a command such as if-shell takes as its argument
 * and parses again): each argument quoted for tmux's parser, commands joined by ` ; `.
 */
export function commandText(argv: string[]): string {
  return lineOf(splitCliCommands(argv)).line;
}

/** Commands (already split) as one control line, each argument quoted for tmux's parser. */
export function lineOf(cmds: string[][]): ControlLine {
  return {
    line: cmds.map((c) => c.map(quoteControlArg).join(" ")).join(" ; "),
    commands: cmds.length,
    readOnly: cmds.every((c) => READ_COMMANDS.has(c[0]!)),
  };
}

/**
 * `list-clients` argv whose output {@link controlClientsBySession} reads: which sessions have control
 * clients attached (this process's and other aiterm processes'), so `session_attached` can be corrected.
 */
export const CONTROL_CLIENTS_ARGS = ["list-clients", "-F", "#{client_control_mode}\t#{session_name}"];

/** Counts control clients per session name from {@link CONTROL_CLIENTS_ARGS} output. */
export function controlClientsBySession(stdout: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of stdout.split("\n")) {
    const tab = line.indexOf("\t");
    if (tab < 0 || line.slice(0, tab) !== "1") continue;
    const name = line.slice(tab + 1);
    out.set(name, (out.get(name) ?? 0) + 1);
  }
  return out;
}
