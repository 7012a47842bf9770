/**
 * The line discipline modes of a pane's terminal (termios), read with `stty`: they tell a line
 * editor (readline, zle: raw) from a plain line read (`read X`, `cat`: canonical with echo) and from
 * a password prompt (`read -s`, getpass, su: canonical without echo). Measured with bash 5.2, zsh 5.9
 * and dash in tmux 3.3a; see /work/notes/prompts.md.
 */
import { runProcess } from "./run.ts";

/** The two modes that matter for prompts. */
export interface TerminalModes {
  /** ICANON: the kernel collects a line before the program sees it (no line editor is active). */
  canonical: boolean;
  /** ECHO: typed characters are shown. */
  echo: boolean;
}

/** Parses `stty -a` output (GNU and BSD); null when either flag is missing. */
export function parseSttyModes(text: string): TerminalModes | null {
  const words = new Set(text.split(/[\s;]+/));
  const flag = (name: string): boolean | null => words.has(name) ? true : words.has(`-${name}`) ? false : null;
  const canonical = flag("icanon");
  const echo = flag("echo");
  return canonical === null || echo === null ? null : { canonical, echo };
}

/** The terminal device `pid` runs on, from its standard descriptors (Linux); null when none is a terminal. */
export function terminalPath(pid: number): string | null {
  if (Deno.build.os !== "linux") return null;
  for (const fd of [0, 1, 2]) {
    try {
      const link = Deno.readLinkSync(`/proc/${pid}/fd/${fd}`);
      if (/^\/dev\/(pts\/\d+|tty\w*)$/.test(link)) return link;
    } catch {
      // closed or not ours
    }
  }
  return null;
}

/**
 * The `stty` argv that prints the modes of the terminal device `path` without making it the controlling terminal:
 * GNU stty (Linux) names the device with `-F`, BSD and macOS stty with `-f`.
 */
export function sttyArgs(os: string, path: string): string[] {
  return [os === "linux" ? "-F" : "-f", path, "-a"];
}

/**
 * The modes of the terminal `panePid` runs on (one `stty` spawn, about 2 ms); null when they cannot be read (no
 * terminal, stty missing or refused). Linux finds the device from the process's descriptors; elsewhere (no /proc) it
 * is `tty`, the pane's device as the multiplexer reports it.
 */
export async function readTerminalModes(panePid: number, tty?: string): Promise<TerminalModes | null> {
  const path = terminalPath(panePid) ?? (tty && /^\/dev\/\S+$/.test(tty) ? tty : null);
  if (!path || Deno.build.os === "windows") return null;
  try {
    // stty opens the device read-only and non-blocking; it is not a session leader, so the device
    // never becomes its controlling terminal.
    const out = await runProcess("stty", { args: sttyArgs(Deno.build.os, path), stderr: "null" });
    return out.success ? parseSttyModes(out.stdout) : null;
  } catch {
    return null;
  }
}
