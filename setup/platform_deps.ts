/**
 * Every OS and package-manager difference of setup lives here: where HOME is, which multiplexer
 * and shell aiterm needs on this OS, the official package manager command that installs them, how
 * that command is run, and the shell line the smoke test types.
 */
import { knobFrom } from "../base/config.ts";
import { currentOs, displayCommand, type SetupOs, versionAtLeast } from "../harnesses/clients/mod.ts";
import { findExecutable, parseTmuxVersion, runProcess, TMUX_MIN_VERSION, tmuxInstallHint } from "../platform/mod.ts";

export {
  clientConfigPaths,
  currentOs,
  displayCommand,
  fileModeFor,
  homeDir,
  isReadOnlyFile,
  type SetupOs,
  versionAtLeast,
} from "../harnesses/clients/mod.ts";

/** A fresh private directory with a short path (unix socket paths are limited to ~104 bytes). */
export function makeShortTempDir(prefix: string): Promise<string> {
  return currentOs() === "windows" ? Deno.makeTempDir({ prefix }) : Deno.makeTempDir({ dir: "/tmp", prefix });
}

/**
 * The line the smoke test types, and the text it must read back. The typed line does not contain
 * the expected text, so an echo of the input cannot pass for the command's output.
 */
export function smokeProbe(os: SetupOs = currentOs()): { text: string; expect: string } {
  if (os === "windows") return { text: "Write-Output ('aiterm-setup-' + 'ok')", expect: "aiterm-setup-ok" };
  return { text: "printf 'aiterm-setup-%s\\n' ok", expect: "aiterm-setup-ok" };
}

/** The name this process was started under (argv[0]) where the OS keeps it (Linux), else null. */
export function processArgv0(os: SetupOs = currentOs()): string | null {
  if (os !== "linux") return null;
  try {
    return Deno.readTextFileSync("/proc/self/cmdline").split("\0")[0] || null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Package managers

/** A package manager setup can drive. */
export interface PackageManager {
  id: "apt" | "dnf" | "yum" | "pacman" | "zypper" | "apk" | "brew" | "winget";
  /** Absolute path of its binary. */
  bin: string;
  /** Runs as root (through sudo when the user is not root). */
  needsRoot: boolean;
}

/** Parses /etc/os-release into its ID and ID_LIKE tokens. */
export function parseOsRelease(text: string): string[] {
  const ids: string[] = [];
  for (const line of text.split("\n")) {
    const m = /^(ID|ID_LIKE)=(.*)$/.exec(line.trim());
    if (!m) continue;
    const value = (m[2] ?? "").replace(/^["']|["']$/g, "");
    ids.push(...value.toLowerCase().split(/\s+/).filter(Boolean));
  }
  return ids;
}

const LINUX_MANAGERS: { match: RegExp; id: PackageManager["id"]; names: string[] }[] = [
  { match: /^(debian|ubuntu|linuxmint|pop|raspbian|kali)$/, id: "apt", names: ["apt-get"] },
  { match: /^(fedora|rhel|centos|rocky|almalinux|amzn|ol)$/, id: "dnf", names: ["dnf"] },
  { match: /^(fedora|rhel|centos|rocky|almalinux|amzn|ol)$/, id: "yum", names: ["yum"] },
  { match: /^(arch|manjaro|endeavouros)$/, id: "pacman", names: ["pacman"] },
  { match: /^(opensuse|opensuse-leap|opensuse-tumbleweed|suse|sles)$/, id: "zypper", names: ["zypper"] },
  { match: /^alpine$/, id: "apk", names: ["apk"] },
];

/** The official package manager of this machine, or null when setup does not know one. */
export function detectPackageManager(
  env: Record<string, string | undefined>,
  os: SetupOs = currentOs(),
  osReleaseText?: string,
): PackageManager | null {
  if (os === "darwin") {
    const bin = findExecutable("brew", env.PATH) ?? findExecutable("/opt/homebrew/bin/brew", undefined) ??
      findExecutable("/usr/local/bin/brew", undefined);
    return bin ? { id: "brew", bin, needsRoot: false } : null;
  }
  if (os === "windows") {
    const bin = findExecutable("winget", env.PATH);
    return bin ? { id: "winget", bin, needsRoot: false } : null;
  }
  if (os !== "linux") return null;
  let text = osReleaseText;
  if (text === undefined) {
    try {
      text = Deno.readTextFileSync("/etc/os-release");
    } catch {
      text = "";
    }
  }
  const ids = parseOsRelease(text);
  for (const m of LINUX_MANAGERS) {
    if (!ids.some((id) => m.match.test(id))) continue;
    for (const name of m.names) {
      const bin = findExecutable(name, env.PATH);
      if (bin) return { id: m.id, bin, needsRoot: true };
    }
  }
  return null;
}

/** The argv sequence that installs `pkg` with `pm` (without any sudo prefix). */
export function installArgv(pm: PackageManager, pkg: "tmux" | "psmux" | "pwsh"): string[][] {
  switch (pm.id) {
    case "apt":
      return [["apt-get", "update"], ["apt-get", "install", "-y", pkg]];
    case "dnf":
      return [["dnf", "install", "-y", pkg]];
    case "yum":
      return [["yum", "install", "-y", pkg]];
    case "pacman":
      return [["pacman", "-S", "--noconfirm", pkg]];
    case "zypper":
      return [["zypper", "--non-interactive", "install", pkg]];
    case "apk":
      return [["apk", "add", pkg]];
    case "brew":
      return [["brew", "install", pkg]];
    case "winget": {
      const agree = ["--accept-package-agreements", "--accept-source-agreements"];
      if (pkg === "pwsh") return [["winget", "install", "--id", "Microsoft.PowerShell", "--exact", ...agree]];
      return [["winget", "install", pkg, ...agree]];
    }
  }
}

function isRoot(): boolean {
  try {
    return Deno.uid() === 0;
  } catch {
    return false;
  }
}

/** The commands to run, with `sudo` added where root is needed; null when root is needed and unavailable. */
export function withPrivilege(
  pm: PackageManager,
  steps: string[][],
  env: Record<string, string | undefined>,
  root = isRoot(),
): string[][] | null {
  if (!pm.needsRoot || root) return steps;
  if (!findExecutable("sudo", env.PATH)) return null;
  return steps.map((argv) => ["sudo", ...argv]);
}

// ---------------------------------------------------------------------------------------------
// Dependency check

/** The outcome of the dependency step. */
export interface DependencyReport {
  status: "ok" | "failed" | "planned";
  reason_code?: string;
  detail: string;
  /** The command that installs what is missing (shown; run only with --install-deps). */
  install_command?: string;
}

/** One required program. */
interface Requirement {
  pkg: "tmux" | "psmux" | "pwsh";
  /** Finds it and returns its version text, or null when absent. */
  probe(env: Record<string, string | undefined>): Promise<string | null>;
  /** True when the version text is new enough. */
  ok(version: string): boolean;
  minimum: string;
  missingCode: string;
  oldCode: string;
  manual: string;
}

async function versionOf(bin: string, args: string[]): Promise<string | null> {
  try {
    const out = await runProcess(bin, { args, stderr: "null" });
    if (!out.success) return null;
    return out.stdout.trim() || null;
  } catch {
    return null;
  }
}

function requirements(os: SetupOs): Requirement[] {
  if (os === "windows") {
    return [
      {
        pkg: "pwsh",
        probe: async (env) => {
          const bin = findExecutable("pwsh", env.PATH);
          return bin ? await versionOf(bin, ["--version"]) : null;
        },
        ok: (v) => versionAtLeast(v, "7.0"),
        minimum: "7.0",
        missingCode: "pwsh_missing",
        oldCode: "pwsh_too_old",
        manual: "winget install --id Microsoft.PowerShell --exact",
      },
      {
        pkg: "psmux",
        probe: async (env) => {
          const bin = findExecutable("psmux", env.PATH);
          return bin ? await versionOf(bin, ["-V"]) : null;
        },
        ok: (v) => versionAtLeast(v, "3.3.8"),
        minimum: "3.3.8",
        missingCode: "psmux_missing",
        oldCode: "psmux_too_old",
        manual: "winget install psmux",
      },
    ];
  }
  return [{
    pkg: "tmux",
    probe: async (env) => {
      const configured = knobFrom(env, "tmuxBin");
      const bin = findExecutable(configured ?? "tmux", env.PATH);
      if (!bin) return null;
      const text = await versionOf(bin, ["-V"]);
      return text ? parseTmuxVersion(text)?.raw ?? text : null;
    },
    ok: (v) => parseTmuxVersion(v) !== null && versionAtLeast(v, TMUX_MIN_VERSION),
    minimum: TMUX_MIN_VERSION,
    missingCode: "tmux_missing",
    oldCode: "tmux_too_old",
    manual: tmuxInstallHint(),
  }];
}

/** Options for {@link checkDependencies}. */
export interface DependencyOptions {
  env: Record<string, string | undefined>;
  /** Run the package manager for what is missing (`--install-deps`). */
  install: boolean;
  /** Only say what would be installed. */
  dryRun: boolean;
  /** Progress lines (stderr). */
  progress: (line: string) => void;
  os?: SetupOs;
}

async function runInstall(steps: string[][], env: Record<string, string | undefined>): Promise<string | null> {
  for (const [cmd, ...args] of steps) {
    if (!cmd) continue;
    try {
      // Not platform/run.ts: the installer talks to the user live (stdin inherited, its output streamed to stderr).
      const child = new Deno.Command(cmd, {
        args,
        env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
        clearEnv: true,
        stdin: "inherit",
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      // The installer's stdout goes to stderr: stdout carries only the result JSON.
      await child.stdout.pipeTo(Deno.stderr.writable, { preventClose: true });
      const status = await child.status;
      if (!status.success) return `${cmd} exited with status ${status.code}`;
    } catch (err) {
      return `cannot run ${cmd}: ${(err as Error).message}`;
    }
  }
  return null;
}

/** Checks (and with `install`, installs) what aiterm needs on this OS. */
export async function checkDependencies(options: DependencyOptions): Promise<DependencyReport> {
  const os = options.os ?? currentOs();
  if (os === "other") {
    return { status: "failed", reason_code: "install_unsupported", detail: `aiterm does not support ${Deno.build.os}` };
  }
  const found: string[] = [];
  const missing: { req: Requirement; code: string; have: string | null }[] = [];
  for (const req of requirements(os)) {
    const have = await req.probe(options.env);
    if (have !== null && req.ok(have)) found.push(`${req.pkg} ${have}`);
    else missing.push({ req, code: have === null ? req.missingCode : req.oldCode, have });
  }
  if (missing.length === 0) return { status: "ok", detail: found.join(", ") };

  const what = missing.map((m) =>
    m.have === null ? `${m.req.pkg} is not installed` : `${m.req.pkg} ${m.have} is older than ${m.req.minimum}`
  ).join("; ");
  const first = missing[0]!;
  const pm = detectPackageManager(options.env, os);
  const steps = pm ? withPrivilege(pm, missing.flatMap((m) => installArgv(pm, m.req.pkg)), options.env) : null;
  if (!pm || !steps) {
    const manual = missing.map((m) => m.req.manual).join("; ");
    const why = !pm
      ? "setup knows no official package manager on this system"
      : "installing needs root and sudo is not available";
    return {
      status: "failed",
      reason_code: options.install ? "install_unsupported" : first.code,
      detail: `${what}. ${why}; install it yourself: ${manual}`,
      install_command: manual,
    };
  }
  const command = displayCommand(steps);
  if (!options.install) {
    return {
      status: "failed",
      reason_code: first.code,
      detail: `${what}. Install it with: ${command} (or rerun setup with --install-deps)`,
      install_command: command,
    };
  }
  if (options.dryRun) {
    return { status: "planned", detail: `${what}; would run: ${command}`, install_command: command };
  }
  options.progress(`installing with ${pm.id}: ${command}`);
  const error = await runInstall(steps, options.env);
  if (error) {
    return {
      status: "failed",
      reason_code: "install_failed",
      detail: `${command} failed: ${error}`,
      install_command: command,
    };
  }
  const still: string[] = [];
  for (const m of missing) {
    const have = await m.req.probe(options.env);
    if (have === null || !m.req.ok(have)) {
      still.push(have === null ? `${m.req.pkg} is still missing` : `${m.req.pkg} ${have}`);
    } else found.push(`${m.req.pkg} ${have} (installed)`);
  }
  if (still.length > 0) {
    return {
      status: "failed",
      reason_code: first.code,
      detail: `after ${command}: ${still.join("; ")} (need ${
        missing.map((m) => `${m.req.pkg} ≥ ${m.req.minimum}`).join(", ")
      })`,
      install_command: command,
    };
  }
  return { status: "ok", detail: found.join(", ") };
}
