/**
 * Programs aiterm knows by name, for the decisions that fall back to a name: which programs host a prompt
 * of their own (lib/terminal/foreground.ts) and where a `mark` may be typed (./mark_target.ts).
 */

/** Shells whose syntax aiterm does not write (no sentinel, no script wrapper). */
export const FOREIGN_SHELLS: ReadonlySet<string> = new Set(["fish", "csh", "tcsh", "nu", "elvish", "xonsh"]);

/** Remote logins, containers, privilege changers and multiplexers: a shell (or not) runs behind them. */
export const PROMPT_HOSTS: ReadonlySet<string> = new Set([
  "ssh",
  "mosh-client",
  "telnet",
  "docker",
  "podman",
  "kubectl",
  "oc",
  "lxc",
  "incus",
  "nsenter",
  "chroot",
  "machinectl",
  "vagrant",
  "su",
  "sudo",
  "doas",
  "runuser",
  "login",
  "tmux",
  "screen",
]);

/** REPLs, interpreters and debuggers with a prompt of their own. */
export const REPLS: ReadonlySet<string> = new Set([
  "python",
  "python2",
  "python3",
  "ipython",
  "bpython",
  "node",
  "deno",
  "bun",
  "irb",
  "pry",
  "ruby",
  "perl",
  "php",
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
  "clojure",
  "gdb",
  "lldb",
  "bc",
  "dc",
]);

/** Programs that copy bytes between the terminal and something else. */
export const BYTE_PIPES: ReadonlySet<string> = new Set([
  "cat",
  "nc",
  "ncat",
  "socat",
]);
