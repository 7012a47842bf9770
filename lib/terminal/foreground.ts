import { BYTE_PIPES, PROMPT_HOSTS, REPLS } from "./programs.ts";

/** Which foreground programs host their own prompt (so the shell's end mark will not come while they wait). */
const NESTING: ReadonlySet<string> = new Set([
  ...PROMPT_HOSTS,
  ...REPLS,
  // cat reading the terminal is a program at work, not a prompt
  ...[...BYTE_PIPES].filter((name) => name !== "cat"),
  "bash",
  "zsh",
  "sh",
  "dash",
  "fish",
  "pwsh",
]);

/** True for shells, remote logins, containers and REPLs: programs that wait at a prompt of their own. */
export function hostsOwnPrompt(name: string): boolean {
  return NESTING.has(name) || /^python3\.\d+$/.test(name);
}

/**
 * True when the foreground program is most likely waiting at a prompt of its own. `readingInput` is
 * the kernel's verdict on the whole foreground group (platform/input_wait.ts): true (blocked on the
 * terminal: a nested bash in pselect6, zsh/dash in read, node in epoll…) counts for any program,
 * false (running, sleeping, waiting on a pipe) never does. Only when the kernel cannot tell (null:
 * ssh waits on the terminal and a socket; no /proc) does the name decide: prompt hosts (ssh, REPLs,
 * shells) count.
 */
export function waitingAtOwnPrompt(fg: { name: string; readingInput: boolean | null }): boolean {
  if (fg.readingInput !== null) return fg.readingInput;
  return hostsOwnPrompt(fg.name);
}
