/**
 * Notices end to end with the fake CLIs (no vendor CLI needed): a child turn awaited through parent
 * delivery stops on a permission dialog (the fake claude's PERM / PERMTWICE prompts). The parent must
 * hear it through the channel its answer uses — Claude Code's hooks (run as separate processes with
 * the JSON Claude Code gives them), Cursor's receive process and hook, Codex's thread queue (the fake
 * app-server) — once per dialog, with the digest and the agent_approval call; after it answers, the
 * child's answer still arrives once. A merely slow child is never reported.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux } from "../helpers/env.ts";
import { callAs, deliveryRecord, fakeClaudeEnv, startAiterm } from "../helpers/delivery.ts";
import { connect, registeredServerCommand, type TestClient } from "../helpers/mcp.ts";
import { installClaudeParentHooks, installCursorParentHooks } from "../../harnesses/clients/mod.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const hasFakes = await Deno.stat(`${FIXTURE_BIN}claude`).then(() => true, () => false);
const opts = { ignore: !hasTmux || !hasFakes, sanitizeOps: false, sanitizeResources: false };
/** The notice target (issue 30): from the dialog on screen to the notice handed to the parent. */
const TARGET_MS = 10_000;

interface Receipt {
  session_id: string;
  event_cursor: number | null;
  next: string;
  wait_process: { executable: string; args: string[] } | null;
  parent_delivery: { delivery_id: string; parent: string; state: string } | null;
}
interface Notice {
  n: number;
  state: string;
  reason: string;
  digest: string | null;
  received_by: string | null;
  seen_at_ms: number;
  handed_at_ms: number | null;
  ended_at_ms: number | null;
}

/** The agent_approval arguments a notice names, with the first choice picked. */
function callFrom(notice: string): Record<string, unknown> {
  const m = /^Answer with agent_approval (\{.*\}) \(pick one choice id\)\.$/m.exec(notice);
  assert(m, `no agent_approval call in the notice:\n${notice}`);
  const call = JSON.parse(m[1]!) as Record<string, unknown>;
  const choices = String(call.approval_choice).replace(/^<|>$/g, "").split("|");
  return { ...call, approval_choice: choices[0] };
}

/**
 * When the dialog for `command` is first on the child's screen (polled; the session is found through
 * pty_list before the receipt names it).
 */
function dialogSeen(c: TestClient, sid: () => string, command: string): Promise<number> {
  return eventually(
    async () => {
      const id = sid() ||
        (await c.ok<{ sessions: { session_id: string }[] }>("pty_list", {}).catch(() => null))?.sessions[0]
          ?.session_id;
      if (!id) return null;
      const s = await c.ok<{ text: string }>("pty_read", { session_id: id, screen: true }).catch(() => null);
      return s?.text.includes(command) && s.text.includes("Do you want to proceed?") ? Date.now() : null;
    },
    60_000,
    `the dialog for ${command}`,
  );
}

Deno.test(
  "claude-code parent: a dialog becomes a notice through the dispatch's PostToolUse; after agent_approval the next dialog and the answer come through the hooks Claude still runs, once each",
  opts,
  async () => {
    await using t = await fakeClaudeEnv();
    await installClaudeParentHooks(registeredServerCommand(), { env: t.env, home: t.home, dryRun: false });
    await using c = await connect(t.env, "claude-code");
    const pre = await startAiterm(t, ["hook", "claude-pre-tool-use"], {
      session_id: "conv-1",
      hook_event_name: "PreToolUse",
      tool_name: "mcp__aiterm__agent_launch",
      tool_input: {},
      tool_use_id: "toolu_L1",
    }).done;
    assertEquals(pre.code, 0, pre.stderr);
    let sid = "";
    const firstDialog = dialogSeen(c, () => sid, "touch PERM_OK");
    const l = await callAs<Receipt>(c, "agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "PERMTWICE notice task",
    }, { "claudecode/toolUseId": "toolu_L1" });
    assert(l.ok?.parent_delivery, l.text);
    sid = l.ok.session_id;
    const id = l.ok.parent_delivery.delivery_id;
    assertStringIncludes(l.ok.next, "a notice comes the same way");
    const post = startAiterm(t, ["hook", "claude-post-tool-use"], {
      session_id: "conv-1",
      hook_event_name: "PostToolUse",
      tool_name: "mcp__aiterm__agent_launch",
      tool_use_id: "toolu_L1",
      tool_response: [{ type: "text", text: l.text }],
    });
    const shown = await firstDialog;
    const n1 = await post.done;
    assertEquals(n1.code, 2, n1.stderr);
    const lag1 = n1.at - shown;
    assert(lag1 <= TARGET_MS, `notice 1 took ${lag1} ms from the dialog`);
    const notice1 = n1.stderr;
    assertStringIncludes(
      notice1,
      `[aiterm] child agent session "${sid}" (claude-code), turn 0: blocked (approval_required)`,
    );
    assertStringIncludes(notice1, "It asks to run a command:");
    assertStringIncludes(notice1, "touch PERM_OK");
    assertStringIncludes(notice1, 'Choices: approve_once ("Yes"), deny ("No")');
    assertStringIncludes(notice1, "don't ask again"); // named, but not offered
    assert(!notice1.includes("ANSWER("), "the notice is not the answer");
    const call1 = callFrom(notice1);
    assertEquals(call1.session_id, sid);
    assertMatch(String(call1.observed_prompt_digest), /^sha256:[0-9a-f]{64}$/);

    // The woken parent answers; Claude runs that call's PostToolUse (and, when the turn ends, Stop).
    const a1 = await callAs<Receipt>(c, "agent_approval", call1, { "claudecode/toolUseId": "toolu_A1" });
    assertMatch(String(a1.sc.status), /^submitted(_unconfirmed)?$/, a1.text);
    const carriers = [
      startAiterm(t, ["hook", "claude-post-tool-use"], {
        session_id: "conv-1",
        hook_event_name: "PostToolUse",
        tool_name: "mcp__aiterm__agent_approval",
        tool_input: call1,
        tool_use_id: "toolu_A1",
        tool_response: [{ type: "text", text: a1.text }],
      }),
      startAiterm(t, ["hook", "claude-stop"], { session_id: "conv-1", hook_event_name: "Stop" }),
    ];
    try {
      // Blocked again in the same turn: a new dialog, a new notice, carried by one of the two.
      const shown2 = await dialogSeen(c, () => sid, "touch PERM_TWO");
      const first = await Promise.race(carriers.map((p, i) => p.done.then((r) => ({ ...r, i }))));
      assertEquals(first.code, 2, first.stderr);
      assert(first.at - shown2 <= TARGET_MS, `notice 2 took ${first.at - shown2} ms from the dialog`);
      assertStringIncludes(first.stderr, "touch PERM_TWO");
      assertStringIncludes(first.stderr, "turn 0: blocked (approval_required)");
      const call2 = callFrom(first.stderr);
      assert(call2.observed_prompt_digest !== call1.observed_prompt_digest, "a new dialog has a new digest");
      const a2 = await callAs<Receipt>(c, "agent_approval", call2, { "claudecode/toolUseId": "toolu_A2" });
      assertMatch(String(a2.sc.status), /^submitted(_unconfirmed)?$/, a2.text);
      carriers.push(startAiterm(t, ["hook", "claude-post-tool-use"], {
        session_id: "conv-1",
        hook_event_name: "PostToolUse",
        tool_name: "mcp__aiterm__agent_approval",
        tool_input: call2,
        tool_use_id: "toolu_A2",
      }));
      // The answer: exactly one of the waiting carriers takes it, the others end quietly.
      const results = await Promise.all(carriers.map((p) => p.done));
      const all = results.map((r) => r.stderr).join("\n");
      assertEquals(all.split("ANSWER(PERMTWICE notice task)").length, 2, all);
      assertEquals(all.split("touch PERM_TWO").length, 2, "notice 2 was carried once");
      assertEquals(results.filter((r) => r.code === 2).length, 2, JSON.stringify(results.map((r) => r.code)));
      const rec = await deliveryRecord(t, "claude-parent-deliveries", id);
      assertEquals([rec.state, rec.child_outcome], ["submitted", "done"]);
      const notices = rec.notices as Notice[];
      assertEquals(notices.map((n) => [n.n, n.state, n.reason]), [[1, "submitted", "approval_required"], [
        2,
        "submitted",
        "approval_required",
      ]]);
      assertEquals(notices[0]!.received_by, "claude_post_tool_use");
      assert(notices.every((n) => n.ended_at_ms !== null), "both episodes ended");
      // deno-lint-ignore no-console
      console.log(JSON.stringify({ notice1_ms: lag1, notice2_ms: first.at - shown2 }));
    } finally {
      for (const p of carriers) p.kill();
    }
  },
);

Deno.test("a slow child is never reported blocked: no notice, the answer comes as before", opts, async () => {
  await using t = await fakeClaudeEnv();
  await installClaudeParentHooks(registeredServerCommand(), { env: t.env, home: t.home, dryRun: false });
  t.env.FAKE_SLOW_MS = "6000";
  await using c = await connect(t.env, "claude-code");
  const pre = await startAiterm(t, ["hook", "claude-pre-tool-use"], {
    session_id: "conv-s",
    hook_event_name: "PreToolUse",
    tool_name: "mcp__aiterm__agent_launch",
    tool_input: {},
    tool_use_id: "toolu_S1",
  }).done;
  assertEquals(pre.code, 0, pre.stderr);
  const l = await callAs<Receipt>(c, "agent_launch", {
    harness: "claude-code",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "SLOW task that takes its time",
  }, { "claudecode/toolUseId": "toolu_S1" });
  assert(l.ok?.parent_delivery, l.text);
  const r = await startAiterm(t, ["hook", "claude-post-tool-use"], {
    session_id: "conv-s",
    hook_event_name: "PostToolUse",
    tool_use_id: "toolu_S1",
  }).done;
  assertEquals(r.code, 2, r.stderr);
  assertStringIncludes(r.stderr, "turn 0: done");
  assert(!r.stderr.includes("blocked"), r.stderr);
  const rec = await deliveryRecord(t, "claude-parent-deliveries", l.ok.parent_delivery.delivery_id);
  assertEquals((rec.notices as Notice[] | undefined) ?? [], []);
});

Deno.test(
  "cursor parent: the receive process prints the notice and exits 5; started again after agent_approval it prints the answer",
  opts,
  async () => {
    await using t = await fakeClaudeEnv();
    await installCursorParentHooks(registeredServerCommand(), { env: t.env, home: t.home, dryRun: false });
    await using c = await connect(t.env, "cursor-vscode 1.7.2");
    let sid = "";
    const shown = dialogSeen(c, () => sid, "touch PERM_OK");
    const l = await callAs<Receipt>(c, "agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "PERM cursor notice task",
    }, {});
    assert(l.ok?.parent_delivery && l.ok.wait_process, l.text);
    sid = l.ok.session_id;
    assertStringIncludes(l.ok.next, "Exit 5");
    const wp = l.ok.wait_process;
    const run = () =>
      new Deno.Command(wp.executable, { args: wp.args, env: t.env, clearEnv: true, stdout: "piped", stderr: "piped" })
        .output().then((o) => ({ code: o.code, out: new TextDecoder().decode(o.stdout), at: Date.now() }));
    const first = await run();
    assertEquals(first.code, 5, first.out);
    assert(first.at - (await shown) <= TARGET_MS, `notice took ${first.at - (await shown)} ms`);
    assertStringIncludes(first.out, "blocked (approval_required)");
    const a = await callAs<Receipt>(c, "agent_approval", callFrom(first.out), {});
    assertMatch(String(a.sc.status), /^submitted(_unconfirmed)?$/, a.text);
    const second = await run();
    assertEquals(second.code, 0, second.out);
    assertStringIncludes(second.out, "ANSWER(PERM cursor notice task)");
    // Nothing is left for the hook of the next tool call.
    const hook = await startAiterm(t, ["hook", "cursor-parent"], {
      conversation_id: "cv-1",
      hook_event_name: "postToolUse",
    }).done;
    assertEquals(hook.stdout.trim(), "{}");
  },
);

Deno.test(
  "codex parent: the notice is queued on the thread under its own id, then the answer under the delivery's",
  opts,
  async () => {
    await using t = await fakeClaudeEnv();
    Object.assign(t.env, {
      CODEX_BIN: `${FIXTURE_BIN}fake_codex_app_server.mjs`,
      CODEX_HOME: `${t.home}/.codex`,
      FAKE_CODEX_APPSERVER_QUEUE: `${t.root}/queue.json`,
    });
    await Deno.mkdir(`${t.home}/.codex`);
    const thread = "019ad7a4-1b2c-7d3e-8f40-123456789abd";
    await using c = await connect(t.env, "codex-mcp-client");
    let sid = "";
    const shown = dialogSeen(c, () => sid, "touch PERM_OK");
    const l = await callAs<Receipt>(c, "agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "PERM codex notice task",
    }, { threadId: thread });
    assert(l.ok?.parent_delivery, l.text);
    sid = l.ok.session_id;
    const id = l.ok.parent_delivery.delivery_id;
    const queued = async () =>
      ((JSON.parse(await Deno.readTextFile(`${t.root}/queue.json`).catch(() => "{}")) as Record<
        string,
        { clientUserMessageId?: string; input?: { text?: string }[] }[]
      >)[thread] ?? []).map((e) => ({ id: e.clientUserMessageId, text: e.input?.[0]?.text ?? "" }));
    const notice = await eventually(
      async () => (await queued()).find((e) => e.id === `${id}.notice-1`),
      30_000,
      "the notice in the queue",
    );
    const at = Date.now();
    assert(at - (await shown) <= TARGET_MS, `notice queued ${at - (await shown)} ms after the dialog`);
    assertStringIncludes(notice.text, "blocked (approval_required)");
    const a = await callAs<Receipt>(c, "agent_approval", callFrom(notice.text), { threadId: thread });
    assertMatch(String(a.sc.status), /^submitted(_unconfirmed)?$/, a.text);
    const answer = await eventually(
      async () => (await queued()).find((e) => e.id === id),
      30_000,
      "the answer in the queue",
    );
    assertStringIncludes(answer.text, "ANSWER(PERM codex notice task)");
    assertEquals((await queued()).map((e) => e.id), [`${id}.notice-1`, id]);
    // The queue file is written just before the record says so.
    const rec = await eventually(
      async () => {
        const r = await deliveryRecord(t, "parent-deliveries", id);
        return r.state === "submitted" && r;
      },
      10_000,
      "submitted",
    );
    assertEquals([rec.state, rec.received_by], ["submitted", "codex_queue"]);
    const n = (rec.notices as (Notice & { queued_submission_id: string | null })[])[0]!;
    assertEquals([n.state, n.received_by], ["submitted", "codex_queue"]);
    assert(n.queued_submission_id, "the notice's queue id is kept");
  },
);

Deno.test(
  "a server killed during a blocking episode: the next one takes over without repeating the notice; the answer comes once",
  opts,
  async () => {
    await using t = await fakeClaudeEnv();
    await installClaudeParentHooks(registeredServerCommand(), { env: t.env, home: t.home, dryRun: false });
    const first = await connect(t.env, "claude-code");
    const pre = await startAiterm(t, ["hook", "claude-pre-tool-use"], {
      session_id: "conv-r",
      hook_event_name: "PreToolUse",
      tool_name: "mcp__aiterm__agent_launch",
      tool_input: {},
      tool_use_id: "toolu_R1",
    }).done;
    assertEquals(pre.code, 0, pre.stderr);
    const l = await callAs<Receipt>(first, "agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "PERM restart notice task",
    }, { "claudecode/toolUseId": "toolu_R1" });
    assert(l.ok?.parent_delivery, l.text);
    const id = l.ok.parent_delivery.delivery_id;
    const n1 = await startAiterm(t, ["hook", "claude-post-tool-use"], {
      session_id: "conv-r",
      hook_event_name: "PostToolUse",
      tool_name: "mcp__aiterm__agent_launch",
      tool_use_id: "toolu_R1",
    }).done;
    assertEquals(n1.code, 2, n1.stderr);
    assertStringIncludes(n1.stderr, "blocked (approval_required)");
    Deno.kill(first.pid, "SIGKILL");
    await first.close();
    // The dialog is still shown; a new server takes the delivery over and watches the same episode.
    await using second = await connect(t.env, "claude-code");
    await second.ok("diagnostics", {});
    await eventually(
      async () =>
        ((await deliveryRecord(t, "claude-parent-deliveries", id)).owner as { pid: number }).pid === second.pid,
      20_000,
      "taken over",
    );
    await new Promise((r) => setTimeout(r, 3000));
    assertEquals(
      ((await deliveryRecord(t, "claude-parent-deliveries", id)).notices as Notice[]).length,
      1,
      "not repeated",
    );
    const carrier = startAiterm(t, ["hook", "claude-stop"], { session_id: "conv-r", hook_event_name: "Stop" });
    try {
      const a = await callAs<Receipt>(second, "agent_approval", callFrom(n1.stderr), {
        "claudecode/toolUseId": "toolu_RA",
      });
      assertMatch(String(a.sc.status), /^submitted(_unconfirmed)?$/, a.text);
      const r = await carrier.done;
      assertEquals(r.code, 2, r.stderr);
      assertStringIncludes(r.stderr, "ANSWER(PERM restart notice task)");
      const rec = await deliveryRecord(t, "claude-parent-deliveries", id);
      assertEquals([rec.state, rec.received_by], ["submitted", "claude_stop"]);
      const notices = rec.notices as Notice[];
      assertEquals(notices.map((n) => n.state), ["submitted"]);
      assert(notices[0]!.ended_at_ms !== null, "the new server saw the episode end");
    } finally {
      carrier.kill();
    }
  },
);
