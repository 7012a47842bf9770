/**
 * Is the foreground of a terminal waiting for terminal input? Decided from what the kernel says about
 * every process (and thread) of the terminal's foreground process group: the system call it is
 * blocked in and that call's file descriptors (`/proc/<pid>/syscall`), where it sleeps in the kernel
 * (`/proc/<pid>/wchan`, the fallback where the syscall file is not readable, e.g. under Yama
 * ptrace_scope=1), its state, and what its open descriptors are. One syscall name is not enough:
 * readline (bash, python) waits in `pselect6`, zsh/dash/less/cat in `read`, node in `epoll_pwait`,
 * vim/top in `pselect6`; `sleep` in `clock_nanosleep`, a busy loop runs.
 *
 * This module is pure: it classifies captured facts (see `readInputWaitFacts` in process.ts for the
 * reader, and tests/fixtures/input_wait/ for recorded facts of real programs).
 */

/** What one open descriptor is, as far as waiting for input goes. */
export type FdKind =
  /** The terminal of the pane. */
  | "tty"
  /** Something a read or poll can block on: pipe, socket, eventfd, another terminal, a FIFO… */
  | "pollable"
  /** Never blocks a read or poll: regular file, directory, /dev/null… */
  | "inert";

/** The kernel's view of one thread. */
export interface TaskFacts {
  tid: number;
  /** State letter from /proc/<pid>/task/<tid>/stat (R, S, D, T, t, Z…). */
  state: string;
  /** The text of /proc/<pid>/task/<tid>/syscall; null when it cannot be read. */
  syscall: string | null;
  /** The text of /proc/<pid>/task/<tid>/wchan; null when it cannot be read. */
  wchan: string | null;
  /**
   * While the thread is blocked in poll or select: the descriptors that call waits to read, from the call's own
   * arguments in the process's memory (`/proc/<pid>/mem`, see {@link waitedReadFds}); null or absent when they could
   * not be read.
   */
  readFds?: number[] | null;
}

/** One process of the foreground group. */
export interface ProcessFacts {
  pid: number;
  name: string;
  /** State letter of the process (its main thread). */
  state: string;
  tasks: TaskFacts[];
  /** Open descriptors by number. */
  fds: Record<string, FdKind>;
  /** For each epoll descriptor: the descriptors it watches (from /proc/<pid>/fdinfo). */
  epoll: Record<string, number[]>;
}

/** Everything the classifier needs about one terminal's foreground group. */
export interface InputWaitFacts {
  /** Deno.build.arch of the machine the facts come from (syscall numbers differ). */
  arch: string;
  processes: ProcessFacts[];
}

/** What one process (or thread) is doing. */
export type Activity =
  | "tty_input" // blocked waiting for the terminal (alone, or among descriptors that are known)
  | "maybe_input" // blocked in a wait that may include the terminal among other things (ssh: tty + socket)
  | "running" // on a CPU or in uninterruptible (disk) sleep
  | "stopped"
  | "waiting_child" // a parent waiting for a child (the child decides)
  | "other_wait" // sleeping on something else: a timer, a pipe, a lock, a socket
  | "unknown" // the kernel's answer could not be read
  | "gone";

/** The verdict and its evidence. */
export interface InputWaitVerdict {
  /** True: waiting for terminal input; false: working or waiting on something else; null: cannot tell. */
  waiting: boolean | null;
  /** Per process: what it is doing and why. */
  processes: { pid: number; name: string; activity: Activity; detail: string }[];
}

interface SyscallTable {
  read: number[];
  select: number[];
  poll: number[];
  epoll: number[];
  wait: number[];
  sleep: number[];
}

/** Syscall numbers per architecture (x86_64: arch/x86/entry/syscalls; aarch64: asm-generic/unistd.h). */
const SYSCALLS: Record<string, SyscallTable> = {
  x86_64: {
    read: [0, 17, 19, 295, 327], // read pread64 readv preadv preadv2
    select: [23, 270], // select pselect6
    poll: [7, 271], // poll ppoll
    epoll: [232, 281, 441], // epoll_wait epoll_pwait epoll_pwait2
    wait: [61, 247], // wait4 waitid
    sleep: [35, 230], // nanosleep clock_nanosleep
  },
  aarch64: {
    read: [63, 67, 65, 69, 286],
    select: [72],
    poll: [73],
    epoll: [22, 441],
    wait: [260, 95],
    sleep: [101, 115],
  },
};

/** Kernel sleep sites (wchan) by what they mean, for when the syscall file is not readable. */
const WCHAN_READ = /^(n_tty_read|wait_woken)$/;
const WCHAN_POLL = /^(poll_schedule_timeout|do_select|core_sys_select|do_sys_poll|do_poll)/;
const WCHAN_EPOLL = /^(ep_poll|do_epoll_wait)/;
const WCHAN_CHILD = /^(do_wait|kernel_wait4)/;

interface Classified {
  activity: Activity;
  detail: string;
}

/** Parses a syscall line: `running`, `-1 sp pc` (not in a syscall), or `nr a1 … a6 sp pc`. */
function parseSyscall(text: string): { running: true } | { nr: number; args: number[] } | null {
  const f = text.trim().split(/\s+/);
  if (f[0] === "running") return { running: true };
  const nr = Number(f[0]);
  if (!Number.isInteger(nr)) return null;
  return { nr, args: f.slice(1, 7).map((a) => Number.parseInt(a, 16)) };
}

/** Blocked on an unknown subset of `candidates`: the terminal alone, the terminal among others, or not it. */
function amongCandidates(p: ProcessFacts, candidates: string[], what: string): Classified {
  const kinds = candidates.map((fd) => p.fds[fd]);
  const ttyFds = candidates.filter((fd) => p.fds[fd] === "tty");
  if (ttyFds.length === 0) return { activity: "other_wait", detail: `${what}, not on the terminal` };
  if (!kinds.includes("pollable")) {
    return { activity: "tty_input", detail: `${what} on the terminal (fd ${ttyFds.join(",")})` };
  }
  return { activity: "maybe_input", detail: `${what} on the terminal and other descriptors` };
}

/** Blocked in poll or select on exactly the descriptors `fds` (read from the call's arguments). */
function amongWaited(p: ProcessFacts, fds: number[], what: string): Classified {
  if (fds.length === 0) return { activity: "other_wait", detail: `${what} reading no descriptor` };
  return amongCandidates(p, fds.map(String), `${what} reading fd ${fds.join(",")}`);
}

function epollVerdict(p: ProcessFacts, targets: number[], what: string): Classified {
  const tty = targets.filter((fd) => p.fds[String(fd)] === "tty");
  return tty.length
    ? { activity: "tty_input", detail: `${what} watching the terminal (fd ${tty.join(",")})` }
    : { activity: "other_wait", detail: `${what}, not watching the terminal` };
}

function classifyTask(p: ProcessFacts, t: TaskFacts, table: SyscallTable | undefined): Classified {
  if (t.state === "R") return { activity: "running", detail: "running" };
  if (t.state === "D") return { activity: "running", detail: "in uninterruptible (disk) sleep" };
  if (t.state === "T" || t.state === "t") return { activity: "stopped", detail: "stopped by a signal" };
  if (t.state === "Z" || t.state === "X") return { activity: "gone", detail: "exited" };
  const sc = t.syscall === null ? null : parseSyscall(t.syscall);
  if (sc && "running" in sc) return { activity: "running", detail: "running" };
  const allFds = Object.keys(p.fds);
  if (sc && table && sc.nr >= 0) {
    const [a1 = 0, a2 = 0] = sc.args;
    if (table.read.includes(sc.nr)) {
      const kind = p.fds[String(a1)];
      return kind === "tty"
        ? { activity: "tty_input", detail: `read on the terminal (fd ${a1})` }
        : { activity: "other_wait", detail: `read on fd ${a1} (${kind ?? "closed"}), not the terminal` };
    }
    if (table.select.includes(sc.nr)) {
      if (a2 === 0) return { activity: "other_wait", detail: "select without read descriptors" };
      if (t.readFds) return amongWaited(p, t.readFds, "select");
      return amongCandidates(p, allFds.filter((fd) => Number(fd) < a1), `select (nfds ${a1})`);
    }
    if (table.poll.includes(sc.nr)) {
      if (a2 === 0) return { activity: "other_wait", detail: "poll on no descriptors" };
      if (t.readFds) return amongWaited(p, t.readFds, "poll");
      return amongCandidates(p, allFds, `poll (${a2} fds)`);
    }
    if (table.epoll.includes(sc.nr)) {
      const targets = p.epoll[String(a1)];
      return targets ? epollVerdict(p, targets, `epoll_wait (fd ${a1})`) : amongCandidates(p, allFds, "epoll_wait");
    }
    if (table.wait.includes(sc.nr)) return { activity: "waiting_child", detail: "waiting for a child" };
    if (table.sleep.includes(sc.nr)) return { activity: "other_wait", detail: "sleeping on a timer" };
    return { activity: "other_wait", detail: `blocked in syscall ${sc.nr}` };
  }
  const wchan = t.wchan && t.wchan !== "0" ? t.wchan : null;
  if (!wchan) return { activity: "unknown", detail: "neither syscall nor wchan readable" };
  if (WCHAN_READ.test(wchan)) return amongCandidates(p, allFds, `reading (${wchan})`);
  if (WCHAN_POLL.test(wchan)) return amongCandidates(p, allFds, `polling (${wchan})`);
  if (WCHAN_EPOLL.test(wchan)) return epollVerdict(p, Object.values(p.epoll).flat(), `epoll (${wchan})`);
  if (WCHAN_CHILD.test(wchan)) return { activity: "waiting_child", detail: "waiting for a child" };
  return { activity: "other_wait", detail: `sleeping in ${wchan}` };
}

/** Order in which a thread's activity decides its process's. */
const PROCESS_ORDER: Activity[] = [
  "running",
  "stopped",
  "tty_input",
  "maybe_input",
  "unknown",
  "waiting_child",
  "other_wait",
  "gone",
];

function classifyProcess(p: ProcessFacts, table: SyscallTable | undefined): Classified {
  if (p.state === "Z" || p.state === "X") return { activity: "gone", detail: "exited" };
  if (p.state === "T" || p.state === "t") return { activity: "stopped", detail: "stopped by a signal" };
  const tasks = p.tasks.map((t) => classifyTask(p, t, table));
  if (tasks.length === 0) return { activity: "unknown", detail: "no thread readable" };
  for (const activity of PROCESS_ORDER) {
    const hit = tasks.find((t) => t.activity === activity);
    if (hit) return hit;
  }
  return tasks[0]!;
}

/**
 * Classifies a foreground group: waiting when some member is blocked on the terminal and none is
 * running or stopped; not waiting when a member runs or every member waits on something else (a
 * timer, a pipe, a child); null when the only waits seen may or may not include the terminal.
 */
export function classifyInputWait(facts: InputWaitFacts): InputWaitVerdict {
  const table = SYSCALLS[facts.arch];
  return verdictOf(facts.processes.map((p) => ({ pid: p.pid, name: p.name, ...classifyProcess(p, table) })));
}

/**
 * The group's verdict from its members' activities (the one rule for /proc facts and for ps rows): any member running
 * or stopped → not waiting; else one reading the terminal → waiting; else one that may be → cannot tell.
 */
export function verdictOf(processes: InputWaitVerdict["processes"]): InputWaitVerdict {
  const has = (a: Activity) => processes.some((p) => p.activity === a);
  let waiting: boolean | null;
  if (processes.every((p) => p.activity === "gone")) waiting = null;
  else if (has("running") || has("stopped")) waiting = false;
  else if (has("tty_input")) waiting = true;
  else if (has("maybe_input") || has("unknown")) waiting = null;
  else waiting = false;
  return { waiting, processes };
}

/**
 * Whether a thread's `/proc/<pid>/task/<tid>/syscall` text says it is blocked in a read-family call (read, pread,
 * readv, …) on architecture `arch`. Only such a thread can make {@link blockedInTerminalRead} true, so a group
 * with none needs no look at its descriptors.
 */
export function inReadSyscall(arch: string, syscall: string | null): boolean {
  const table = SYSCALLS[arch];
  if (!table || syscall === null) return false;
  const sc = parseSyscall(syscall);
  return sc !== null && !("running" in sc) && table.read.includes(sc.nr);
}

/**
 * True when a member of the foreground group is blocked in a plain `read` of the terminal (the `read`
 * builtin, getpass, `cat`), as opposed to a line editor's select/poll (readline, zle): only then can the
 * terminal be in a line-read mode worth asking about (a password prompt). False when not known.
 */
export function blockedInTerminalRead(verdict: InputWaitVerdict | null): boolean {
  return verdict?.processes.some((p) => p.activity === "tty_input" && p.detail.startsWith("read on the terminal")) ??
    false;
}

/** A poll(2) set larger than this is not read (one `struct pollfd` is 8 bytes). */
const MAX_POLL_FDS = 4096;
/** A select(2) set with a larger nfds is not read. */
const MAX_SELECT_FDS = 65536;
/** poll events that mean "wake me when there is something to read": POLLIN, POLLPRI, POLLRDNORM, POLLRDBAND. */
const POLL_READ_EVENTS = 0x1 | 0x2 | 0x40 | 0x80;

/**
 * The descriptors a thread blocked in poll/ppoll or select/pselect6 waits to read, from the call's own arguments:
 * `syscall` is its `/proc/<pid>/task/<tid>/syscall` text (the call number and its argument registers), and `readMem`
 * reads the process's memory (`/proc/<pid>/mem`; null when it cannot). poll: the `struct pollfd` array (fd, events)
 * whose events ask for input; select: the bits of the read set below nfds. Null when the thread is in neither call,
 * the architecture is not known, or the memory cannot be read. Little-endian layouts (x86_64, aarch64).
 */
export function waitedReadFds(
  arch: string,
  syscall: string | null,
  readMem: (address: number, length: number) => Uint8Array | null,
): number[] | null {
  const table = SYSCALLS[arch];
  if (!table || syscall === null) return null;
  const sc = parseSyscall(syscall);
  if (sc === null || "running" in sc) return null;
  const [a1 = 0, a2 = 0] = sc.args;
  if (table.poll.includes(sc.nr)) {
    if (a2 <= 0 || a2 > MAX_POLL_FDS || a1 === 0) return null;
    const bytes = readMem(a1, a2 * 8);
    if (!bytes || bytes.length < a2 * 8) return null;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    const fds: number[] = [];
    for (let i = 0; i < a2; i++) {
      const fd = view.getInt32(i * 8, true);
      const events = view.getInt16(i * 8 + 4, true);
      if (fd >= 0 && (events & POLL_READ_EVENTS) !== 0 && !fds.includes(fd)) fds.push(fd);
    }
    return fds;
  }
  if (table.select.includes(sc.nr)) {
    if (a1 <= 0 || a1 > MAX_SELECT_FDS || a2 === 0) return null;
    // fd_set is an array of longs: 8 bytes each on 64-bit Linux, bit i of the set is bit (i % 8) of byte i / 8.
    const length = Math.ceil(a1 / 64) * 8;
    const bytes = readMem(a2, length);
    if (!bytes || bytes.length < length) return null;
    const fds: number[] = [];
    for (let fd = 0; fd < a1; fd++) if ((bytes[fd >> 3]! >> (fd & 7)) & 1) fds.push(fd);
    return fds;
  }
  return null;
}
