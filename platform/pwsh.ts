/**
 * PowerShell 7 on Windows: which binary aiterm runs (never Windows PowerShell 5.1, never pwsh 6, never
 * cmd.exe or a WSL bridge) and every PowerShell script aiterm generates outside the shell dialect. All
 * builders are pure so they are tested with golden strings on any OS.
 */
import { knobFrom } from "../base/config.ts";
import { AppError } from "../base/errors.ts";
import { windowsArgumentList } from "./self_command.ts";
import { pwshQuote } from "./shell_dialect.ts";
import { SEGMENT_SUFFIX_LEN, segmentPrefix } from "./output_sink.ts";

/** The oldest PowerShell aiterm runs. */
export const PWSH_MIN_MAJOR = 7;

/** Program names that are never PowerShell 7, even when found first on PATH. */
const REFUSED_BASENAMES = new Set(["powershell.exe", "powershell", "cmd.exe", "cmd", "wsl.exe", "wsl", "bash.exe"]);

/** Parses `pwsh --version` output ("PowerShell 7.4.6", "PowerShell 7.5.0-preview.2") into numbers. */
export function parsePwshVersion(text: string): { raw: string; major: number; minor: number } | null {
  const m = text.match(/(\d+)\.(\d+)(?:\.\d+)?(?:-[0-9A-Za-z.]+)?/);
  if (!m) return null;
  return { raw: m[0], major: Number(m[1]), minor: Number(m[2]) };
}

/**
 * Why `path` can never be the PowerShell aiterm runs, or null when its name is acceptable. Refuses
 * Windows PowerShell (powershell.exe, anything under System32\WindowsPowerShell), cmd.exe and WSL
 * bridges (wsl.exe, System32\bash.exe) by name, before anything is started.
 */
export function refusePwshPath(path: string): string | null {
  const base = (path.split(/[\\/]/).pop() ?? "").toLowerCase();
  const lower = path.toLowerCase().replaceAll("/", "\\");
  if (lower.includes("\\windowspowershell\\")) return "it is Windows PowerShell 5.1";
  if (REFUSED_BASENAMES.has(base)) {
    return base.startsWith("powershell")
      ? "it is Windows PowerShell 5.1"
      : base.startsWith("cmd")
      ? "it is cmd.exe"
      : "it is a WSL bridge";
  }
  if (base !== "pwsh.exe" && base !== "pwsh") return `its name is "${base}", not pwsh.exe`;
  return null;
}

/**
 * Candidate PowerShell 7 paths in order: AITERM_PWSH_BIN, then `pwsh.exe` on PATH, then
 * `%ProgramFiles%\PowerShell\7\pwsh.exe`. `which` resolves a program name through PATH.
 */
export function pwshCandidates(
  env: Record<string, string | undefined>,
  which: (program: string) => string | null,
): string[] {
  const out: string[] = [];
  const configured = knobFrom(env, "pwshBin");
  if (configured) out.push(configured);
  const onPath = which("pwsh.exe") ?? which("pwsh");
  if (onPath) out.push(onPath);
  const programFiles = env.ProgramFiles ?? env.PROGRAMFILES ?? "C:\\Program Files";
  out.push(`${programFiles}\\PowerShell\\7\\pwsh.exe`);
  return [...new Set(out)];
}

/** How {@link resolvePwsh} looks at the machine (injected so the rules are testable anywhere). */
export interface PwshProbe {
  which(program: string): string | null;
  exists(path: string): boolean;
  /** The stdout of `<path> --version`, or null when it cannot be run. */
  version(path: string): Promise<string | null>;
}

const PWSH_HINT = "install PowerShell 7: winget install --id Microsoft.PowerShell --source winget";

/**
 * The PowerShell 7 binary to run. AITERM_PWSH_BIN, when set, is the only candidate (a wrong one is an
 * error, never a silent fallback). @throws {AppError} SHELL_NOT_FOUND with the reason each candidate failed.
 */
export async function resolvePwsh(
  env: Record<string, string | undefined>,
  probe: PwshProbe,
): Promise<{ path: string; version: string }> {
  const configured = knobFrom(env, "pwshBin");
  const candidates = configured ? [configured] : pwshCandidates(env, probe.which);
  const rejected: string[] = [];
  for (const path of candidates) {
    const refused = refusePwshPath(path);
    if (refused) {
      rejected.push(`${path}: ${refused}`);
      continue;
    }
    if (!probe.exists(path)) {
      rejected.push(`${path}: not found`);
      continue;
    }
    const raw = await probe.version(path);
    const parsed = raw === null ? null : parsePwshVersion(raw);
    if (!parsed) {
      rejected.push(`${path}: cannot read its version`);
      continue;
    }
    if (parsed.major < PWSH_MIN_MAJOR) {
      rejected.push(`${path}: PowerShell ${parsed.raw} is older than ${PWSH_MIN_MAJOR}`);
      continue;
    }
    return { path, version: parsed.raw };
  }
  throw new AppError("SHELL_NOT_FOUND", `Cannot find PowerShell ${PWSH_MIN_MAJOR}: ${rejected.join("; ")}`, {
    suggestion: `${PWSH_HINT} (or set AITERM_PWSH_BIN to its pwsh.exe)`,
    data: { rejected, hint: PWSH_HINT },
  });
}

/** Base64 of the UTF-16LE bytes of `script`: what `pwsh -EncodedCommand` decodes. */
export function encodeCommand(script: string): string {
  const bytes = new Uint8Array(script.length * 2);
  for (let i = 0; i < script.length; i++) {
    const unit = script.charCodeAt(i);
    bytes[i * 2] = unit & 0xff;
    bytes[i * 2 + 1] = unit >> 8;
  }
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** argv that runs `script` in a non-interactive PowerShell 7 with no profile and no logo. */
export function pwshScriptArgv(pwshPath: string, script: string): string[] {
  return [pwshPath, "-NoLogo", "-NoProfile", "-NonInteractive", "-EncodedCommand", encodeCommand(script)];
}

/**
 * One command line (MSVCRT quoting) that runs `script` in PowerShell 7: the form a multiplexer that
 * starts a command line with CreateProcess (psmux's pipe-pane) is given. The script travels as Base64,
 * so no character in it needs quoting.
 */
export function pwshScriptCommandLine(pwshPath: string, script: string): string {
  return windowsArgumentList(pwshScriptArgv(pwshPath, script));
}

/**
 * A PowerShell script that copies its standard input, as raw bytes, into fixed-size segment files
 * `seg.aaaaaa`, `seg.aaaaab`, … under `dir`: the same files `split -a 6 -b N` writes on POSIX
 * (platform/output_sink.ts), so the log reader is the same on every OS. Each read is written and
 * flushed at once; segments are shared for reading and deletion while open. A restarted writer
 * (`base` > 0) writes `seg.<base>.aaaaaa`, … like `split` with that prefix.
 */
export function outputSinkScript(dir: string, segmentBytes: number, base = 0): string {
  if (!Number.isSafeInteger(segmentBytes) || segmentBytes <= 0) {
    throw new RangeError(`segmentBytes must be a positive integer, got ${segmentBytes}`);
  }
  return [
    "$ErrorActionPreference = 'Stop'",
    `$dir = ${pwshQuote(dir)}`,
    `$size = [long]${segmentBytes}`,
    "function Get-AitermSegmentName([long]$index) {",
    "  $name = ''",
    `  for ($k = 0; $k -lt ${SEGMENT_SUFFIX_LEN}; $k++) {`,
    "    $name = [string][char][int](97 + ($index % 26)) + $name",
    "    $index = [long][Math]::Floor($index / 26)",
    "  }",
    `  return ${pwshQuote(segmentPrefix(base))} + $name`,
    "}",
    "$in = [Console]::OpenStandardInput()",
    "$buf = New-Object byte[] 65536",
    "$index = [long]0",
    "$used = [long]0",
    "$out = $null",
    "try {",
    "  while (($n = $in.Read($buf, 0, $buf.Length)) -gt 0) {",
    "    $at = 0",
    "    while ($at -lt $n) {",
    "      if ($null -eq $out) {",
    "        $path = [IO.Path]::Combine($dir, (Get-AitermSegmentName $index))",
    "        $out = [IO.File]::Open($path, [IO.FileMode]::Create, [IO.FileAccess]::Write, " +
    "[IO.FileShare]'Read, Delete')",
    "      }",
    "      $take = [int][Math]::Min([long]($n - $at), $size - $used)",
    "      $out.Write($buf, $at, $take)",
    "      $out.Flush()",
    "      $at += $take",
    "      $used += $take",
    "      if ($used -ge $size) { $out.Dispose(); $out = $null; $index++; $used = 0 }",
    "    }",
    "  }",
    "} finally {",
    "  if ($null -ne $out) { $out.Dispose() }",
    "}",
  ].join("\n");
}

/**
 * A PowerShell line that starts `file` detached with `args`, passing them as one MSVCRT-quoted
 * `-ArgumentList` string (PowerShell 7 hands a single string through unchanged; an array would be
 * re-joined without quoting).
 */
export function startProcessScript(file: string, args: string[], options: { hidden?: boolean } = {}): string {
  const parts = [`Start-Process -FilePath ${pwshQuote(file)}`];
  if (args.length) parts.push(`-ArgumentList ${pwshQuote(windowsArgumentList(args))}`);
  if (options.hidden) parts.push("-WindowStyle Hidden");
  return parts.join(" ");
}

/** The PowerShell parser check used by tests: prints the number of parse errors in the Base64-encoded script. */
export function parseCheckScript(script: string): string {
  let bin = "";
  for (const b of new TextEncoder().encode(script)) bin += String.fromCharCode(b);
  const b64 = btoa(bin);
  return [
    `$src = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String('${b64}'))`,
    "$tokens = $null; $errors = $null",
    "[void][Management.Automation.Language.Parser]::ParseInput($src, [ref]$tokens, [ref]$errors)",
    "[Console]::Out.Write($errors.Count)",
  ].join("\n");
}
