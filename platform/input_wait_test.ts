/**
 * classifyInputWait() over facts recorded from real programs in a tmux pane (tests/fixtures/input_wait,
 * regenerate with `deno run -A tests/fixtures/input_wait/record.ts --write`), and over edge cases.
 */
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { SCENARIOS } from "../tests/fixtures/input_wait/scenarios.ts";
import { classifyInputWait, type InputWaitFacts, type ProcessFacts, waitedReadFds } from "./input_wait.ts";

const FIXTURES = new URL("../tests/fixtures/input_wait/", import.meta.url);

interface Fixture {
  scenario: string;
  command: string;
  waiting: boolean | null;
  facts: InputWaitFacts;
}

async function fixture(name: string): Promise<Fixture> {
  return JSON.parse(await Deno.readTextFile(new URL(`${name}.json`, FIXTURES)));
}

/**
 * The same facts as a kernel that hides /proc/<pid>/syscall (Yama ptrace_scope=1) would give: /proc/<pid>/mem is
 * behind the same check, so the poll and select sets are gone too.
 */
function withoutSyscall(facts: InputWaitFacts): InputWaitFacts {
  return {
    ...facts,
    processes: facts.processes.map((p) => ({
      ...p,
      tasks: p.tasks.map(({ readFds: _, ...t }) => ({ ...t, syscall: null })),
    })),
  };
}

Deno.test("recorded programs: shells, REPLs, readers and full-screen programs wait; sleep and work do not", async () => {
  const wrong: string[] = [];
  for (const s of SCENARIOS) {
    const f = await fixture(s.name);
    const verdict = classifyInputWait(f.facts);
    if (verdict.waiting !== s.waiting) {
      wrong.push(
        `${s.name} (${s.command}): ${verdict.waiting}, want ${s.waiting}: ${JSON.stringify(verdict.processes)}`,
      );
    }
  }
  assertEquals(wrong, []);
});

Deno.test("recorded programs: the same verdicts from wchan alone when the syscall file is not readable", async () => {
  const wrong: string[] = [];
  for (const s of SCENARIOS) {
    const verdict = classifyInputWait(withoutSyscall((await fixture(s.name)).facts));
    const want = s.wchanWaiting !== undefined ? s.wchanWaiting : s.waiting;
    if (verdict.waiting !== want) wrong.push(`${s.name}: ${verdict.waiting}, want ${want}`);
  }
  assertEquals(wrong, []);
});

Deno.test("the issue-15 cases: readline's pselect6 (nested bash) counts, clock_nanosleep does not", async () => {
  const bash = classifyInputWait((await fixture("bash_norc")).facts);
  assertEquals(bash.waiting, true);
  assert(bash.processes[0]!.detail.startsWith("select"), bash.processes[0]!.detail);
  const sleep = classifyInputWait((await fixture("sleep")).facts);
  assertEquals([sleep.waiting, sleep.processes[0]!.activity], [false, "other_wait"]);
  const node = classifyInputWait((await fixture("node")).facts);
  assertEquals(node.waiting, true);
  const timer = classifyInputWait((await fixture("node_timer")).facts);
  assertEquals(timer.waiting, false, "an event loop not watching the terminal is working");
});

function proc(over: Partial<ProcessFacts> & { syscall?: string | null; wchan?: string | null }): ProcessFacts {
  const { syscall = null, wchan = null, ...rest } = over;
  return {
    pid: 10,
    name: "p",
    state: "S",
    tasks: [{ tid: 10, state: over.state ?? "S", syscall, wchan }],
    fds: { "0": "tty", "1": "tty", "2": "tty" },
    epoll: {},
    ...rest,
  };
}
const one = (p: ProcessFacts, arch = "x86_64") => classifyInputWait({ arch, processes: [p] });

Deno.test("read: only a read on the terminal's descriptor counts (any fd number, /dev/tty included)", () => {
  assertEquals(one(proc({ syscall: "0 0x0 0x1 0x1 0 0 0 0x7 0x8" })).waiting, true);
  const fd10 = proc({ syscall: "0 0xa 0x1 0x1 0 0 0 0x7 0x8", fds: { "0": "tty", "10": "tty" } });
  assertEquals(one(fd10).waiting, true);
  assertEquals(
    one(proc({ syscall: "0 0x3 0x1 0x1 0 0 0 0x7 0x8", fds: { "0": "tty", "3": "pollable" } })).waiting,
    false,
  );
  // aarch64 numbers its syscalls differently: 63 is read there, 0 is io_setup.
  assertEquals(one(proc({ syscall: "63 0x0 0x1 0x1 0 0 0 0x7 0x8" }), "aarch64").waiting, true);
  assertEquals(one(proc({ syscall: "63 0x0 0x1 0x1 0 0 0 0x7 0x8" }), "x86_64").waiting, false);
});

Deno.test("select/poll: the terminal alone is input, with other descriptors it cannot tell, without it no", () => {
  const fds = { "0": "tty", "1": "tty", "2": "tty", "3": "pollable" } as const;
  assertEquals(one(proc({ syscall: "270 0x1 0x7ff 0x0 0 0 0 0x7 0x8", fds })).waiting, true, "nfds 1: only fd 0");
  assertEquals(one(proc({ syscall: "270 0x4 0x7ff 0x0 0 0 0 0x7 0x8", fds })).waiting, null, "fd 0 and a socket");
  assertEquals(one(proc({ syscall: "270 0x1 0x0 0x0 0x7ff 0 0 0x7 0x8", fds })).waiting, false, "no read set");
  assertEquals(one(proc({ syscall: "7 0x7ff 0x1 0x0 0 0 0 0x7 0x8" })).waiting, true, "poll with only the tty open");
  assertEquals(one(proc({ syscall: "7 0x7ff 0x1 0x0 0 0 0 0x7 0x8", fds })).waiting, null, "poll, tty and a pipe");
  const noTty = { "0": "inert", "3": "pollable" } as const;
  assertEquals(one(proc({ syscall: "271 0x7ff 0x1 0x0 0 0 0 0x7 0x8", fds: noTty })).waiting, false);
});

Deno.test("epoll: decided by the descriptors the epoll instance watches", () => {
  const fds = { "0": "tty", "5": "pollable", "6": "pollable" } as const;
  const sc = "281 0x5 0x7ff 0x400 0x10 0 0x8 0x7 0x8";
  assertEquals(one(proc({ syscall: sc, fds, epoll: { "5": [6, 0] } })).waiting, true);
  assertEquals(one(proc({ syscall: sc, fds, epoll: { "5": [6] } })).waiting, false);
  assertEquals(one(proc({ syscall: sc, fds })).waiting, null, "fdinfo unreadable: tty among others");
});

Deno.test("state and group rules: running, disk sleep and stopped are not waiting; a parent waiting defers", () => {
  assertEquals(one(proc({ state: "R", syscall: "running" })).waiting, false);
  assertEquals(one(proc({ state: "D", wchan: "folio_wait_bit" })).waiting, false);
  assertEquals(one(proc({ state: "T", wchan: "do_signal_stop" })).waiting, false);
  assertEquals(one(proc({ syscall: null, wchan: null })).waiting, null, "nothing readable");
  assertEquals(one(proc({ syscall: null, wchan: "futex_wait_queue" })).waiting, false);
  assertEquals(classifyInputWait({ arch: "x86_64", processes: [] }).waiting, null);
  const parent = proc({ pid: 1, syscall: "61 0xffffffff 0x7ff 0 0 0 0 0x7 0x8" });
  const reader = proc({ pid: 2, syscall: "0 0x0 0x1 0x1 0 0 0 0x7 0x8" });
  const runner = proc({ pid: 3, state: "R", syscall: "running" });
  assertEquals(classifyInputWait({ arch: "x86_64", processes: [parent, reader] }).waiting, true);
  assertEquals(classifyInputWait({ arch: "x86_64", processes: [parent, reader, runner] }).waiting, false);
  // One thread reading the terminal makes the process a reader; one running thread makes it busy.
  const threads = proc({});
  threads.tasks = [
    { tid: 10, state: "S", syscall: "202 0x1 0x189 0 0 0 0 0x7 0x8", wchan: "futex_wait_queue" },
    { tid: 11, state: "S", syscall: "0 0x0 0x1 0x1 0 0 0 0x7 0x8", wchan: "wait_woken" },
  ];
  assertEquals(one(threads).waiting, true);
  threads.tasks.push({ tid: 12, state: "R", syscall: "running", wchan: "0" });
  assertEquals(one(threads).waiting, false);
});

Deno.test("an unknown architecture falls back to wchan", () => {
  assertEquals(one(proc({ syscall: "999 0x0 0 0 0 0 0 0x7 0x8", wchan: "wait_woken" }), "riscv64").waiting, true);
  assertEquals(
    one(proc({ syscall: "999 0x0 0 0 0 0 0 0x7 0x8", wchan: "hrtimer_nanosleep" }), "riscv64").waiting,
    false,
  );
});

Deno.test("issue 29: a poll or select read set names the descriptors: a socket alone is not input", async () => {
  const server = classifyInputWait((await fixture("http_server")).facts);
  assertEquals([server.waiting, server.processes[0]!.detail], [false, "poll reading fd 3, not on the terminal"]);
  assertEquals(classifyInputWait((await fixture("select_socket_only")).facts).waiting, false);
  assertEquals(classifyInputWait((await fixture("select_tty_socket")).facts).waiting, null, "ssh-like: both");
  const fds = { "0": "tty", "1": "tty", "2": "tty", "3": "pollable", "4": "tty" } as const;
  const poll = (readFds: number[] | null) =>
    one({ ...proc({ syscall: "271 0x7ff 0x2 0x0 0 0 0 0x7 0x8", fds }), tasks: [{ ...task, readFds }] });
  const task = { tid: 10, state: "S", syscall: "271 0x7ff 0x2 0x0 0 0 0 0x7 0x8", wchan: "poll_schedule_timeout" };
  assertEquals(poll([3]).waiting, false, "ssh authenticating: its socket only");
  assertEquals(poll([4]).waiting, true, "the terminal only (/dev/tty on fd 4)");
  assertEquals(poll([3, 4]).waiting, null, "ssh logged in: the terminal and its connection");
  assertEquals(poll([]).waiting, false, "nothing to read");
  assertEquals(poll(null).waiting, null, "the set unreadable: as before, the open descriptors");
});

/** Memory of a fake process: `bytes` at `base`. */
function memory(base: number, bytes: Uint8Array) {
  return (address: number, length: number): Uint8Array | null =>
    address >= base && address + length <= base + bytes.length
      ? bytes.slice(address - base, address - base + length)
      : null;
}

function pollfds(entries: [fd: number, events: number][]): Uint8Array {
  const b = new Uint8Array(entries.length * 8);
  const v = new DataView(b.buffer);
  entries.forEach(([fd, events], i) => {
    v.setInt32(i * 8, fd, true);
    v.setInt16(i * 8 + 4, events, true);
    v.setInt16(i * 8 + 6, 0x7fff, true); // revents: never read
  });
  return b;
}

Deno.test("waitedReadFds: the poll entries that ask for input, the select read bits below nfds", () => {
  const base = 0x7ffe1109aa98;
  // ssh logged in: its socket for input and output (two entries), the terminal for input; -1 is skipped.
  const ssh = pollfds([[3, 0x1], [3, 0x4], [-1, 0x1], [4, 0x1]]);
  assertEquals(waitedReadFds("x86_64", `271 0x${base.toString(16)} 0x4 0x0 0 0 0 0x7 0x8`, memory(base, ssh)), [3, 4]);
  assertEquals(waitedReadFds("x86_64", `7 0x${base.toString(16)} 0x2 0x1f4 0 0 0 0x7 0x8`, memory(base, ssh)), [3]);
  // POLLPRI, POLLRDNORM and POLLRDBAND ask for input too; POLLOUT alone does not.
  const kinds = pollfds([[5, 0x2], [6, 0x40], [7, 0x80], [8, 0x4]]);
  assertEquals(waitedReadFds("x86_64", `7 0x${base.toString(16)} 0x4 0x0 0 0 0 0x7 0x8`, memory(base, kinds)), [
    5,
    6,
    7,
  ]);
  // aarch64: ppoll is 73, pselect6 72.
  assertEquals(waitedReadFds("aarch64", `73 0x${base.toString(16)} 0x4 0x0 0 0 0 0x7 0x8`, memory(base, ssh)), [3, 4]);
  // select: fds 0 and 3 set in an 8-byte fd_set, nfds 4; bits at or past nfds are not part of the call.
  const set = new Uint8Array(8);
  set[0] = 0b0001_1001; // fd 0, 3 and 4; nfds 4 excludes 4
  assertEquals(waitedReadFds("x86_64", `270 0x4 0x${base.toString(16)} 0x0 0 0 0 0x7 0x8`, memory(base, set)), [0, 3]);
  assertEquals(waitedReadFds("x86_64", `23 0x5 0x${base.toString(16)} 0x0 0 0 0 0x7 0x8`, memory(base, set)), [
    0,
    3,
    4,
  ]);
  // Not a poll or select, running, unknown architecture, unreadable memory, absurd sizes: null.
  assertEquals(waitedReadFds("x86_64", "0 0x0 0x7ff 0x1 0 0 0 0x7 0x8", memory(base, ssh)), null);
  assertEquals(waitedReadFds("x86_64", "running", memory(base, ssh)), null);
  assertEquals(waitedReadFds("riscv64", `7 0x${base.toString(16)} 0x2 0x0 0 0 0 0x7 0x8`, memory(base, ssh)), null);
  assertEquals(waitedReadFds("x86_64", `7 0x${base.toString(16)} 0x2 0x0 0 0 0 0x7 0x8`, () => null), null);
  assertEquals(waitedReadFds("x86_64", `7 0x${base.toString(16)} 0x9 0x0 0 0 0 0x7 0x8`, memory(base, ssh)), null);
  assertEquals(waitedReadFds("x86_64", `7 0x${base.toString(16)} 0x100000 0x0 0 0 0 0x7 0x8`, () => null), null);
  assertEquals(waitedReadFds("x86_64", null, memory(base, ssh)), null);
});
