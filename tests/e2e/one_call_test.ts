/**
 * Issue 28 through the real MCP SDK client, presenting each client's clientInfo name: one call per command, waits
 * that stay under each client's own cut, nothing lost or returned twice when a call is cancelled or two calls wait on
 * one session, and pages that fit what each client hands its model.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };

interface Result {
  text?: string;
  is_complete?: boolean;
  via?: string;
  exit_status?: number;
  has_more?: boolean;
  next_cursor?: number;
  running_ms?: number;
  timeout_used?: number;
  timeout_capped?: string;
  next_call?: { tool: string; arguments: Record<string, unknown> };
}

/** The three client profiles, each made to cut a call at 8 s through that client's own setting. */
interface Profile {
  name: string;
  /** The JSON bytes of a result the client hands its model whole (harnesses/<vendor>/client/call_limits.ts). */
  resultBytes: number;
  /** Environment (and files) that set the client's cut to 8 s the way its user would. */
  cutAt8s(t: TestEnv): Promise<Record<string, string>>;
}

const PROFILES: Profile[] = [
  {
    name: "claude-code",
    resultBytes: 65_000,
    cutAt8s: () => Promise.resolve({ CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS: "8000" }),
  },
  {
    name: "codex-mcp-client",
    resultBytes: 32 * 1024,
    async cutAt8s(t) {
      const codexHome = `${t.root}/codex-home`;
      await Deno.mkdir(codexHome);
      await Deno.writeTextFile(
        `${codexHome}/config.toml`,
        '[mcp_servers.aiterm]\ncommand = "aiterm-mcp"\ntool_timeout_sec = 8\n',
      );
      return { CODEX_HOME: codexHome };
    },
  },
  { name: "aiterm-tests", resultBytes: 1024 * 1024, cutAt8s: () => Promise.resolve({ AITERM_CALL_LIMIT_S: "8" }) },
];

async function open(c: TestClient, cwd: string): Promise<string> {
  return (await c.ok<{ session_id: string }>("pty_open", { cwd })).session_id;
}

/** Calls a tool and returns its structuredContent with the wall time of the call and its JSON size. */
async function timed(c: TestClient, tool: string, args: Record<string, unknown>) {
  const started = performance.now();
  const out = await c.ok<Result>(tool, args);
  return { out, ms: performance.now() - started, bytes: new TextEncoder().encode(JSON.stringify(out)).length };
}

for (const p of PROFILES) {
  Deno.test(`${p.name}: a command is answered in one call; a REPL answers in under the send's wait`, opts, async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env, p.name);
    const id = await open(c, t.root);
    const r = await c.ok<Result>("pty_send", { session_id: id, text: "echo ONE-$((6*7)); false" });
    assertEquals([r.is_complete, r.via, r.exit_status], [true, "shell_integration", 1]);
    assertStringIncludes(r.text ?? "", "ONE-42");
    // The verdict comes before the output, which comes last (a client that cuts keeps the verdict).
    const keys = Object.keys(r);
    assert(keys.indexOf("is_complete") < keys.indexOf("mode"), keys.join(","));
    assertEquals(keys.at(-1), "text");
    // Nothing twice: the send consumed its output.
    assertEquals((await c.ok<Result>("pty_read", { session_id: id })).text, "");
    // An interactive program answers with its own verdict, not the send's whole wait.
    const py = await c.ok<Result>("pty_send", { session_id: id, text: "python3 -q" });
    assertEquals([py.is_complete, py.via], [false, "nested"]);
    assert(py.next_call === undefined, "a waiting program is no reason to wait again");
    const sum = await c.ok<Result>("pty_send", { session_id: id, text: "print(6*7)" });
    assertStringIncludes(sum.text ?? "", "42");
    // wait:false keeps the immediate receipt.
    const receipt = await c.ok<Result & { log_cursor: number }>("pty_send", {
      session_id: id,
      text: "exit()",
      wait: false,
    });
    assertEquals([receipt.via, receipt.text], [undefined, undefined]);
    assert(typeof receipt.log_cursor === "number");
  });

  Deno.test(
    `${p.name}: a command longer than the client's cut takes several calls, each under it, each line once`,
    opts,
    async () => {
      await using t = await makeTestEnv();
      Object.assign(t.env, await p.cutAt8s(t));
      await using c = await connect(t.env, p.name);
      const id = await open(c, t.root);
      const cmd = "for i in $(seq 1 14); do echo line-$i; sleep 1; done; echo all-done";
      const calls: { ms: number; out: Result }[] = [];
      let r = await timed(c, "pty_send", { session_id: id, text: cmd });
      calls.push(r);
      while (r.out.is_complete !== true) {
        const next = r.out.next_call;
        assert(next, `a still-running result names the next call: ${JSON.stringify(r.out)}`);
        assertEquals(next.tool, "pty_read");
        // What the client allows one call (8 s) less the margin: 5 s.
        assertEquals(next.arguments.timeout, 5);
        assert(typeof r.out.running_ms === "number" && r.out.running_ms > 0);
        r = await timed(c, next.tool, next.arguments);
        calls.push(r);
        assert(calls.length < 12, "too many calls");
      }
      for (const call of calls) assert(call.ms < 8_000, `a call took ${Math.round(call.ms)} ms, past the 8 s cut`);
      assert(calls.length >= 3, `${calls.length} calls for a 14 s command under a 5 s wait`);
      const text = calls.map((call) => call.out.text ?? "").join("\n");
      for (let i = 1; i <= 14; i++) {
        assertEquals(text.split("\n").filter((l) => l === `line-${i}`).length, 1, `line-${i} in ${text}`);
      }
      assertStringIncludes(text, "all-done");
      // An asked wait past the cut is lowered, and the result says why.
      await c.ok("pty_send", { session_id: id, text: "sleep 30", wait: false });
      const capped = await c.ok<Result>("pty_read", { session_id: id, wait: true, timeout: 600 });
      assertEquals([capped.is_complete, capped.timeout_used], [false, 5]);
      assertMatch(capped.timeout_capped ?? "", /^timeout 600 s lowered to 5 s: /);
      await c.ok("pty_key", { session_id: id, key: "C-c" });
    },
  );

  Deno.test(`${p.name}: pages of a large output fit what the client hands its model`, opts, async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env, p.name);
    const id = await open(c, t.root);
    const first = await timed(c, "pty_send", { session_id: id, text: "seq 1 60000; echo seq-done" });
    assert(first.bytes <= p.resultBytes, `send result ${first.bytes} bytes`);
    assertEquals(first.out.is_complete, true);
    // The exact lines, page by page from the log's start: every page within the client's size.
    const lines: string[] = [];
    let cursor = 0;
    let pages = 0;
    for (;;) {
      const page = await timed(c, "pty_read", { session_id: id, cursor, full: true });
      assert(page.bytes <= p.resultBytes, `page ${pages} is ${page.bytes} bytes, over ${p.resultBytes}`);
      lines.push(...(page.out.text ?? "").split("\n"));
      pages++;
      if (!page.out.has_more) break;
      cursor = page.out.next_cursor!;
    }
    const numbers = lines.filter((l) => /^\d+$/.test(l)).map(Number);
    assertEquals(numbers.length, 60000);
    assert(numbers.every((n, i) => n === i + 1), "lines out of order or missing");
    if (p.resultBytes < 400_000) assert(pages > 1, `${pages} page(s)`);
  });
}

Deno.test("a read cancelled mid-wait consumes nothing; so does a cancelled send's wait", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, t.root);
  await c.ok("pty_send", { session_id: id, text: "echo BEGIN; sleep 2; echo DONE", wait: false });
  const abort = new AbortController();
  const cut = c.client.callTool({ name: "pty_read", arguments: { session_id: id, wait: true } }, undefined, {
    signal: abort.signal,
  });
  await new Promise((resolve) => setTimeout(resolve, 700));
  abort.abort();
  await cut.then(() => assert(false, "the cancelled call answered"), () => {});
  const r = await c.ok<Result>("pty_read", { session_id: id, wait: true });
  assertEquals(r.is_complete, true);
  assertStringIncludes(r.text ?? "", "BEGIN");
  assertStringIncludes(r.text ?? "", "DONE");

  const abort2 = new AbortController();
  const cutSend = c.client.callTool(
    { name: "pty_send", arguments: { session_id: id, text: "echo S-ONE; sleep 2; echo S-TWO" } },
    undefined,
    { signal: abort2.signal },
  );
  await new Promise((resolve) => setTimeout(resolve, 700));
  abort2.abort();
  await cutSend.then(() => assert(false, "the cancelled send answered"), () => {});
  const r2 = await c.ok<Result>("pty_read", { session_id: id, wait: true });
  assertStringIncludes(r2.text ?? "", "S-ONE");
  assertStringIncludes(r2.text ?? "", "S-TWO");
});

Deno.test(
  "two waits on one session at once: every line exactly once; a plain read meanwhile is READ_IN_PROGRESS",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const id = await open(c, t.root);
    await c.ok("pty_send", {
      session_id: id,
      text: "for i in 1 2 3 4 5 6; do echo c-$i; sleep 0.4; done",
      wait: false,
    });
    const a = c.ok<Result>("pty_read", { session_id: id, wait: true });
    const b = c.ok<Result>("pty_read", { session_id: id, wait: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const busy = await c.err("pty_read", { session_id: id });
    assertEquals(busy.code, "READ_IN_PROGRESS");
    const [ra, rb] = await Promise.all([a, b]);
    const all = `${ra.text}\n${rb.text}`.split("\n");
    for (let i = 1; i <= 6; i++) assertEquals(all.filter((l) => l === `c-${i}`).length, 1, `c-${i}: ${all}`);
    assert(ra.is_complete && rb.is_complete);
  },
);

Deno.test(
  "a send whose wait fails after typing says it typed (the command killed aiterm's tmux server)",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const id = await open(c, t.root);
    const r = await c.ok<Result & { hint?: string; bytes: number; mode: string }>("pty_send", {
      session_id: id,
      text: `tmux -S ${t.socketPath} kill-server`,
    });
    assert(r.bytes > 0 && r.mode === "typed", JSON.stringify(r));
    assertMatch(r.hint ?? "", /^typed; the wait after it failed: TMUX_SERVER_GONE: /);
  },
);

Deno.test(
  "a send's wait sends progress notifications every second (Claude Code's idle limit needs them)",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env, "claude-code");
    const id = await open(c, t.root);
    const progress: number[] = [];
    const r = await c.client.callTool(
      { name: "pty_send", arguments: { session_id: id, text: "sleep 3.2; echo slept" } },
      undefined,
      { onprogress: (p) => void progress.push(p.progress) },
    );
    assertStringIncludes(String((r.structuredContent as Result).text), "slept");
    assert(progress.length >= 2, `${progress.length} progress notifications`);
  },
);
