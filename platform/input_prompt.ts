/**
 * Which kind of prompt a terminal's foreground waits at, when it is not a fresh command prompt:
 * a shell's continuation prompt (PS2: an unbalanced quote, an open `for`, a here-document), a line
 * read (`read X` in the shell or a script), or a password prompt (echo off: `read -s`, getpass, su,
 * sudo). Pure: it classifies facts read elsewhere (the kernel's input-wait verdict, the terminal's
 * modes from platform/terminal_modes.ts, and which shell-integration mark came last after the send).
 *
 * Measured (bash 5.2, zsh 5.9, dash, tmux 3.3a): readline and zle keep the terminal raw (-icanon
 * -echo) at PS1 and at PS2; `read X`, `cat` and dash at any prompt are canonical with echo; `read -s`
 * (bash, zsh) and python's getpass are canonical without echo.
 */
import type { TerminalModes } from "./terminal_modes.ts";

/** The kinds of prompt reported. */
export type PromptKind = "continuation" | "read" | "password";

/** Everything {@link classifyInputPrompt} looks at. */
export interface PromptFacts {
  /**
   * The kernel's verdict on the foreground group: waiting for terminal input (platform/input_wait.ts, or
   * platform/ps_foreground.ts without /proc); null when it cannot tell.
   */
  waiting: boolean | null;
  /** The foreground is the session's own shell. */
  atShell: boolean;
  /** The foreground program's name. */
  name: string;
  /** The session's shell prints command-end marks (OSC 133 integration). */
  integrated: boolean;
  /**
   * The last integration mark after the last send: `end` (a command ended: a fresh prompt),
   * `continuation` (the shell printed PS2), or null (none yet).
   */
  lastMark: "end" | "continuation" | null;
  /** The terminal's modes; null when they could not be read. */
  modes: TerminalModes | null;
}

/** Shells whose interactive prompt is a raw-mode line editor, so a canonical line read is a `read`. */
const LINE_EDITING_SHELL = /^(bash|zsh)$/;

/** The prompt the foreground waits at, or null (a fresh prompt, a program of its own, or cannot tell). */
export function classifyInputPrompt(f: PromptFacts): PromptKind | null {
  if (f.waiting === false) return null;
  const m = f.modes;
  // Echo off while the kernel collects a line: only a secret is read that way. Also when the kernel cannot name the
  // descriptor the group sleeps on (null: a wait channel without its descriptors, ps without one): no member runs,
  // and a program turns echo off in line mode only for the moment it reads a secret (ssh, sudo, getpass).
  if (m && m.canonical && !m.echo) return "password";
  if (f.waiting !== true) return null;
  // The shell printed PS2 and its line editor (raw) is reading the rest of the command.
  if (f.lastMark === "continuation" && (m === null || !m.canonical)) return "continuation";
  if (m && m.canonical && m.echo) {
    // An integrated shell with no fresh prompt since the send, reading a plain line: `read X`.
    if (f.atShell && f.integrated && f.lastMark !== "end") return "read";
    // A bash or zsh script reading a line (an interactive one would be in its raw line editor).
    if (!f.atShell && LINE_EDITING_SHELL.test(f.name)) return "read";
  }
  return null;
}

/**
 * The last integration mark in `text` (a window of the log after the send), by position:
 * command end, continuation prompt, or null when it holds neither.
 */
export function lastIntegrationMark(text: string): "end" | "continuation" | null {
  const end = text.lastIndexOf("\x1b]133;D;");
  const cont = text.lastIndexOf("\x1b]133;A;k=s\x07");
  if (end < 0 && cont < 0) return null;
  return end > cont ? "end" : "continuation";
}
