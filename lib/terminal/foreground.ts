/** Which foreground programs host their own prompt (so the shell's end mark will not come while they wait). */

const NESTING = new Set([
  "ssh",
  "mosh-client",
  "telnet",
  "docker",
  "podman",
  "kubectl",
  "lxc",
  "nsenter",
  "su",
  "sudo",
  "login",
  "python",
  "python3",
  "ipython",
  "node",
  "deno",
  "bun",
  "irb",
  "pry",
  "ruby",
  "psql",
  "mysql",
  "mariadb",
  "sqlite3",
  "redis-cli",
  "mongosh",
  "ghci",
  "R",
  "julia",
  "lua",
  "erl",
  "iex",
  "ocaml",
  "scala",
  "sbcl",
  "gdb",
  "lldb",
  "tmux",
  "screen",
  "bash",
  "zsh",
  "sh",
  "dash",
  "fish",
  "pwsh",
  "nc",
  "ncat",
  "socat",
]);

/** True for shells, remote logins, containers and REPLs: programs that wait at a prompt of their own. */
export function hostsOwnPrompt(name: string): boolean {
  return NESTING.has(name) || /^python3\.\d+$/.test(name);
}

const SHELLS = new Set(["bash", "zsh", "sh", "dash", "fish", "pwsh", "ksh", "mksh", "ash"]);

/**
 * True when the foreground program is most likely waiting at a prompt of its own. A shell counts only
 * when it is seen blocked reading its terminal (a `sh -c 'loop'` is busy, not nested); other prompt
 * hosts (ssh, REPLs) count when reading or when the OS cannot tell.
 */
export function waitingAtOwnPrompt(fg: { name: string; readingInput: boolean | null }): boolean {
  if (fg.readingInput === true) return true;
  if (!hostsOwnPrompt(fg.name)) return false;
  return !(SHELLS.has(fg.name) && fg.readingInput === false);
}
