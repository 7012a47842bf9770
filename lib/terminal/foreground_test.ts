/**
 * ownPromptWait(): the kernel's verdict decides; only when it cannot tell does the program's name, and then the
 * verdict is a guess — and no guess while the terminal is in line mode with echo (issue 29 items 3 and 4).
 */
import { assertEquals } from "../../tests/helpers/assert.ts";
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
