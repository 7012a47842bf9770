/**
 * Pane and harness are two things (seed 002): the pane's process is what the multiplexer started
 * (for an agent session aiterm's launcher `exec`s the harness CLI there, so it is the launch), the
 * harness process is the CLI's own body. An npm shim (`node …/codex.js`) that starts the native CLI
 * is the same launch as that body: from the pane's process, as long as the process is only a
 * launcher (an interpreter or a shell), the one nearest process named like the harness below it —
 * through any processes in between — is the body, when its standard input is the pane's terminal (a
 * CLI the agent itself runs as a tool, `claude -p` under its Bash tool, reads a pipe and is not the
 * body). Two such candidates that do not descend from one
 * another stay apart: the harness is then not identified (null), never guessed. Each identity is a
 * pid with its start identity and an argv digest (the argv text is never returned).
 */
import { basename } from "node:path";
import { processArgvBytes, processStartIdentity, processTree } from "../../platform/mod.ts";

/** What the selection needs about one process. */
export interface ProcFacts {
  pid: number;
  ppid: number;
  /** The kernel's process name (comm). */
  name: string;
  start: string;
  /** Its argv, when readable. */
  argv: string[] | null;
  /** Its standard input is the pane's terminal (null: cannot tell). */
  onPaneTty?: boolean | null;
}

/** A process identity as reported (pty_observe `pane_process` / `harness_process`). */
export interface ProcessIdentity {
  pid: number;
  start: string | null;
  argv_digest: string | null;
}

/** Programs that only start another one: interpreters running a CLI's script, shells running a wrapper. */
const LAUNCHERS = new Set(["node", "nodejs", "bun", "deno", "env", "sh", "bash", "dash", "zsh"]);

function isLauncherName(name: string): boolean {
  return LAUNCHERS.has(name) || /^python[0-9.]*$/.test(name);
}

/** A file name without the directory and a script or executable extension (`codex.js` → `codex`). */
function stem(path: string): string {
  return basename(path).replace(/\.(?:js|mjs|cjs|exe)$/i, "");
}

/** The names a process goes by: comm, argv[0], and the script an interpreter runs. */
function namesOf(p: ProcFacts): string[] {
  const out = [stem(p.name)];
  const argv = p.argv ?? [];
  if (argv[0]) out.push(stem(argv[0]));
  if (argv[0] && isLauncherName(stem(argv[0]))) {
    const script = argv.slice(1).find((a) => !a.startsWith("-"));
    if (script) out.push(stem(script));
  }
  return out;
}

/** True when `p` is named like the harness (`codex`, or a platform build such as `codex-x86_64-…`). */
export function isHarnessCandidate(p: ProcFacts, harnessNames: readonly string[]): boolean {
  return namesOf(p).some((n) => harnessNames.some((h) => n === h || n.startsWith(`${h}-`)));
}

/**
 * The harness body among `procs` (the pane's process tree), starting at the pane's process
 * `rootPid` (see the module doc). `ambiguous` is set when two unrelated candidates were found.
 */
export function selectHarnessProcess(
  procs: readonly ProcFacts[],
  rootPid: number,
  harnessNames: readonly string[],
): { process: ProcFacts | null; ambiguous: boolean } {
  const byPid = new Map(procs.map((p) => [p.pid, p]));
  const children = new Map<number, ProcFacts[]>();
  for (const p of procs) {
    if (p.pid === p.ppid) continue;
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  let current = byPid.get(rootPid);
  if (!current) return { process: null, ambiguous: false };
  const visited = new Set<number>();
  while (!visited.has(current.pid) && isLauncherName(stem(current.name))) {
    visited.add(current.pid);
    // The nearest candidates below: a candidate ends its branch (its own children are its business).
    const nearest: ProcFacts[] = [];
    const queue = [...(children.get(current.pid) ?? [])];
    while (queue.length) {
      const p = queue.shift()!;
      if (isHarnessCandidate(p, harnessNames) && p.onPaneTty !== false) nearest.push(p);
      else queue.push(...(children.get(p.pid) ?? []));
    }
    if (nearest.length > 1) return { process: null, ambiguous: true };
    if (nearest.length === 0) break;
    current = nearest[0]!;
  }
  return { process: current, ambiguous: false };
}

/** Splits /proc cmdline bytes into argv. */
function argvOf(bytes: Uint8Array | null): string[] | null {
  if (!bytes) return null;
  const parts = new TextDecoder().decode(bytes).split("\0");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}

/** Whether fd 0 of `pid` is the terminal `tty` (Linux /proc); null when it cannot be read. */
function stdinIs(pid: number, tty: string | null): boolean | null {
  if (!tty) return null;
  try {
    return Deno.readLinkSync(`/proc/${pid}/fd/0`) === tty;
  } catch {
    return null;
  }
}

async function digestOf(bytes: Uint8Array | null): Promise<string | null> {
  if (!bytes) return null;
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return "sha256:" + [...d].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The pane's process and the harness's process of an agent session whose pane process is `panePid`. */
export async function paneAndHarness(
  panePid: number,
  paneTty: string | null,
  harnessNames: readonly string[],
): Promise<{ pane: ProcessIdentity; harness: ProcessIdentity | null; ambiguous: boolean }> {
  const tree = processTree(panePid);
  const argvBytes = new Map<number, Uint8Array | null>();
  const bytesOf = (pid: number) => {
    if (!argvBytes.has(pid)) argvBytes.set(pid, processArgvBytes(pid));
    return argvBytes.get(pid)!;
  };
  const identity = async (pid: number, start: string | null): Promise<ProcessIdentity> => ({
    pid,
    start,
    argv_digest: await digestOf(bytesOf(pid)),
  });
  if (!tree || tree.length === 0) {
    // No process table here (or the pane's process is gone): the pane as far as the OS says, the harness unknown.
    const start = processStartIdentity(panePid);
    return { pane: await identity(panePid, start), harness: null, ambiguous: false };
  }
  const procs: ProcFacts[] = tree.map((p) => ({
    pid: p.pid,
    ppid: p.ppid,
    name: p.name,
    start: p.start,
    argv: argvOf(bytesOf(p.pid)),
    onPaneTty: stdinIs(p.pid, paneTty),
  }));
  const root = procs.find((p) => p.pid === panePid);
  const chosen = selectHarnessProcess(procs, panePid, harnessNames);
  return {
    pane: await identity(panePid, root?.start ?? null),
    harness: chosen.process ? await identity(chosen.process.pid, chosen.process.start) : null,
    ambiguous: chosen.ambiguous,
  };
}
