import { assertEquals } from "../tests/helpers/assert.ts";
import { classifyInputPrompt, lastIntegrationMark, type PromptFacts } from "./input_prompt.ts";
import { parseSttyModes } from "./terminal_modes.ts";

const RAW = { canonical: false, echo: false };
const LINE = { canonical: true, echo: true };
const SECRET = { canonical: true, echo: false };
const base: PromptFacts = { waiting: true, atShell: true, name: "bash", integrated: true, lastMark: null, modes: RAW };

Deno.test("classifyInputPrompt: the measured cases", () => {
  const cases: [string, Partial<PromptFacts>, string | null][] = [
    ["fresh prompt (mark after the send)", { lastMark: "end" }, null],
    ["PS2 after the send, line editor raw", { lastMark: "continuation" }, "continuation"],
    ["PS2 mark, modes unknown", { lastMark: "continuation", modes: null }, "continuation"],
    ["a loop typed at PS2 now runs read (canonical)", { lastMark: "continuation", modes: LINE }, "read"],
    ["read X in the session shell", { modes: LINE }, "read"],
    ["read -s in the session shell", { modes: SECRET }, "password"],
    ["typed without Enter (raw, no mark)", {}, null],
    ["getpass in a child", { atShell: false, name: "python3", modes: SECRET }, "password"],
    ["a bash script's read", { atShell: false, name: "bash", modes: LINE }, "read"],
    ["nested interactive bash (raw)", { atShell: false, name: "bash" }, null],
    ["cat reads lines: a program of its own", { atShell: false, name: "cat", modes: LINE }, null],
    ["nested dash prompt: cannot tell", { atShell: false, name: "dash", modes: LINE }, null],
    ["dash session prompt (no integration)", { integrated: false, name: "dash", modes: LINE }, null],
    ["dash session, echo off", { integrated: false, name: "dash", modes: SECRET }, "password"],
    ["not waiting (running)", { waiting: false, modes: SECRET }, null],
    ["kernel cannot tell", { waiting: null, lastMark: "continuation" }, null],
  ];
  for (const [label, facts, want] of cases) {
    assertEquals(classifyInputPrompt({ ...base, ...facts }), want, label);
  }
});

Deno.test("lastIntegrationMark: the later of a command end and a continuation prompt", () => {
  assertEquals(lastIntegrationMark("plain"), null);
  assertEquals(lastIntegrationMark("\x1b]133;D;0\x07\x1b]133;A\x07$ "), "end");
  assertEquals(lastIntegrationMark('echo "x\r\n\x1b]133;A;k=s\x07> '), "continuation");
  assertEquals(lastIntegrationMark('\x1b]133;A;k=s\x07> "\r\n\x1b]133;D;0\x07\x1b]133;A\x07'), "end");
  // The plain prompt mark is not a continuation mark.
  assertEquals(lastIntegrationMark("\x1b]133;A\x07"), null);
});

Deno.test("parseSttyModes: GNU stty -a output", () => {
  const gnu = "speed 38400 baud; rows 30; columns 100; line = 0;\n" +
    "isig -icanon iexten -echo echoe echok -echonl -noflsh\n";
  assertEquals(parseSttyModes(gnu), { canonical: false, echo: false });
  assertEquals(parseSttyModes("isig icanon iexten echo echoe"), { canonical: true, echo: true });
  assertEquals(parseSttyModes("lflags: icanon isig iexten -echo echoe"), { canonical: true, echo: false });
  assertEquals(parseSttyModes("stty: /dev/pts/9: No such file"), null);
});
