/**
 * Shell dialects: how a multi-line script and an end-of-command sentinel are written for a POSIX
 * shell or PowerShell 7. The layers above pick a dialect by the shell's name and never write shell
 * syntax themselves.
 */

/** A shell family that aiterm knows how to wrap scripts for. */
export interface ShellDialect {
  readonly id: "posix" | "pwsh";
  /**
   * One line that makes the shell read the whole script before running its first line, in the
   * current shell (so `cd` and variables persist and heredocs work).
   */
  scriptLine(script: string): string;
  /** A command suffix that prints a sentinel with `nonce` and the previous command's exit status. */
  sentinelSuffix(nonce: string): string;
  /** Matches the printed sentinel (never the echoed command line) and captures the exit status. */
  sentinelPattern(nonce: string): RegExp;
  /** Matches the echo of a {@link scriptLine} wrapper in output (so reads can show a short marker instead). */
  scriptEchoPattern: RegExp;
}

/** Quotes a string for a POSIX shell: single quotes, with `'` written as `'\''`. */
export function posixQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Quotes a string as a PowerShell single-quoted literal (`'` doubled). */
export function pwshQuote(s: string): string {
  return `'${s.replace(/['\u2018\u2019\u201a\u201b]/g, (q) => q + q)}'`;
}

const posix: ShellDialect = {
  id: "posix",
  scriptLine(script: string): string {
    const lines = script.split("\n");
    // printf re-creates the exact lines; eval parses all of them before running the first. A typed
    // tab would reach the shell's line editor as completion, so lines with tabs go through %b as \t.
    if (!script.includes("\t")) return `eval "$(printf '%s\\n' ${lines.map(posixQuote).join(" ")})"`;
    const escaped = lines.map((l) => posixQuote(l.replaceAll("\\", "\\\\").replaceAll("\t", "\\t")));
    return `eval "$(printf '%b\\n' ${escaped.join(" ")})"`;
  },
  sentinelSuffix(nonce: string): string {
    // The format string holds %s where the digits go, so the echoed line can never match.
    return `; printf '\\n__AITERM_%s_%s__\\n' ${posixQuote(nonce)} "$?"`;
  },
  sentinelPattern(nonce: string): RegExp {
    return new RegExp(`__AITERM_${nonce}_(\\d+)__`);
  },
  scriptEchoPattern: /eval "\$\(printf '%[sb]\\n'(?: '(?:[^']|'\\'')*')+\)"/g,
};

function base64Utf8(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

const pwsh: ShellDialect = {
  id: "pwsh",
  scriptLine(script: string): string {
    // Raw LF would reach PSReadLine as separate Enter presses; a Base64 scriptblock, dot-sourced,
    // runs in the current scope as one line.
    return `. ([ScriptBlock]::Create([Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('${
      base64Utf8(script)
    }'))))`;
  },
  sentinelSuffix(nonce: string): string {
    return `; $__aiterm_ok = $?; $__aiterm_rc = $LASTEXITCODE; [Console]::Out.Write(("\`n__AITERM_{0}_{1}__\`n" -f ${
      pwshQuote(nonce)
    }, $(if ($__aiterm_ok) { 0 } elseif ($__aiterm_rc) { $__aiterm_rc } else { 1 })))`;
  },
  sentinelPattern(nonce: string): RegExp {
    return new RegExp(`__AITERM_${nonce}_(-?\\d+)__`);
  },
  scriptEchoPattern:
    /\. \(\[ScriptBlock\]::Create\(\[Text\.Encoding\]::UTF8\.GetString\(\[Convert\]::FromBase64String\('[A-Za-z0-9+\/=]*'\)\)\)\)/g,
};

const POSIX_SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "busybox", "oksh", "loksh"]);
const PWSH_SHELLS = new Set(["pwsh", "pwsh.exe", "pwsh-preview"]);

/** The dialect of a shell by its program name or path; null for shells aiterm does not wrap (fish, csh…). */
export function dialectForShell(shell: string): ShellDialect | null {
  const base = shell.split(/[\\/]/).pop()?.replace(/^-/, "") ?? "";
  if (POSIX_SHELLS.has(base)) return posix;
  if (PWSH_SHELLS.has(base.toLowerCase())) return pwsh;
  return null;
}

/** The dialect by id. */
export function dialectById(id: "posix" | "pwsh"): ShellDialect {
  return id === "posix" ? posix : pwsh;
}
