/** pty_read through MCP on real tmux: cursors, views, and every completion verdict. */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };

interface Read {
  text: string;
  is_complete: boolean | null;
  via: string | null;
  exit_status: number | null;
  timeout_used?: number;
  cursor?: number;
  next_cursor: number;
  /** Only when more follows (has_more); else it is next_cursor. */
  end?: number;
  has_more?: boolean;
  truncated?: boolean;
  /** Only "ended" (absent: running). */
  state?: string;
  hint: string | null;
  reducer: string | null;
}

async function open(c: TestClient, args: Record<string, unknown>): Promise<string> {
  return (await c.ok<{ session_id: string }>("pty_open", args)).session_id;
}

Deno.test(
  "wait:true completes from the shell's own mark with the exit status; reads are incremental",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const id = await open(c, { cwd: t.root });
    await c.ok("pty_read", { session_id: id });
    await c.ok("pty_send", { wait: false, session_id: id, text: "sleep 0.3; echo first-output" });
    const r1 = await c.ok<Read>("pty_read", { session_id: id, wait: true });
    assertEquals([r1.is_complete, r1.via, r1.exit_status], [true, "shell_integration", 0]);
    assertStringIncludes(r1.text, "first-output");
    assert(!r1.text.includes("\x1b"), "control sequences leaked");
    assert(!r1.text.includes("133;"), "shell-integration marks leaked");
    const r2 = await c.ok<Read>("pty_read", { session_id: id });
    assert(!r2.text.includes("first-output"), "a second read repeated old output");
    await c.ok("pty_send", { wait: false, session_id: id, text: "(exit 3)" });
    const r3 = await c.ok<Read>("pty_read", { session_id: id, wait: true });
    assertEquals([r3.via, r3.exit_status], ["shell_integration", 3]);
  },
);

Deno.test(
  "mark:true completes on its own sentinel, also in a nested shell, never on the echoed line",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const id = await open(c, { cwd: t.root, shell: "sh" });
    const s = await c.ok<{ marked: boolean }>("pty_send", {
      wait: false,
      session_id: id,
      text: "sleep 0.5; echo after-sleep; false",
      mark: true,
    });
    assert(s.marked);
    const r = await c.ok<Read>("pty_read", { session_id: id, wait: true });
    assertEquals([r.is_complete, r.via, r.exit_status], [true, "sentinel", 1]);
    assertStringIncludes(r.text, "after-sleep");
    assert(!/__AITERM_[0-9a-f]+_\d+__/.test(r.text), "the sentinel line was not hidden");
    // A nested POSIX shell (the same trick works inside ssh or docker exec).
    const bash = await open(c, { cwd: t.root });
    await c.ok("pty_send", { wait: false, session_id: bash, text: "sh" });
    await c.ok("pty_send", { wait: false, session_id: bash, text: "echo nested-$((6*7))", mark: "posix" });
    const n = await c.ok<Read>("pty_read", { session_id: bash, wait: true });
    assertEquals([n.via, n.exit_status], ["sentinel", 0]);
    assertStringIncludes(n.text, "nested-42");
  },
);

Deno.test("until and until_regex match new output only; a bad regex is an error", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await c.ok("pty_send", { wait: false, session_id: id, text: "echo READY-1" });
  await c.ok("pty_read", { session_id: id, wait: true });
  await c.ok("pty_send", { wait: false, session_id: id, text: "sleep 0.4; echo READY-2; sleep 30" });
  const r = await c.ok<Read>("pty_read", { session_id: id, until: "READY-\\d", until_regex: true, timeout: 20 });
  assertEquals([r.is_complete, r.via], [true, "until"]);
  assertStringIncludes(r.text, "READY-2");
  await c.ok("pty_key", { session_id: id, key: "C-c" });
  const bad = await c.err("pty_read", { session_id: id, until: "([", until_regex: true });
  assertEquals(bad.code, "INVALID_ARGUMENT");
});

Deno.test(
  "quiescent for a shell without integration, nested for a REPL, timeout capped at the client's allowance",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const sh = await open(c, { cwd: t.root, shell: "sh" });
    await c.ok("pty_send", { wait: false, session_id: sh, text: "echo quiet-one" });
    const q = await c.ok<Read>("pty_read", { session_id: sh, wait: true });
    assertEquals([q.is_complete, q.via], [true, "quiescent"]);
    assertStringIncludes(q.text, "quiet-one");
    const id = await open(c, { cwd: t.root });
    await c.ok("pty_send", { wait: false, session_id: id, text: "python3 -q" });
    const n = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: 20 });
    assertEquals([n.is_complete, n.via], [false, "nested"]);
    assertMatch(n.hint ?? "", /until|mark/);
    await c.ok("pty_send", { wait: false, session_id: id, text: "exit()" });
    await c.ok("pty_read", { session_id: id, wait: true });
    await c.ok("pty_send", { wait: false, session_id: id, text: "sleep 5" });
    const to = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: 0.4 });
    // The timeout it was given is not repeated back (timeout_used only says a lowered one).
    assertEquals([to.is_complete, to.via, to.timeout_used], [false, "timeout", undefined]);
    await c.ok("pty_key", { session_id: id, key: "C-c" });
    await c.ok("pty_send", { wait: false, session_id: id, text: "echo x" });
    // Any MCP SDK client cuts a call at 60 s by default: a wait stops safely under that (55 s), and says so.
    const capped = await c.ok<Read & { timeout_capped?: string }>("pty_read", {
      session_id: id,
      wait: true,
      timeout: 9999,
    });
    assertEquals([capped.is_complete, capped.timeout_used], [true, 55]);
    assertMatch(capped.timeout_capped ?? "", /^timeout 9999 s lowered to 55 s: .*60 s/);
  },
);

Deno.test("exit is detected; an ended session's log stays readable until pty_close", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await c.ok("pty_read", { session_id: id });
  await c.ok("pty_send", { wait: false, session_id: id, text: "echo last-words; exit" });
  const r = await c.ok<Read>("pty_read", { session_id: id, wait: true });
  assertEquals([r.is_complete, r.via, r.state], [true, "exit", "ended"]);
  const again = await c.ok<Read>("pty_read", { session_id: id, cursor: 0 });
  assertStringIncludes(again.text, "last-words");
  await c.ok("pty_close", { session_id: id });
  assertEquals((await c.err("pty_read", { session_id: id })).code, "SESSION_NOT_FOUND");
});

Deno.test("explicit cursors page without moving the default cursor; bad ranges are refused", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await c.ok("pty_read", { session_id: id });
  const sent = await c.ok<{ log_cursor: number }>("pty_send", { wait: false, session_id: id, text: "seq 1 100" });
  const first = await c.ok<Read>("pty_read", { session_id: id, wait: true, cursor: sent.log_cursor });
  const second = await c.ok<Read>("pty_read", { session_id: id, cursor: sent.log_cursor });
  assertEquals(first.next_cursor, second.next_cursor);
  const mine = await c.ok<Read>("pty_read", { session_id: id, raw: true });
  assertStringIncludes(mine.text, "\n100");
  assertEquals([mine.has_more, mine.end], [undefined, undefined], "end is left out when it is next_cursor");
  const beyond = await c.ok<Read>("pty_read", { session_id: id, cursor: mine.next_cursor + 1000 });
  assertEquals([beyond.text.includes("seq"), beyond.next_cursor], [false, mine.next_cursor]);
  const lines = await c.ok<Read>("pty_read", { session_id: id, line_range: "1:" });
  const all = lines.text.split("\n");
  const at = all.findIndex((l) => l === "50");
  assert(at >= 0, "line 50 not found");
  const exact = await c.ok<Read>("pty_read", { session_id: id, line_range: `${at + 1}:${at + 3}` });
  assertEquals(exact.text, "50\n51\n52");
  assertEquals((await c.err("pty_read", { session_id: id, line_range: "9:3" })).code, "INVALID_ARGUMENT");
  assertEquals((await c.err("pty_read", { session_id: id, line_range: "x" })).code, "INVALID_ARGUMENT");
  assertEquals((await c.err("pty_read", { session_id: "nope" })).code, "SESSION_NOT_FOUND");
  const screen = await c.ok<{ text: string; view: string }>("pty_read", { session_id: id, screen: true });
  assertEquals(screen.view, "screen");
  assertStringIncludes(screen.text, "100");
});

Deno.test("the log rotates under a size cap; a read from a rotated cursor says truncated", opts, async () => {
  await using t = await makeTestEnv({ AITERM_LOG_SEGMENT_BYTES: "16384", AITERM_LOG_KEEP_SEGMENTS: "3" });
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await c.ok("pty_send", { wait: false, session_id: id, text: "seq 1 40000" });
  const done = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: 60 });
  assert(done.is_complete);
  const r = await c.ok<Read>("pty_read", { session_id: id, cursor: 0, raw: true });
  assert(r.truncated, "expected truncated");
  assert((r.cursor ?? 0) > 0, "expected the read to start after the rotated part");
  assertStringIncludes(r.text, "40000");
  let segments = 0;
  for await (const e of Deno.readDir(`${t.stateDir}/sessions/${id}/log`)) if (e.name.startsWith("seg.")) segments++;
  assert(segments <= 4, `expected at most 4 segments on disk, found ${segments}`);
});

Deno.test("a long wait sends MCP progress notifications", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await c.ok("pty_send", { wait: false, session_id: id, text: "sleep 2.5" });
  let notes = 0;
  const r = await c.client.callTool({ name: "pty_read", arguments: { session_id: id, wait: true } }, undefined, {
    onprogress: () => {
      notes++;
    },
    timeout: 30_000,
  });
  assert(!r.isError);
  assert(notes >= 1, "no progress notification");
});

Deno.test("long output folds to head and tail with a marker whose re-read shows the hidden lines", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await c.ok("pty_read", { session_id: id });
  await c.ok("pty_send", { wait: false, session_id: id, text: "for i in $(seq 1 300); do echo row-$i; done" });
  const r = await c.ok<Read>("pty_read", { session_id: id, wait: true });
  assertStringIncludes(r.text, "row-1\n");
  assertStringIncludes(r.text, "row-300");
  assert(!r.text.includes("row-150\n"), "the middle was not folded");
  const m = r.text.match(/pty_read cursor=(\d+) full=true shows them/);
  assert(m, `no actionable fold marker in: ${r.text.slice(0, 400)}`);
  const full = await c.ok<Read>("pty_read", { session_id: id, cursor: Number(m[1]), full: true });
  assertStringIncludes(full.text, "row-150\n");
});

Deno.test("a command printing 100 MB leaves reads and the log bounded", opts, async () => {
  await using t = await makeTestEnv({ AITERM_LOG_SEGMENT_BYTES: String(1 << 20), AITERM_LOG_KEEP_SEGMENTS: "4" });
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await c.ok("pty_read", { session_id: id });
  await c.ok("pty_send", {
    wait: false,
    session_id: id,
    text: "seq 1 13000000 | head -c 100000000; echo; echo big-done",
  });
  const done = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: 120, lines: 5 });
  assertEquals([done.is_complete, done.via], [true, "shell_integration"]);
  const r = await c.ok<Read>("pty_read", { session_id: id, cursor: 0, raw: true });
  assert(r.truncated, "expected the start to have rotated away");
  assert(r.text.length <= 4 * 1024 * 1024, `a read returned ${r.text.length} characters`);
  let bytes = 0;
  for await (const e of Deno.readDir(`${t.stateDir}/sessions/${id}/log`)) {
    bytes += (await Deno.stat(`${t.stateDir}/sessions/${id}/log/${e.name}`)).size;
  }
  assert(bytes <= 5 * (1 << 20), `log holds ${bytes} bytes`);
  const tail = await c.ok<Read>("pty_read", {
    session_id: id,
    cursor: Math.max(0, (r.end ?? r.next_cursor) - 4096),
    raw: true,
  });
  assertStringIncludes(tail.text, "big-done");
});

Deno.test("a multi-line script's wrapper echo is shown as a short marker, its output in full", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await c.ok("pty_read", { session_id: id });
  await c.ok("pty_send", { wait: false, session_id: id, text: "x='a b'\necho \"got $x\"\necho done-2" });
  const r = await c.ok<Read>("pty_read", { session_id: id, wait: true });
  assertStringIncludes(r.text, "got a b");
  assertStringIncludes(r.text, "done-2");
  assert(!r.text.includes("printf '%s"), `the wrapper leaked: ${r.text}`);
  const raw = await c.ok<Read>("pty_read", { session_id: id, cursor: 0, raw: true });
  assertStringIncludes(raw.text, "printf '%s");
});
