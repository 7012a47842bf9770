/** The lean read (ADR 0039): what is left out, what stays, and older remote results still valid. */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { reduceOutput } from "../../terminal/reduce/mod.ts";
import type { ReadResult } from "../../terminal/mod.ts";
import { leanRead, ptyRead } from "./pty_read.ts";
import { ptySend } from "./pty_send.ts";

type AgentRead = Parameters<typeof leanRead>[0];

function read(over: Partial<AgentRead> = {}): AgentRead {
  const base: ReadResult = {
    session_id: "t1",
    state: "running",
    view: "log",
    text: "hello",
    meta: reduceOutput("$ echo hello\nhello\n", { sessionId: "t1", command: "echo hello" }).meta,
    reducer: "generic",
    cursor: 10,
    next_cursor: 40,
    end: 40,
    has_more: false,
    next_line: null,
    truncated: false,
    is_complete: true,
    via: "shell_integration",
    exit_status: 0,
    waited_ms: 12,
    timeout_used: 110,
    hint: null,
    prompt: null,
    warnings: [],
    running_ms: null,
  };
  return { ...base, turn_id: null, answer_empty: null, harness: null, next_call: null, timeout_capped: null, ...over };
}

Deno.test("leanRead() keeps one field per fact: defaults, repeats and nulls are left out", () => {
  assertEquals(Object.keys(leanRead(read())), [
    "session_id",
    "text",
    "next_cursor",
    "is_complete",
    "via",
    "exit_status",
    "waited_ms",
  ]);
});

Deno.test("leanRead() keeps a field that says something: ended, more to come, a gap, a cap, a reducer", () => {
  const folded = reduceOutput(Array.from({ length: 400 }, (_, i) => `line ${i}`).join("\n"), { sessionId: "t1" });
  assert(!folded.meta.endsWith("; 0 lines hidden]"), folded.meta);
  const r = leanRead(read({
    state: "ended",
    has_more: true,
    end: 900,
    truncated: true,
    cursor: 500,
    timeout_capped: "timeout 999 s lowered to 110 s: claude-code",
    reducer: "pytest",
    meta: folded.meta,
    warnings: ["LOG_WRITER_RESTARTED: x"],
  }));
  assertEquals(
    [r.state, r.has_more, r.end, r.truncated, r.cursor, r.timeout_used, r.reducer, r.meta, r.warnings],
    ["ended", true, 900, true, 500, 110, "pytest", folded.meta, ["LOG_WRITER_RESTARTED: x"]],
  );
  // A screen's meta (rows shown, blank rows left out) and its view stay; an agent turn's cursor names the turn.
  const screen = leanRead(read({ view: "screen", meta: "[aiterm t1: screen 50 rows as 3 lines]", cursor: null }));
  assertEquals([screen.view, screen.meta], ["screen", "[aiterm t1: screen 50 rows as 3 lines]"]);
  const turn = leanRead(read({ view: "agent_transcript", cursor: 0, meta: null, reducer: null }));
  assertEquals([turn.view, turn.cursor], ["agent_transcript", 0]);
});

Deno.test("an older remote aiterm's read and waited send (every field, defaults included) still validate", () => {
  const old = { ...read(), text: "x", meta: "[aiterm t1: 1 lines]", hint: null, prompt: null, next_line: null };
  const parsed = ptyRead.output.parse(old);
  assertEquals([parsed.state, parsed.view, parsed.has_more], ["running", "log", false]);
  const send = ptySend.output.parse({
    session_id: "t1",
    is_complete: true,
    via: "exit",
    mode: "typed",
    bytes: 3,
    enter: true,
    removed_controls: 0,
    log_cursor: 5,
    marked: false,
    recovered_stale_lock: false,
    text: "x",
  });
  assertEquals([send.enter, send.recovered_stale_lock], [true, false]);
  // And the lean ones: nothing at its default is added back by parsing.
  const lean = ptySend.output.parse({ session_id: "t1", mode: "typed", bytes: 3, log_cursor: 5, text: "x" });
  assertEquals(Object.keys(lean).sort(), ["bytes", "log_cursor", "mode", "session_id", "text"]);
});
