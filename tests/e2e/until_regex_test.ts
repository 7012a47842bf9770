/**
 * Issue 14 item 8: `until_regex` can never freeze the server. Patterns that backtrack exponentially in a
 * backtracking engine run in linear time; other calls on the same server answer while such a read waits; a matcher
 * that cannot keep up with the output says REGEX_TIMEOUT instead of a silent timeout. Real tmux, real MCP client.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import type { CallToolResult } from "../../lib/mcp/sdk.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };

interface Read {
  text: string;
  is_complete: boolean | null;
  via: string | null;
}

Deno.test(
  "an exponentially backtracking until_regex leaves other calls answering and the read honest",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const id = (await c.ok<{ session_id: string }>("pty_open", { cwd: t.root })).session_id;
    await c.ok("pty_read", { session_id: id, wait: true });
    // One output line of 40 "a"s and a "!": for (a+)+$ a backtracking engine tries ~2^40 splits at each start.
    await c.ok("pty_send", {
      wait: false,
      session_id: id,
      text: `A=$(printf 'a%.0s' $(seq 40)); echo "$A!"; sleep 60`,
    });
    const events: string[] = [];
    let waiting!: () => void;
    const readIsWaiting = new Promise<void>((resolve) => waiting = resolve);
    const read = c.client.callTool(
      { name: "pty_read", arguments: { session_id: id, until: "(a+)+$", until_regex: true, timeout: 4 } },
      undefined,
      {
        timeout: 120_000,
        onprogress: () => {
          events.push("progress");
          waiting();
        },
      },
    ).then((r) => {
      events.push("read");
      return r as CallToolResult;
    });
    // The read has been waiting (and matching) for a second; a frozen server never gets that far.
    const first = await Promise.race([
      readIsWaiting.then(() => "waiting"),
      read.then(() => "read returned first", (e) => `read failed first: ${e}`),
    ]);
    assertEquals(first, "waiting");
    const list = await c.client.callTool({ name: "pty_list", arguments: {} }, undefined, { timeout: 60_000 });
    events.push("list");
    assert(!list.isError, JSON.stringify(list.content));
    const r = await read;
    assert(!r.isError, JSON.stringify(r.content));
    assertEquals(events.filter((e) => e !== "progress"), ["list", "read"], "pty_list answered while the read waited");
    const verdict = r.structuredContent as unknown as Read;
    assertEquals([verdict.is_complete, verdict.via], [false, "timeout"], "no line ends in a's: no match");
    assertStringIncludes(verdict.text, "a".repeat(40) + "!");

    // The same pattern completes as soon as a line does end in a's, and a match spanning two writes is found.
    await c.ok("pty_key", { session_id: id, key: "C-c" });
    await c.ok("pty_read", { session_id: id, wait: true });
    await c.ok("pty_send", {
      wait: false,
      session_id: id,
      text: `printf 'aaaa'; sleep 0.6; printf 'aaab\\n'; sleep 60`,
    });
    const hit = await c.ok<Read>("pty_read", { session_id: id, until: "^(a+)+b$", until_regex: true, timeout: 30 });
    assertEquals([hit.is_complete, hit.via], [true, "until"]);
    assertStringIncludes(hit.text, "aaaaaaab");
    await c.ok("pty_key", { session_id: id, key: "C-c" });
  },
);

Deno.test("until_regex refuses backtracking-only features and oversized patterns before waiting", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = (await c.ok<{ session_id: string }>("pty_open", { cwd: t.root })).session_id;
  const refused: [string, string][] = [["(a)\\1", "backreference"], ["a(?=b)", "lookahead"], ["(?<!a)b", "lookbehind"]];
  for (const [until, word] of refused) {
    const e = await c.err("pty_read", { session_id: id, until, until_regex: true, timeout: 30 });
    assertEquals(e.code, "INVALID_ARGUMENT", until);
    assertStringIncludes(e.message, word);
  }
  const states = await c.err("pty_read", { session_id: id, until: "(?:x{200}){200}", until_regex: true });
  assertEquals(states.code, "INVALID_ARGUMENT");
  assertStringIncludes(states.message, "states");
  const long = await c.err("pty_read", { session_id: id, until: "x".repeat(1025), timeout: 30 });
  assertEquals(long.code, "INVALID_ARGUMENT");
  // Nothing was consumed: the default cursor did not move, the session still reads.
  await c.ok("pty_send", { wait: false, session_id: id, text: "echo still-fine" });
  const r = await c.ok<Read>("pty_read", { session_id: id, until: "still-fine", timeout: 30 });
  assertEquals(r.via, "until");
});

Deno.test(
  "a matcher that cannot keep up with the output by the timeout is REGEX_TIMEOUT, not 'not found'",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const id = (await c.ok<{ session_id: string }>("pty_open", { cwd: t.root })).session_id;
    await c.ok("pty_read", { session_id: id, wait: true });
    // 10 MB of lines, all in the log before the regex read starts (it reads from the send's cursor).
    const sent = await c.ok<{ log_cursor: number }>("pty_send", {
      wait: false,
      session_id: id,
      text: "yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | head -n 200000; echo all-written",
    });
    const done = await c.ok<Read>("pty_read", { session_id: id, until: "all-written", timeout: 120 });
    assertEquals(done.via, "until");
    // [^!]{1,2000}! keeps ~2000 states alive on every character: linear, but far slower than the output is long.
    const pattern = "[^!]{1,2000}!";
    const e = await c.err("pty_read", {
      session_id: id,
      cursor: sent.log_cursor,
      until: pattern,
      until_regex: true,
      timeout: 1,
    });
    assertEquals(e.code, "REGEX_TIMEOUT");
    assertStringIncludes(e.message, `(${pattern.length} characters)`);
    assert(!e.text.includes(pattern) && !e.text.includes("aaaa"), "neither the pattern nor the output is echoed");
    // The server is still serving.
    assert(!(await c.call("pty_list", {})).isError);
  },
);
