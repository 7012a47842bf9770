/**
 * Parent delivery end to end: the real MCP SDK client plays a Claude Code or Cursor parent (the same
 * clientInfo and `_meta` those clients send), aiterm's hooks run as separate processes exactly as the
 * clients start them (JSON on stdin, exit-code semantics), and the child is the fake claude CLI in
 * real tmux. The answer must reach the parent by itself, once, and every failure must end in a
 * named state with the body kept.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, type TestEnv } from "../helpers/env.ts";
import { callAs, deliveryRecord, fakeClaudeEnv, startAiterm } from "../helpers/delivery.ts";
import { connect, registeredServerCommand } from "../helpers/mcp.ts";
import { installClaudeParentHooks, installCursorParentHooks } from "../../harnesses/clients/mod.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const hasFakes = await Deno.stat(`${FIXTURE_BIN}claude`).then(() => true, () => false);
const opts = { ignore: !hasTmux || !hasFakes, sanitizeOps: false, sanitizeResources: false };

interface Delivery {
  delivery_id: string;
  parent: string;
  state: string;
  child_outcome: string | null;
  child_turn_id: string | null;
  queued_submission_id: string | null;
  error_code: string | null;
}
interface Receipt {
  session_id: string;
  mode?: string;
  event_cursor: number | null;
  wait_process: { executable: string; args: string[] } | null;
  wait_command?: string | null;
  parent_delivery: Delivery | null;
}

/** What `aiterm-mcp setup` installs for a Claude Code user. */
async function claudeHooks(t: TestEnv): Promise<void> {
  await installClaudeParentHooks(registeredServerCommand(), { env: t.env, home: t.home, dryRun: false });
}

const hook = (t: TestEnv, name: string, input: unknown) => startAiterm(t, ["hook", name], input).done;

/** Claude's PreToolUse for one tool call. */
async function pre(t: TestEnv, toolUseId: string, sessionId: string, extra: Record<string, unknown> = {}) {
  const r = await hook(t, "claude-pre-tool-use", {
    session_id: sessionId,
    hook_event_name: "PreToolUse",
    tool_name: "mcp__aiterm__pty_send",
    tool_input: {},
    tool_use_id: toolUseId,
    ...extra,
  });
  assertEquals(r.code, 0, r.stderr);
}

const postInput = (toolUseId: string, sessionId: string) => ({
  session_id: sessionId,
  hook_event_name: "PostToolUse",
  tool_name: "mcp__aiterm__pty_send",
  tool_use_id: toolUseId,
  tool_response: [{ type: "text", text: "dispatched" }],
});

Deno.test(
  "claude-code parent: the answer arrives through PostToolUse (stderr, exit 2) exactly once",
  opts,
  async () => {
    await using t = await fakeClaudeEnv();
    await claudeHooks(t);
    await using c = await connect(t.env, "claude-code");
    // Without PreToolUse for this call, nothing reaches a child: no session is even started.
    const refused = await callAs<Receipt>(c, "agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "never sent",
    }, { "claudecode/toolUseId": "toolu_missing" });
    assertEquals(refused.code, "CLAUDE_PARENT_HOOK_UNAVAILABLE");
    assertEquals((await c.ok<{ sessions: unknown[] }>("pty_list", {})).sessions.length, 0);

    await pre(t, "toolu_L1", "conv-1");
    const l = await callAs<Receipt>(c, "agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "first task",
    }, { "claudecode/toolUseId": "toolu_L1" });
    assert(l.ok, l.text);
    const d = l.ok.parent_delivery;
    assert(d, "parent_delivery");
    assertEquals([d.parent, l.ok.wait_process, l.ok.wait_command], ["claude", null, null]);
    assertMatch(d.state, /^(waiting|ready)$/);
    assertStringIncludes(l.text, "do not poll");
    const post = await hook(t, "claude-post-tool-use", postInput("toolu_L1", "conv-1"));
    assertEquals(post.code, 2, post.stderr);
    assertStringIncludes(post.stderr, "ANSWER(first task)");
    assertStringIncludes(post.stderr, `child agent session "${l.ok.session_id}" (claude-code), turn 0: done`);
    assertEquals(post.stdout, "");
    const rec = await deliveryRecord(t, "claude-parent-deliveries", d.delivery_id);
    assertEquals([rec.state, rec.child_outcome, rec.received_by], ["submitted", "done", "claude_post_tool_use"]);
    // The same hook again (a retry, a duplicate): nothing is delivered twice.
    const again = await hook(t, "claude-post-tool-use", postInput("toolu_L1", "conv-1"));
    assertEquals([again.code, again.stderr], [0, ""]);

    // A sub-agent conversation is refused before anything is typed.
    await pre(t, "toolu_S1", "conv-1", { agent_id: "agent-7" });
    const sub = await callAs<Receipt>(c, "pty_send", {
      wait: false,
      session_id: l.ok.session_id,
      text: "from a sub-agent",
    }, {
      "claudecode/toolUseId": "toolu_S1",
    });
    assertEquals(sub.code, "CLAUDE_PARENT_AGENT_UNSUPPORTED");

    // A second request: a new delivery for the new turn; a plain (other) client gets wait_process instead.
    await pre(t, "toolu_L2", "conv-1");
    const s2 = await callAs<Receipt>(c, "pty_send", { wait: false, session_id: l.ok.session_id, text: "second task" }, {
      "claudecode/toolUseId": "toolu_L2",
    });
    assert(s2.ok?.parent_delivery, s2.text);
    assertEquals(s2.ok.event_cursor, 1);
    const post2 = await hook(t, "claude-post-tool-use", postInput("toolu_L2", "conv-1"));
    assertEquals(post2.code, 2);
    assertStringIncludes(post2.stderr, "ANSWER(second task");
    assert(!post2.stderr.includes("sub-agent"), "the body is turn 1's, not turn 0's");
    await using other = await connect(t.env, "some-other-client");
    const s3 = await other.ok<Receipt>("pty_send", { wait: false, session_id: l.ok.session_id, text: "third task" });
    assertEquals(s3.parent_delivery, null);
    assert(s3.wait_process, "other parents get wait_process");
  },
);

Deno.test(
  "claude-code parent: server killed between dispatch and completion; the next server delivers",
  opts,
  async () => {
    await using t = await fakeClaudeEnv();
    await claudeHooks(t);
    const first = await connect(t.env, "claude-code");
    await pre(t, "toolu_R1", "conv-r");
    const l = await callAs<Receipt>(first, "agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "SLOW restart task",
    }, { "claudecode/toolUseId": "toolu_R1" });
    assert(l.ok?.parent_delivery, l.text);
    const id = l.ok.parent_delivery.delivery_id;
    const post = startAiterm(t, ["hook", "claude-post-tool-use"], postInput("toolu_R1", "conv-r"));
    try {
      Deno.kill(first.pid, "SIGKILL");
      await first.close();
      assertEquals((await deliveryRecord(t, "claude-parent-deliveries", id)).state, "waiting");
      await using second = await connect(t.env, "claude-code");
      const r = await post.done;
      assertEquals(r.code, 2, r.stderr);
      assertStringIncludes(r.stderr, `child agent session "${l.ok.session_id}" (claude-code), turn 0: done`);
      assertStringIncludes(r.stderr, "ANSWER(SLOW restart task)");
      const rec = await deliveryRecord(t, "claude-parent-deliveries", id);
      assertEquals((rec.owner as { pid: number }).pid, second.pid, "taken over by the live server");
      assertEquals(rec.state, "submitted");
    } finally {
      post.kill();
    }
  },
);

Deno.test("claude-code parent: /clear before completion ends the request; the body is still saved", opts, async () => {
  await using t = await fakeClaudeEnv();
  await claudeHooks(t);
  const c = await connect(t.env, "claude-code");
  await pre(t, "toolu_C1", "conv-c");
  const l = await callAs<Receipt>(c, "agent_launch", {
    harness: "claude-code",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "SLOW cleared task",
  }, { "claudecode/toolUseId": "toolu_C1" });
  assert(l.ok?.parent_delivery, l.text);
  const id = l.ok.parent_delivery.delivery_id;
  const post = startAiterm(t, ["hook", "claude-post-tool-use"], postInput("toolu_C1", "conv-c"));
  try {
    assertEquals((await hook(t, "claude-session-end", { session_id: "conv-c", reason: "clear" })).code, 0);
    const r = await post.done;
    assertEquals([r.code, r.stderr], [0, ""]);
    // The observing server dies too: the next one still saves the answer of the ended request.
    Deno.kill(c.pid, "SIGKILL");
    await c.close();
    await using _next = await connect(t.env, "claude-code");
    const body = await eventually(
      () => Deno.readTextFile(`${t.stateDir}/claude-parent-deliveries/${id}.body`).catch(() => null),
      20_000,
      "body saved",
    );
    assertStringIncludes(body, "ANSWER(");
    // The body is written before the record notes the outcome: wait for the record too.
    const rec = await eventually(
      async () => {
        const r = await deliveryRecord(t, "claude-parent-deliveries", id);
        return r.child_outcome !== null && r;
      },
      10_000,
      "outcome recorded",
    );
    assertEquals([rec.state, rec.error_code, rec.child_outcome], ["failed", "CLAUDE_PARENT_SESSION_ENDED", "done"]);
  } finally {
    post.kill();
  }
});

Deno.test("two parents racing for one child: one request at a time, the other is refused untyped", opts, async () => {
  await using t = await fakeClaudeEnv();
  await claudeHooks(t);
  await using a = await connect(t.env, "claude-code");
  await using b = await connect(t.env, "claude-code");
  const l = await a.ok<Receipt>("agent_launch", { harness: "claude-code", cwd: `${t.root}/proj`, trust_project: true });
  await pre(t, "toolu_A", "conv-a");
  await pre(t, "toolu_B", "conv-b");
  const [ra, rb] = await Promise.all([
    callAs<Receipt>(a, "pty_send", { wait: false, session_id: l.session_id, text: "SLOW task from A" }, {
      "claudecode/toolUseId": "toolu_A",
    }),
    callAs<Receipt>(b, "pty_send", { wait: false, session_id: l.session_id, text: "SLOW task from B" }, {
      "claudecode/toolUseId": "toolu_B",
    }),
  ]);
  const winner = ra.ok ? ra : rb;
  const loser = ra.ok ? rb : ra;
  assert(winner.ok?.parent_delivery, `one request won: ${ra.text} / ${rb.text}`);
  assertEquals(winner.ok.mode, "agent_dispatch");
  assertEquals(loser.code, "CHILD_CLAIMED", loser.text);
  const screen = (await t.tmux("capture-pane", "-p", "-t", `=${l.session_id}:`)).stdout;
  assert(!screen.includes(ra.ok ? "task from B" : "task from A"), "the refused text was never typed");
});

Deno.test("cursor parent: receive process or postToolUse takes the answer, never both", opts, async () => {
  await using t = await fakeClaudeEnv();
  await using c = await connect(t.env, "cursor-vscode 1.7.2");
  const refused = await callAs<Receipt>(c, "agent_launch", {
    harness: "claude-code",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "never sent",
  }, {});
  assertEquals(refused.code, "CURSOR_PARENT_HOOK_UNAVAILABLE");
  assertEquals((await c.ok<{ sessions: unknown[] }>("pty_list", {})).sessions.length, 0);

  await installCursorParentHooks(registeredServerCommand(), { env: t.env, home: t.home, dryRun: false });
  const l = await callAs<Receipt>(c, "agent_launch", {
    harness: "claude-code",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "first cursor task",
  }, {});
  assert(l.ok?.parent_delivery, l.text);
  const wp = l.ok.wait_process;
  assert(wp && wp.args.includes("cursor-parent-receive"), JSON.stringify(wp));
  assertEquals(l.ok.wait_command, null);
  // The parent ended its turn: the receive process prints the body and exits 0.
  const recv = await new Deno.Command(wp.executable, {
    args: wp.args,
    env: t.env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(recv.code, 0, new TextDecoder().decode(recv.stderr));
  assertStringIncludes(new TextDecoder().decode(recv.stdout), "ANSWER(");
  // The hook of the next tool call finds nothing left to inject.
  await hook(t, "cursor-parent", {
    conversation_id: "cv-1",
    hook_event_name: "afterMCPExecution",
    tool_name: "agent_launch",
    result_json: JSON.stringify({ structuredContent: l.ok }),
  });
  const nothing = await hook(t, "cursor-parent", { conversation_id: "cv-1", hook_event_name: "postToolUse" });
  assertEquals(nothing.stdout.trim(), "{}");

  // Second request: the parent keeps working; postToolUse of its next tool call injects the answer.
  const s2 = await callAs<Receipt>(c, "pty_send", {
    wait: false,
    session_id: l.ok.session_id,
    text: "second cursor task",
  }, {});
  assert(s2.ok?.parent_delivery, s2.text);
  const id = s2.ok.parent_delivery.delivery_id;
  const bound = await hook(t, "cursor-parent", {
    conversation_id: "cv-1",
    hook_event_name: "afterMCPExecution",
    tool_name: "pty_send",
    result_json: JSON.stringify({ content: [{ type: "text", text: s2.text }] }),
  });
  assertEquals(bound.code, 0);
  await eventually(
    async () => (await deliveryRecord(t, "cursor-parent-deliveries", id)).state === "ready",
    20_000,
    "ready",
  );
  const injected = await hook(t, "cursor-parent", { conversation_id: "cv-1", hook_event_name: "postToolUse" });
  const ctx = JSON.parse(injected.stdout) as { additional_context?: string };
  assertStringIncludes(ctx.additional_context ?? "", "ANSWER(second cursor task");
  const late = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "cursor-parent-receive", "--delivery", id, "--timeout", "5"],
    env: t.env,
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).output();
  assertEquals([late.code, new TextDecoder().decode(late.stdout)], [6, ""]);
});

Deno.test(
  "codex parent: the answer is queued on its thread; refusal → failed; cut off → unknown, never resent",
  opts,
  async () => {
    await using t = await fakeClaudeEnv();
    const log = `${t.root}/appserver.log`;
    Object.assign(t.env, {
      CODEX_BIN: `${FIXTURE_BIN}fake_codex_app_server.mjs`,
      CODEX_HOME: `${t.home}/.codex`,
      FAKE_CODEX_APPSERVER_LOG: log,
      FAKE_CODEX_APPSERVER_QUEUE: `${t.root}/queue.json`,
    });
    await Deno.mkdir(`${t.home}/.codex`);
    const thread = "019ad7a4-1b2c-7d3e-8f40-123456789abc";
    const meta = { threadId: thread, callId: "call_1", sessionId: thread };
    const adds = async (id: string) =>
      (await Deno.readTextFile(log).catch(() => "")).split("\n").filter((l) =>
        l.includes('"thread/queue/add"') && l.includes(id)
      ).length;
    const settled = (id: string) =>
      eventually(
        async () => {
          const r = await deliveryRecord(t, "parent-deliveries", id);
          return ["submitted", "failed", "unknown"].includes(r.state as string) && r;
        },
        30_000,
        "delivery settled",
      );

    let child = "";
    {
      await using c = await connect(t.env, "codex-mcp-client");
      const l = await callAs<Receipt>(c, "agent_launch", {
        harness: "claude-code",
        cwd: `${t.root}/proj`,
        trust_project: true,
        prompt: "codex parent task",
      }, meta);
      assert(l.ok?.parent_delivery, l.text);
      child = l.ok.session_id;
      assertEquals([l.ok.parent_delivery.parent, l.ok.wait_process], ["codex", null]);
      const r = await settled(l.ok.parent_delivery.delivery_id);
      assertEquals([r.state, r.received_by], ["submitted", "codex_queue"]);
      assert(typeof r.queued_submission_id === "string" && r.queued_submission_id !== "", "queued id");
      const queue = JSON.parse(await Deno.readTextFile(`${t.root}/queue.json`)) as Record<string, { text?: string }[]>;
      const queued = JSON.stringify(queue[thread]);
      assertStringIncludes(queued, "ANSWER(codex parent task)");
      assertEquals(await adds(l.ok.parent_delivery.delivery_id), 1);
      // A Codex request without a thread gets no automatic delivery: wait_process instead.
      const noThread = await callAs<Receipt>(
        c,
        "pty_send",
        { wait: false, session_id: child, text: "no thread task" },
        {},
      );
      assertEquals(noThread.ok?.parent_delivery, null);
      assert(noThread.ok?.wait_process, "wait_process without a thread");
      await eventually(
        async () =>
          !(await c.ok<{ agent: { state: string } | null }>("pty_observe", { session_id: child })).agent?.state
            .includes("busy"),
        20_000,
        "child idle",
      );
    }
    // The receiver refuses: failed, body kept.
    {
      await using c = await connect({ ...t.env, FAKE_CODEX_APPSERVER_MODE: "reject_add" }, "codex-mcp-client");
      const s = await callAs<Receipt>(c, "pty_send", { wait: false, session_id: child, text: "refused task" }, meta);
      assert(s.ok?.parent_delivery, s.text);
      const id = s.ok.parent_delivery.delivery_id;
      const r = await settled(id);
      assertEquals([r.state, r.error_code], ["failed", "CODEX_QUEUE_REFUSED"]);
      assertStringIncludes(
        await Deno.readTextFile(`${t.stateDir}/parent-deliveries/${id}.body`),
        "ANSWER(refused task",
      );
    }
    // The app-server dies after the add was written: unknown, body kept; a later server never resends it.
    let cutId = "";
    {
      await using c = await connect({ ...t.env, FAKE_CODEX_APPSERVER_MODE: "exit_after_add" }, "codex-mcp-client");
      const s = await callAs<Receipt>(c, "pty_send", { wait: false, session_id: child, text: "cut off task" }, meta);
      assert(s.ok?.parent_delivery, s.text);
      cutId = s.ok.parent_delivery.delivery_id;
      const r = await settled(cutId);
      assertEquals([r.state, r.error_code], ["unknown", "CODEX_QUEUE_UNCONFIRMED"]);
    }
    {
      await using c = await connect(t.env, "codex-mcp-client");
      await c.ok("diagnostics", {});
      await new Promise((r) => setTimeout(r, 1500));
      assertEquals(await adds(cutId), 1, "an unknown delivery is never sent again");
      assertEquals((await deliveryRecord(t, "parent-deliveries", cutId)).state, "unknown");
    }
  },
);
