/**
 * The pager rule: a session aiterm opens never starts a pager by itself. A pager (less) takes the
 * keyboard, so the next text an AI sends becomes pager commands (`s` saves to a file, `!` runs a
 * shell, `v` opens an editor). Each program's own pager variable is set to `cat`, which prints the
 * whole output and exits, so `git log`, `man ls`, `systemctl status`, `journalctl`, psql results and
 * `gh`/`aws` output arrive in the log like any other command's. `LESS` and `MORE` stay untouched: they
 * only matter once a caller runs less on purpose.
 *
 * The caller asks for a pager by naming the variable in `env_vars` (the server's value is copied and
 * wins), or per command (`GIT_PAGER=less git log`, `less file`, `man -P less ls`).
 */

/**
 * Each program's pager variable and the value that turns paging off. `GIT_PAGER` also overrides a
 * `core.pager` in the user's git config; `MANPAGER` one inherited from the server's environment.
 */
export const NO_PAGER_ENV: Readonly<Record<string, string>> = Object.freeze({
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "cat",
  PSQL_PAGER: "cat",
  GH_PAGER: "cat",
  AWS_PAGER: "",
});
