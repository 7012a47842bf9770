/**
 * Where a `mark` sentinel may be typed (issue 15 item 4). A sentinel is shell syntax (`; printf …` or a
 * PowerShell statement), so it is typed only where a shell of a known dialect reads the line: the foreground
 * program is such a shell (by its name), or a prompt host (ssh, docker, su, …) shows a shell prompt on its
 * screen or the caller names the dialect. A known non-shell (a REPL, an editor, a pager) never gets one.
 * Pure: the caller supplies the foreground program's name and, when asked for, the screen.
 */
import { dialectForShell } from "../../../platform/mod.ts";
import { BYTE_PIPES, FOREIGN_SHELLS, PROMPT_HOSTS, REPLS, SCREEN_PROGRAMS } from "./programs.ts";

/** The dialect of a sentinel. */
export type MarkDialect = "posix" | "pwsh";

/** What kind of program is in the foreground, as far as marks go. */
export type MarkHost =
  /** A shell whose dialect aiterm writes: the sentinel works. */
  | { kind: "shell"; dialect: MarkDialect }
  /** fish, csh, nu…: shells whose syntax aiterm does not write. */
  | { kind: "foreign_shell" }
  /** ssh, docker, su…: the program itself does not tell which shell (if any) reads the line. */
  | { kind: "prompt_host" }
  /** A REPL, an editor, a pager: never a shell. */
  | { kind: "not_a_shell" }
  /** Anything else. */
  | { kind: "unknown" };

const NOT_SHELLS = new Set([
  ...REPLS,
  ...BYTE_PIPES,
  ...SCREEN_PROGRAMS,
]);

/** Classifies the foreground program by name (comm or the multiplexer's current command). */
export function markHost(name: string): MarkHost {
  const base = name.split(/[\\/]/).pop()?.replace(/^-/, "") ?? "";
  const dialect = dialectForShell(base)?.id ?? (/^powershell(\.exe)?$/i.test(base) ? "pwsh" : null);
  if (dialect) return { kind: "shell", dialect };
  if (FOREIGN_SHELLS.has(base)) return { kind: "foreign_shell" };
  if (PROMPT_HOSTS.has(base)) return { kind: "prompt_host" };
  if (NOT_SHELLS.has(base) || /^python\d(\.\d+)?$/.test(base) || /^node\d*$/.test(base)) {
    return { kind: "not_a_shell" };
  }
  return { kind: "unknown" };
}

/**
 * The dialect of the shell prompt at the bottom of a screen (its last non-blank line), or null when that line
 * does not look like a prompt: PowerShell `PS C:\dir> `, POSIX `user@host:~$ `, `root@host:/# `, zsh's `host% `.
 */
export function promptDialect(screen: string): MarkDialect | null {
  const lines = screen.split("\n").map((l) => l.trimEnd()).filter((l) => l !== "");
  const last = lines[lines.length - 1];
  if (last === undefined) return null;
  if (/^PS [^\n>]*>$/.test(last)) return "pwsh";
  if (/\S.*[$#%]$/.test(last) || /^[$#%]$/.test(last)) return "posix";
  return null;
}

/** The outcome of {@link decideMark}. */
export type MarkDecision =
  | { ok: true; dialect: MarkDialect; how: "shell" | "prompt" | "caller" }
  | { ok: false; reason: string; suggestion: string };

/**
 * Decides whether and in which dialect a sentinel may be typed into `fgName`. `requested` is the caller's
 * `mark` (true or a dialect); `screen` is read only for a prompt host without a named dialect.
 */
export async function decideMark(
  fgName: string,
  requested: true | MarkDialect,
  screen: () => Promise<string>,
): Promise<MarkDecision> {
  return markDecision(fgName, requested, null) ?? markDecision(fgName, requested, await screen())!;
}

/**
 * {@link decideMark} from what is known: `screen` is the pane's last screen, or null when it was not read. Null:
 * the decision needs the screen (a prompt host without a named dialect); read it and decide again.
 */
export function markDecision(
  fgName: string,
  requested: true | MarkDialect,
  screen: string | null,
): MarkDecision | null {
  const host = markHost(fgName);
  const explicit = requested === true ? null : requested;
  const noSentinel = "nothing was typed; send without mark and pass until (text its prompt prints)";
  switch (host.kind) {
    case "shell":
      if (explicit && explicit !== host.dialect) {
        return {
          ok: false,
          reason: `${fgName} in the foreground is a ${host.dialect} shell, not ${explicit}`,
          suggestion: `nothing was typed; use mark:true (or mark:"${host.dialect}")`,
        };
      }
      return { ok: true, dialect: host.dialect, how: "shell" };
    case "foreign_shell":
      return { ok: false, reason: `${fgName} is not a POSIX shell or PowerShell`, suggestion: noSentinel };
    case "not_a_shell":
      return { ok: false, reason: `${fgName} in the foreground is not a shell`, suggestion: noSentinel };
    case "prompt_host": {
      if (explicit) return { ok: true, dialect: explicit, how: "caller" };
      if (screen === null) return null;
      const seen = promptDialect(screen);
      if (seen) return { ok: true, dialect: seen, how: "prompt" };
      return {
        ok: false,
        reason: `${fgName} is in the foreground and no shell prompt ($, #, % or PS …>) is on its last screen line`,
        suggestion:
          `nothing was typed; if a shell reads the line there, pass mark:"posix" or mark:"pwsh"; else use until`,
      };
    }
    case "unknown":
      if (explicit) return { ok: true, dialect: explicit, how: "caller" };
      return {
        ok: false,
        reason: `${fgName} in the foreground is not a shell aiterm knows`,
        suggestion:
          `nothing was typed; if a command is still running, wait for the shell (pty_read wait:true) and send again; if ${fgName} is a shell, pass mark:"posix" or mark:"pwsh"`,
      };
  }
}

/** What a `nested` hint may offer for `fgName`: exactly what {@link decideMark} would accept without a screen. */
export function markOffer(fgName: string): string | null {
  const host = markHost(fgName);
  if (host.kind === "shell") return "send with mark:true";
  if (host.kind === "prompt_host") return 'send with mark:"posix" (or "pwsh") once a shell prompt is up there';
  return null;
}
