/**
 * classifyInputWait() over facts recorded from real programs in a tmux pane (tests/fixtures/input_wait,
 * regenerate with `deno run -A tests/fixtures/input_wait/record.ts --write`), and over edge cases.
 */
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { SCENARIOS } from "../tests/fixtures/input_wait/scenarios.ts";
import { classifyInputWait, type InputWaitFacts, type ProcessFacts } from "./input_wait.ts";

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

/** The same facts as a kernel that hides /proc/<pid>/syscall (Yama ptrace_scope=1) would give. */
function withoutSyscall(facts: InputWaitFacts): InputWaitFacts {
  return {
    ...facts,
    processes: facts.processes.map((p) => ({ ...p, tasks: p.tasks.map((t) => ({ ...t, syscall: null })) })),
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
    if (verdict.waiting !== s.waiting) wrong.push(`${s.name}: ${verdict.waiting}, want ${s.waiting}`);
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
