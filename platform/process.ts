/**
 * Process facts from the OS: liveness and a start identity that survives PID reuse. Linux reads
 * /proc; other POSIX systems ask `ps`.
 */

const decoder = new TextDecoder();

/** True when a process with this PID exists (signal 0 probe semantics). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (Deno.build.os === "linux") {
    try {
      Deno.statSync(`/proc/${pid}`);
      return !isZombie(pid);
    } catch {
      return false;
    }
  }
  // No signal probe here: sending any real signal could change the process (SIGCONT resumes a
  // stopped one), so ask ps.
  try {
    const out = new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)], stdout: "piped", stderr: "null" })
      .outputSync();
    const stat = decoder.decode(out.stdout).trim();
    return out.success && stat !== "" && !stat.startsWith("Z");
  } catch {
    return false;
  }
}

function isZombie(pid: number): boolean {
  const stat = readProcStat(pid);
  return stat?.state === "Z";
}

interface ProcStat {
  state: string;
  ppid: number;
  pgrp: number;
  /** The controlling terminal's device number (0: none). */
  ttyNr: number;
  tpgid: number;
  utime: number;
  stime: number;
  starttime: string;
  comm: string;
}

/** Parses /proc/<pid>/stat; null when the process is gone or this is not Linux. */
export function readProcStat(pid: number): ProcStat | null {
  try {
    const text = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return parseProcStat(text);
  } catch {
    return null;
  }
}

/** Parses the text of a /proc/<pid>/stat file (the comm field may contain spaces and parentheses). */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).trim().split(/\s+/);
  // rest[0] is field 3 (state); field n is rest[n - 3].
  const field = (n: number): string => rest[n - 3] ?? "";
  return {
    comm: text.slice(open + 1, close),
    state: field(3),
    ppid: Number(field(4)),
    pgrp: Number(field(5)),
    ttyNr: Number(field(7)),
    tpgid: Number(field(8)),
    utime: Number(field(14)),
    stime: Number(field(15)),
    starttime: field(22),
  };
}

/**
 * A string that identifies this process incarnation: the same PID with a different value is a
 * different process. Linux: boot id + start ticks; elsewhere: `ps -o lstart`. Null when gone.
 */
export function processStartIdentity(pid: number): string | null {
  if (Deno.build.os === "linux") {
    const stat = readProcStat(pid);
    return stat ? `linux:${stat.starttime}` : null;
  }
  try {
    const out = new Deno.Command("ps", { args: ["-o", "lstart=", "-p", String(pid)], stdout: "piped", stderr: "null" })
      .outputSync();
    const text = decoder.decode(out.stdout).trim();
    return out.success && text ? `ps:${text}` : null;
  } catch {
    return null;
  }
}

/** True when `pid` is alive and still the incarnation recorded as `identity`. */
export function sameProcessAlive(pid: number, identity: string | null): boolean {
  if (!processAlive(pid)) return false;
  if (identity === null) return true;
  return processStartIdentity(pid) === identity;
}

/** The foreground process of a pane's terminal. */
export interface ForegroundProcess {
  pid: number;
  /** Process name (comm). */
  name: string;
  /** Blocked in read() on stdin: an interactive program waiting for input. Null when unknown (non-Linux). */
  readingInput: boolean | null;
  /** The group leader is stopped by a signal (SIGSTOP/SIGTSTP). */
  stopped: boolean;
  /** The foreground process group id. */
  pgrp: number;
}

const READ_SYSCALL: Record<string, number> = { x86_64: 0, aarch64: 63 };

/** The foreground process group leader of the terminal that `panePid` runs on (Linux: /proc; else null). */
export function foregroundProcess(panePid: number): ForegroundProcess | null {
  if (Deno.build.os !== "linux") return null;
  const pane = readProcStat(panePid);
  if (!pane || pane.tpgid <= 0) return null;
  const fg = readProcStat(pane.tpgid);
  if (!fg) return null;
  let readingInput: boolean | null = null;
  try {
    const sc = Deno.readTextFileSync(`/proc/${pane.tpgid}/syscall`).trim().split(/\s+/);
    const nr = READ_SYSCALL[Deno.build.arch];
    readingInput = nr !== undefined && Number(sc[0]) === nr && Number(sc[1]) === 0;
  } catch {
    readingInput = null;
  }
  return {
    pid: pane.tpgid,
    name: fg.comm,
    readingInput,
    stopped: fg.state === "T" || fg.state === "t",
    pgrp: pane.tpgid,
  };
}

/** One process in a pane's tree. */
export interface TreeProcess {
  pid: number;
  ppid: number;
  name: string;
  /** User + system CPU time in milliseconds. */
  cpuMs: number;
  /** Start identity (see processStartIdentity). */
  start: string;
  /** Process group. */
  pgrp: number;
  /** Stopped by a signal. */
  stopped: boolean;
}

let clockTicks: number | null = null;
function ticksPerSecond(): number {
  if (clockTicks === null) {
    try {
      const out = new Deno.Command("getconf", { args: ["CLK_TCK"], stdout: "piped", stderr: "null" }).outputSync();
      clockTicks = Number(decoder.decode(out.stdout).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** `rootPid` and all its descendants (Linux /proc); null where the OS gives no cheap process table. */
export function processTree(rootPid: number): TreeProcess[] | null {
  if (Deno.build.os !== "linux") return null;
  const all: TreeProcess[] = [];
  const hz = ticksPerSecond();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const st = readProcStat(Number(entry.name));
    if (!st) continue;
    all.push({
      pid: Number(entry.name),
      ppid: st.ppid,
      name: st.comm,
      cpuMs: Math.round(((st.utime + st.stime) * 1000) / hz),
      start: `linux:${st.starttime}`,
      pgrp: st.pgrp,
      stopped: st.state === "T" || st.state === "t",
    });
  }
  const children = new Map<number, TreeProcess[]>();
  for (const p of all) {
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const root = all.find((p) => p.pid === rootPid);
  if (!root) return [];
  const out: TreeProcess[] = [];
  const stack = [root];
  while (stack.length) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return out;
}

/** The raw argv bytes of a process (Linux), for digesting only; never returned to callers. */
export function processArgvBytes(pid: number): Uint8Array | null {
  if (Deno.build.os !== "linux") return null;
  try {
    return Deno.readFileSync(`/proc/${pid}/cmdline`);
  } catch {
    return null;
  }
}

/**
 * One variable of another process's environment as it was when that process started (Linux
 * `/proc/<pid>/environ`, readable only for our own user's processes); null elsewhere or when absent.
 */
export function processEnvVar(pid: number, name: string): string | null {
  if (Deno.build.os !== "linux") return null;
  try {
    const raw = Deno.readFileSync(`/proc/${pid}/environ`);
    for (const entry of new TextDecoder().decode(raw).split("\0")) {
      if (entry.startsWith(`${name}=`)) return entry.slice(name.length + 1);
    }
  } catch {
    // gone, or not ours
  }
  return null;
}
