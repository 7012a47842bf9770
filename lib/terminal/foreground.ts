import type { TerminalModes } from "../../platform/mod.ts";
import { BYTE_PIPES, PROMPT_HOSTS, REPLS } from "./send/mod.ts";

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
 * Whether the foreground program waits at a prompt of its own, and on what evidence. `readingInput` is the kernel's
 * verdict on the whole foreground group (platform/input_wait.ts; platform/ps_foreground.ts without /proc): true
 * (blocked on the terminal: a nested bash in pselect6, zsh/dash in read, node in epoll…) counts for any program, false
 * (running, sleeping, waiting on a socket, a pipe or a timer) never does: `kernel`. Only when the kernel cannot tell
 * (null: ssh reads the terminal and its socket; macOS, whose ps reports no wait channel) does the name decide, and
 * then it is a `guess`: prompt hosts (ssh, REPLs, shells) count, unless the terminal is in line mode with echo on —
 * no line editor, full-screen program or remote session has taken the keyboard, so the program is not at a prompt
 * it drew (ssh still authenticating, a server started from a REPL's name).
 */
export function ownPromptWait(fg: {
  name: string;
  readingInput: boolean | null;
  modes?: TerminalModes | null;
}): { waiting: boolean; evidence: "kernel" | "guess" } {
  if (fg.readingInput !== null) return { waiting: fg.readingInput, evidence: "kernel" };
  if (fg.modes && fg.modes.canonical && fg.modes.echo) return { waiting: false, evidence: "kernel" };
  return { waiting: hostsOwnPrompt(fg.name), evidence: "guess" };
}

/** {@link ownPromptWait} as a yes/no. */
export function waitingAtOwnPrompt(
  fg: { name: string; readingInput: boolean | null; modes?: TerminalModes | null },
): boolean {
  return ownPromptWait(fg).waiting;
}
