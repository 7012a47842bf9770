import { assertEquals } from "../../tests/helpers/assert.ts";
import { isHarnessCandidate, type ProcFacts, selectHarnessProcess } from "./harness_process.ts";

function proc(pid: number, ppid: number, name: string, argv: string[], onPaneTty: boolean | null = true): ProcFacts {
  return { pid, ppid, name, start: `linux:${pid}00`, argv, onPaneTty };
}

Deno.test("a native CLI in the pane is its own harness process", () => {
  const procs = [proc(10, 1, "claude", ["/opt/claude/bin/claude.exe", "--session-id", "x"])];
  assertEquals(selectHarnessProcess(procs, 10, ["claude"]).process?.pid, 10);
});

Deno.test("a node CLI that is the whole harness (no body below) is the harness process", () => {
  const procs = [
    proc(10, 1, "node", ["node", "/fixtures/bin/claude"]),
    proc(11, 10, "bash", ["bash", "-c", "ls"], false),
  ];
  assertEquals(selectHarnessProcess(procs, 10, ["claude"]), { process: procs[0]!, ambiguous: false });
});

Deno.test("an npm shim and its native body are one launch: the body is the harness, also through a wrapper", () => {
  const direct = [
    proc(10, 1, "node", ["node", "/n/@openai/codex/bin/codex.js"]),
    proc(11, 10, "codex", ["/n/@openai/codex-linux-x64/vendor/codex/codex"]),
    proc(12, 11, "bash", ["bash", "-lc", "npm test"], false),
  ];
  assertEquals(selectHarnessProcess(direct, 10, ["codex"]).process?.pid, 11);
  const wrapped = [
    proc(10, 1, "sh", ["/bin/sh", "/usr/local/bin/codex"]),
    proc(11, 10, "env", ["env", "FOO=1", "node"]),
    proc(12, 11, "codex-x86_64-un", ["/v/codex-x86_64-unknown-linux-musl"]),
  ];
  assertEquals(selectHarnessProcess(wrapped, 10, ["codex"]).process?.pid, 12);
});

Deno.test("a CLI the agent runs as a tool (stdin not the pane's terminal) is not the body", () => {
  const procs = [
    proc(10, 1, "node", ["node", "/n/.bin/claude"]),
    proc(11, 10, "bash", ["bash", "-c", "claude -p hi"], false),
    proc(12, 11, "claude", ["claude", "-p", "hi"], false),
  ];
  assertEquals(selectHarnessProcess(procs, 10, ["claude"]).process?.pid, 10);
});

Deno.test("two unrelated candidates are not guessed into one: the harness is unknown", () => {
  const procs = [
    proc(10, 1, "node", ["node", "/n/codex.js"]),
    proc(11, 10, "codex", ["/v/codex"]),
    proc(12, 10, "codex", ["/v/codex"]),
  ];
  assertEquals(selectHarnessProcess(procs, 10, ["codex"]), { process: null, ambiguous: true });
  assertEquals(selectHarnessProcess(procs, 99, ["codex"]), { process: null, ambiguous: false });
});

Deno.test("candidate names: comm, argv[0], an interpreter's script, platform builds; not look-alikes", () => {
  assertEquals(
    isHarnessCandidate(proc(1, 0, "node", ["node", "--no-warnings", "/x/cursor-agent"]), ["cursor-agent"]),
    true,
  );
  assertEquals(isHarnessCandidate(proc(1, 0, "grok", ["/home/u/.grok/bin/grok"]), ["grok"]), true);
  assertEquals(isHarnessCandidate(proc(1, 0, "node", ["node", "/x/claudette.js"]), ["claude"]), false);
  assertEquals(isHarnessCandidate(proc(1, 0, "vim", ["vim", "codex.md"]), ["codex"]), false);
});
