/**
 * Process facts from the OS: liveness and a start identity that survives PID reuse. Linux reads
 * /proc; other POSIX systems ask `ps`.
 */

import {
  classifyInputWait,
  type FdKind,
  type InputWaitFacts,
  type InputWaitVerdict,
  inReadSyscall,
  type ProcessFacts,
  type TaskFacts,
  waitedReadFds,
} from "./input_wait.ts";
import { classifyPsForeground, parsePsRows, PS_FOREGROUND_COLUMNS } from "./ps_foreground.ts";
import { runProcess, runProcessSync } from "./run.ts";

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
    const out = runProcessSync("ps", { args: ["-o", "stat=", "-p", String(pid)], stderr: "null" });
    const stat = out.stdout.trim();
    return out.success && stat !== "" && !stat.startsWith("Z");
  } catch {
    return false;
  }
}

function isZombie(pid: number): boolean {
  const stat = readProcStat(pid);
  return stat?.state === "Z";
}

/** The fields of /proc/<pid>/stat aiterm reads. */
export interface ProcStat {
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
  /** How many threads the process has (a single-threaded one has only its main thread, whose id is the pid). */
  threads: number;
}

/** Parses /proc/<pid>/stat; null when the process is gone or this is not Linux. */
export function readProcStat(pid: number): ProcStat | null {
  const text = readText(`/proc/${pid}/stat`);
  return text === null ? null : parseProcStat(text);
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
    threads: Number(field(20)),
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
    const out = runProcessSync("ps", { args: ["-o", "lstart=", "-p", String(pid)], stderr: "null" });
    const text = out.stdout.trim();
    return out.success && text ? `ps:${text}` : null;
  } catch {
    return null;
  }
}

/** True when `pid` is alive and still the incarnation recorded as `identity`. */
export function sameProcessAlive(pid: number, identity: string | null): boolean {
  if (Deno.build.os === "linux" && Number.isInteger(pid) && pid > 0) return sameProcessStat(pid, identity) !== null;
  if (!processAlive(pid)) return false;
  if (identity === null) return true;
  return processStartIdentity(pid) === identity;
}

/**
 * Linux: the stat of `pid` when it is alive and still the incarnation recorded as `identity` (else null), for a
 * caller that reads more of it ({@link foregroundBrief}); one read of /proc/<pid>/stat answers all three.
 * Elsewhere: null.
 */
export function sameProcessStat(pid: number, identity: string | null): ProcStat | null {
  if (Deno.build.os !== "linux" || !Number.isInteger(pid) || pid <= 0) return null;
  const stat = readProcStat(pid);
  if (!stat || stat.state === "Z") return null;
  return identity === null || `linux:${stat.starttime}` === identity ? stat : null;
}

/** The foreground process of a pane's terminal. */
export interface ForegroundProcess {
  pid: number;
  /** Process name (comm). */
  name: string;
  /**
   * The foreground group is waiting for terminal input, by what the kernel says of each of its
   * processes (see platform/input_wait.ts): true waiting, false working or waiting on something
   * else, null when it cannot tell (a wait on the terminal among other descriptors; no wait channel from ps).
   */
  readingInput: boolean | null;
  /** The evidence behind `readingInput`, per process of the group (from /proc on Linux, from ps elsewhere). */
  inputWait: InputWaitVerdict | null;
  /** The group leader is stopped by a signal (SIGSTOP/SIGTSTP). */
  stopped: boolean;
  /** The foreground process group id. */
  pgrp: number;
}

/**
 * The foreground process group of the terminal that `panePid` runs on (Linux: /proc; else null):
 * its leader (or, when the leader has exited, another member) and whether the group waits for input.
 */
export function foregroundProcess(panePid: number): ForegroundProcess | null {
  if (Deno.build.os !== "linux") return null;
  const pane = readProcStat(panePid);
  if (!pane || pane.tpgid <= 0) return null;
  const members = foregroundMembers(panePid, pane.tpgid);
  const leader = members.find((m) => m.pid === pane.tpgid) ?? members[0];
  if (!leader) return null;
  const inputWait = classifyInputWait({
    arch: Deno.build.arch,
    processes: members.map((m) => processFacts(m.pid, m.stat, pane.ttyNr)),
  });
  return {
    pid: leader.pid,
    name: leader.stat.comm,
    readingInput: inputWait.waiting,
    inputWait,
    stopped: leader.stat.state === "T" || leader.stat.state === "t",
    pgrp: pane.tpgid,
  };
}

/**
 * The foreground process of a pane's terminal on any POSIX system: Linux reads /proc ({@link foregroundProcess});
 * elsewhere one `ps -t <tty>` gives the group, its states and wait channels (platform/ps_foreground.ts says what
 * they can prove). `tty` is the pane's device as the multiplexer reports it (/dev/ttys003). Null on Windows, without
 * a tty, or when ps fails.
 */
export async function foregroundOf(panePid: number, tty: string): Promise<ForegroundProcess | null> {
  if (Deno.build.os === "linux") return foregroundProcess(panePid);
  if (Deno.build.os === "windows" || !tty.startsWith("/dev/")) return null;
  try {
    const out = await runProcess("ps", {
      args: ["-t", tty.slice("/dev/".length), ...PS_FOREGROUND_COLUMNS],
      stderr: "null",
    });
    // ps exits 1 when no process matched; its rows are what counts.
    return foregroundFromPs(out.stdout);
  } catch {
    return null;
  }
}

/** The foreground process described by the output of `ps -t <tty>` with PS_FOREGROUND_COLUMNS; null when none. */
export function foregroundFromPs(stdout: string): ForegroundProcess | null {
  const fg = classifyPsForeground(parsePsRows(stdout));
  if (!fg) return null;
  return {
    pid: fg.leader.pid,
    name: fg.leader.name,
    readingInput: fg.verdict.waiting,
    inputWait: fg.verdict,
    stopped: fg.leader.stat.startsWith("T"),
    pgrp: fg.pgrp,
  };
}

/** The foreground process of a pane's terminal without the evidence of what it waits for (see {@link foregroundBrief}). */
export interface ForegroundBrief {
  pid: number;
  /** Process name (comm). */
  name: string;
  /** The foreground process group id. */
  pgrp: number;
  /**
   * A thread of the foreground group is blocked in a read-family system call: the precondition of
   * blockedInTerminalRead (platform/input_wait.ts), which then needs {@link foregroundProcess}'s full look.
   */
  inRead: boolean;
}

/**
 * The foreground process of `panePid`'s terminal (Linux; null elsewhere or when there is none), for a caller that
 * needs its input-wait verdict only when it may be a plain read of the terminal (a send deciding whether the
 * text answers a password prompt): the process stats and each thread's current system call, not every open
 * descriptor, so a shell idle at its prompt costs a few small reads. `paneStat`: the pane process's stat when the
 * caller just read it ({@link sameProcessStat}).
 */
export function foregroundBrief(panePid: number, paneStat?: ProcStat): ForegroundBrief | null {
  if (Deno.build.os !== "linux") return null;
  const pane = paneStat ?? readProcStat(panePid);
  if (!pane || pane.tpgid <= 0) return null;
  const members = foregroundMembers(panePid, pane.tpgid, pane);
  const leader = members.find((m) => m.pid === pane.tpgid) ?? members[0];
  if (!leader) return null;
  const inRead = members.some((m) =>
    // The same threads processFacts examines (the lowest MAX_TASKS ids).
    [...(m.tids ?? taskIds(m.pid, m.stat))].sort((a, b) => a - b).slice(0, MAX_TASKS).some((tid) =>
      inReadSyscall(Deno.build.arch, readText(`/proc/${m.pid}/task/${tid}/syscall`))
    )
  );
  return { pid: leader.pid, name: leader.stat.comm, pgrp: pane.tpgid, inRead };
}

/**
 * The facts {@link classifyInputWait} needs about the foreground group of `panePid`'s terminal
 * (Linux; null elsewhere or when the pane is gone). For recording fixtures and diagnostics.
 */
export function readInputWaitFacts(panePid: number): InputWaitFacts | null {
  if (Deno.build.os !== "linux") return null;
  const pane = readProcStat(panePid);
  if (!pane || pane.tpgid <= 0) return null;
  const members = foregroundMembers(panePid, pane.tpgid);
  return { arch: Deno.build.arch, processes: members.map((m) => processFacts(m.pid, m.stat, pane.ttyNr)) };
}

/** At most this many threads of one process are examined (a JVM has hundreds). */
const MAX_TASKS = 64;

/** A /proc file's first bytes read at once (these are small): one read call instead of the growing reads of readTextFileSync. */
const PROC_READ_BYTES = 4096;
const procDecoder = new TextDecoder();

/** A small /proc file's text (up to {@link PROC_READ_BYTES} bytes, more only by further reads); null when gone. */
function readText(path: string): string | null {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path);
  } catch {
    return null;
  }
  try {
    let buf = new Uint8Array(PROC_READ_BYTES);
    let len = 0;
    for (;;) {
      if (len === buf.length) {
        const bigger = new Uint8Array(buf.length * 2);
        bigger.set(buf);
        buf = bigger;
      }
      const n = file.readSync(buf.subarray(len));
      if (n === null || n === 0) break;
      len += n;
    }
    return procDecoder.decode(buf.subarray(0, len));
  } catch {
    return null;
  } finally {
    file.close();
  }
}

function taskIds(pid: number, stat?: ProcStat): number[] {
  // A single-threaded process (a shell) needs no listing: its one thread is itself.
  if (stat?.threads === 1) return [pid];
  try {
    return [...Deno.readDirSync(`/proc/${pid}/task`)].map((e) => Number(e.name)).filter(Number.isInteger);
  } catch {
    return [];
  }
}

/**
 * The members of process group `pgrp` among `rootPid` and its descendants (walking the kernel's
 * children lists, cheap), or from a scan of all of /proc when those lists are not available or the
 * walk finds none (a member reparented away from the pane's tree).
 */
function foregroundMembers(
  rootPid: number,
  pgrp: number,
  rootStat?: ProcStat,
): { pid: number; stat: ProcStat; tids?: number[] }[] {
  const members: { pid: number; stat: ProcStat; tids?: number[] }[] = [];
  const seen = new Set<number>();
  const stack = [rootPid];
  let walked = true;
  while (stack.length && walked) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    // The root's stat was just read by the caller; its task list serves the caller again (foregroundBrief).
    const stat = pid === rootPid && rootStat ? rootStat : readProcStat(pid);
    if (!stat) continue;
    const tids = taskIds(pid, stat);
    if (stat.pgrp === pgrp) members.push({ pid, stat, tids });
    for (const tid of tids) {
      const children = readText(`/proc/${pid}/task/${tid}/children`);
      if (children === null) {
        if (pid === rootPid && tid === pid) walked = false;
        continue;
      }
      for (const c of children.trim().split(/\s+/)) if (c) stack.push(Number(c));
    }
  }
  if (walked && members.length) return members.sort((a, b) => a.pid - b.pid);
  const all: { pid: number; stat: ProcStat }[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = readProcStat(Number(entry.name));
    if (stat?.pgrp === pgrp) all.push({ pid: Number(entry.name), stat });
  }
  return all.sort((a, b) => a.pid - b.pid);
}

const INERT_DEVICES = new Set(["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"]);

/** What one open descriptor of `pid` is, relative to the pane's terminal `ttyNr`. */
function fdKind(pid: number, fd: string, link: string, procTtyNr: number, ttyNr: number): FdKind {
  // The write end of a pipe never delivers input (`cat | cat`: the first cat's stdout).
  if (link.startsWith("pipe:")) return writeOnly(pid, fd) ? "inert" : "pollable";
  if (/^(socket|anon_inode):/.test(link)) return "pollable";
  if (!link.startsWith("/") || INERT_DEVICES.has(link)) return "inert";
  // /dev/tty is the process's controlling terminal, whatever device it is.
  if (link === "/dev/tty") return procTtyNr === ttyNr && ttyNr !== 0 ? "tty" : "pollable";
  try {
    const info = Deno.statSync(`/proc/${pid}/fd/${fd}`);
    if (info.isCharDevice) return info.rdev === ttyNr ? "tty" : "pollable";
    if (info.isFifo) return writeOnly(pid, fd) ? "inert" : "pollable";
    return info.isSocket ? "pollable" : "inert";
  } catch {
    return "inert";
  }
}

/** True when the descriptor was opened write-only (fdinfo `flags:` is octal; O_ACCMODE 1 = O_WRONLY). */
function writeOnly(pid: number, fd: string): boolean {
  const flags = readText(`/proc/${pid}/fdinfo/${fd}`)?.match(/^flags:\s*([0-7]+)/m)?.[1];
  return flags !== undefined && (Number.parseInt(flags, 8) & 3) === 1;
}

/** Descriptors an epoll instance watches, from its fdinfo (`tfd: N` lines). */
function epollTargets(pid: number, fd: string): number[] | null {
  const info = readText(`/proc/${pid}/fdinfo/${fd}`);
  if (info === null) return null;
  return [...info.matchAll(/^tfd:\s*(\d+)/gm)].map((m) => Number(m[1]));
}

function processFacts(pid: number, stat: ProcStat, ttyNr: number): ProcessFacts {
  const fds: Record<string, FdKind> = {};
  const epoll: Record<string, number[]> = {};
  try {
    for (const entry of Deno.readDirSync(`/proc/${pid}/fd`)) {
      let link: string;
      try {
        link = Deno.readLinkSync(`/proc/${pid}/fd/${entry.name}`);
      } catch {
        continue;
      }
      fds[entry.name] = fdKind(pid, entry.name, link, stat.ttyNr, ttyNr);
      if (link === "anon_inode:[eventpoll]") {
        const targets = epollTargets(pid, entry.name);
        if (targets) epoll[entry.name] = targets;
      }
    }
  } catch {
    // not ours or gone: no descriptors known
  }
  const tasks: TaskFacts[] = taskIds(pid, stat).sort((a, b) => a - b).slice(0, MAX_TASKS).map((tid) => {
    const dir = `/proc/${pid}/task/${tid}`;
    const syscall = readText(`${dir}/syscall`)?.trim() ?? null;
    const task: TaskFacts = {
      tid,
      state: parseProcStat(readText(`${dir}/stat`) ?? "")?.state ?? "X",
      syscall,
      wchan: readText(`${dir}/wchan`)?.trim() ?? null,
    };
    const readFds = pollReadFds(pid, dir, syscall);
    if (readFds) task.readFds = readFds;
    return task;
  });
  return { pid, name: stat.comm, state: stat.state, tasks, fds, epoll };
}

/**
 * The descriptors a thread blocked in poll or select waits to read, from the call's arguments in the process's
 * memory (waitedReadFds in input_wait.ts). Kept only when the thread is still in the very same call afterwards (the
 * syscall line, with its stack and instruction pointers, unchanged), so a set read while the call returned is never
 * used. Reading /proc/<pid>/mem is allowed exactly where the syscall file is (the same ptrace access check); the
 * process is neither stopped nor signalled.
 */
function pollReadFds(pid: number, dir: string, syscall: string | null): number[] | null {
  if (syscall === null || syscall === "running") return null;
  let mem: Deno.FsFile | null = null;
  try {
    const fds = waitedReadFds(Deno.build.arch, syscall, (address, length) => {
      mem ??= Deno.openSync(`/proc/${pid}/mem`);
      mem.seekSync(address, Deno.SeekMode.Start);
      const buf = new Uint8Array(length);
      let got = 0;
      while (got < length) {
        const n = mem.readSync(buf.subarray(got));
        if (n === null || n === 0) return null;
        got += n;
      }
      return buf;
    });
    return fds !== null && readText(`${dir}/syscall`)?.trim() === syscall ? fds : null;
  } catch {
    return null;
  } finally {
    (mem as Deno.FsFile | null)?.close();
  }
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
      clockTicks = Number(runProcessSync("getconf", { args: ["CLK_TCK"], stderr: "null" }).stdout.trim()) || 100;
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
