/**
 * ownPromptWait(): the kernel's verdict decides; only when it cannot tell does the program's name, and then the
 * verdict is a guess — and no guess while the terminal is in line mode with echo (issue 29 items 3 and 4).
 */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { classifyInputPrompt, classifyInputWait, type InputWaitFacts, type TerminalModes } from "../../platform/mod.ts";
import { ownPromptWait } from "./foreground.ts";

const cooked = { canonical: true, echo: true };
const raw = { canonical: false, echo: false };

Deno.test("the kernel's answer is not a guess, whatever the name", () => {
  assertEquals(ownPromptWait({ name: "python3", readingInput: false }), { waiting: false, evidence: "kernel" });
  assertEquals(ownPromptWait({ name: "myprog", readingInput: true }), { waiting: true, evidence: "kernel" });
  assertEquals(ownPromptWait({ name: "ssh", readingInput: false, modes: raw }), { waiting: false, evidence: "kernel" });
});

Deno.test("cannot tell: a prompt host is guessed to wait, and the verdict says it is a guess", () => {
  // ssh logged in (reads the terminal and its socket), its session holding the terminal raw.
  assertEquals(ownPromptWait({ name: "ssh", readingInput: null, modes: raw }), { waiting: true, evidence: "guess" });
  // No modes either (stty failed): still only a guess.
  assertEquals(ownPromptWait({ name: "ssh", readingInput: null, modes: null }), { waiting: true, evidence: "guess" });
  assertEquals(ownPromptWait({ name: "myserver", readingInput: null, modes: raw }), {
    waiting: false,
    evidence: "guess",
  });
});

Deno.test("cannot tell, terminal in line mode with echo: nothing took the keyboard, so no guess", () => {
  // ssh while sshd delays its answer to a wrong password (wchan only, or macOS); a python server on macOS.
  assertEquals(ownPromptWait({ name: "ssh", readingInput: null, modes: cooked }), {
    waiting: false,
    evidence: "kernel",
  });
  assertEquals(ownPromptWait({ name: "python3", readingInput: null, modes: cooked }), {
    waiting: false,
    evidence: "kernel",
  });
});

interface SshFixture {
  waiting: boolean | null;
  modes: TerminalModes;
  facts: InputWaitFacts;
}

async function sshFixture(name: string): Promise<SshFixture> {
  return JSON.parse(await Deno.readTextFile(new URL(`../../tests/fixtures/input_wait/${name}.json`, import.meta.url)));
}

/** As a kernel that hides the syscall file and the process's memory (Yama ptrace_scope=1) would give them. */
function wchanOnly(facts: InputWaitFacts): InputWaitFacts {
  return {
    ...facts,
    processes: facts.processes.map((p) => ({
      ...p,
      tasks: p.tasks.map(({ readFds: _, ...t }) => ({ ...t, syscall: null })),
    })),
  };
}

/** What a wait concludes about the recorded ssh: the prompt kind, else whether it waits at its own prompt. */
function conclude(facts: InputWaitFacts, modes: TerminalModes): string {
  const waiting = classifyInputWait(facts).waiting;
  const prompt = classifyInputPrompt({ waiting, atShell: false, name: "ssh", integrated: true, lastMark: null, modes });
  if (prompt) return `input_prompt:${prompt}`;
  const own = ownPromptWait({ name: "ssh", readingInput: waiting, modes });
  return own.waiting ? `nested (${own.evidence})` : "still working";
}

Deno.test("recorded ssh (issue 29 item 3): working after a wrong password, then at the next password prompt", async () => {
  const working = await sshFixture("ssh_auth_wait");
  const prompt = await sshFixture("ssh_password_prompt");
  // With the syscall and the poll set: exact.
  assertEquals(conclude(working.facts, working.modes), "still working");
  assertEquals(conclude(prompt.facts, prompt.modes), "input_prompt:password");
  // From wchan alone the kernel cannot tell either moment; the terminal's modes still keep them apart.
  assertEquals(classifyInputWait(wchanOnly(working.facts)).waiting, null);
  assertEquals(conclude(wchanOnly(working.facts), working.modes), "still working");
  assertEquals(conclude(wchanOnly(prompt.facts), prompt.modes), "input_prompt:password");
});
