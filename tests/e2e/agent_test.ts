/**
 * agent_launch, dispatch, steer, answers and aiterm-wait through MCP on real tmux, with the fake
 * claude and codex CLIs of tests/fixtures/bin (they draw the real screens and write the real
 * transcript formats).
 */
import { runWaiter } from "../helpers/agent.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const hasFakes = await Deno.stat(`${FIXTURE_BIN}claude`).then(() => true, () => false);
const opts = { ignore: !hasTmux || !hasFakes, sanitizeOps: false, sanitizeResources: false };

interface Launch {
  session_id: string;
  startup: { status: string; reason: string };
  initial_prompt: { status: string; reason: string; turn_started: boolean | null };
  event_cursor: number | null;
  wait_process: { executable: string; args: string[] } | null;
  submit_residue: boolean | null;
  write_scope_enforcement?: string;
}

async function agentEnv(extra: Record<string, string> = {}): Promise<TestEnv> {
  const t = await makeTestEnv(extra);
  t.env.CLAUDE_BIN = `${FIXTURE_BIN}claude`;
  t.env.CODEX_BIN = `${FIXTURE_BIN}codex`;
  t.env.CODEX_HOME = `${t.home}/.codex`;
  t.env.FAKE_ARGV_LOG = `${t.root}/argv.log`;
  await Deno.mkdir(`${t.root}/proj`);
  return t;
}

async function answer(c: TestClient, session_id: string, cursor: number): Promise<string> {
  const r = await c.ok<{ text: string }>("pty_read", { session_id, agent_transcript: true, cursor });
  return r.text;
}

for (const harness of ["claude-code", "codex-cli"] as const) {
  Deno.test(
    `${harness}: launch with trust_project and a prompt, wait, read the answer, second turn, steer`,
    opts,
    async () => {
      await using t = await agentEnv();
      await using c = await connect(t.env);
      const l = await c.ok<Launch>("agent_launch", {
        harness,
        cwd: `${t.root}/proj`,
        trust_project: true,
        prompt: "first task",
      });
      assertEquals(l.startup, { status: "ready", reason: "input_accepted" });
      assertEquals(l.initial_prompt.status, "started");
      assertEquals(l.event_cursor, 0);
      assert(l.wait_process, "no wait_process");
      const w = await runWaiter(t.env, l.wait_process);
      assertEquals([w.code, w.json.outcome], [0, "done"]);
      assertStringIncludes(await answer(c, l.session_id, 0), "ANSWER(");
      // A second turn after the first.
      const s2 = await c.ok<
        { mode: string; event_cursor: number; wait_process: { executable: string; args: string[] } }
      >("pty_send", { wait: false, session_id: l.session_id, text: "second task" });
      assertEquals([s2.mode, s2.event_cursor], ["agent_dispatch", 1]);
      assertEquals((await runWaiter(t.env, s2.wait_process)).code, 0);
      assertStringIncludes(await answer(c, l.session_id, 1), "ANSWER(second task");
      // The sub-agent notice went to the CLI's system-prompt channel: the first prompt is the task alone.
      assertStringIncludes(await answer(c, l.session_id, 0), "ANSWER(first task)");
      // A steer while a slow turn runs joins that turn: no new cursor, one completion.
      const slow = await c.ok<{ event_cursor: number; wait_process: { executable: string; args: string[] } }>(
        "pty_send",
        {
          session_id: l.session_id,
          text: "SLOW third task",
        },
      );
      assertEquals(slow.event_cursor, 2);
      await eventually(async () => {
        const o = await c.ok<{ text: string }>("pty_read", { session_id: l.session_id, screen: true });
        return o.text.includes("esc to interrupt");
      });
      const steer = await c.ok<{ mode: string; event_cursor: number | null; joined_event_cursor: number | null }>(
        "pty_send",
        {
          session_id: l.session_id,
          text: "also consider this",
        },
      );
      assertEquals([steer.mode, steer.event_cursor, steer.joined_event_cursor], ["agent_steer", null, 2]);
      assertEquals((await runWaiter(t.env, slow.wait_process)).code, 0);
      assertStringIncludes(await answer(c, l.session_id, 2), "SLOW third task");
      const argv = await Deno.readTextFile(`${t.root}/argv.log`);
      assert(argv.length > 0, "the fake CLI did not log its argv");
    },
  );

  Deno.test(`${harness}: an API error ends the turn with aiterm-wait exit 7 and no answer`, opts, async () => {
    await using t = await agentEnv();
    await using c = await connect(t.env);
    const l = await c.ok<Launch>("agent_launch", {
      harness,
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "APIERR please",
    });
    const w = await runWaiter(t.env, l.wait_process!);
    assertEquals([w.code, w.json.outcome], [7, "error"]);
    const e = await c.err("pty_read", { session_id: l.session_id, agent_transcript: true, cursor: 0 });
    assertEquals(e.code, "AGENT_TURN_ERROR");
    // The marker of that turn only is released: a new turn can be dispatched.
    const s = await c.ok<{ mode: string; event_cursor: number }>("pty_send", {
      wait: false,
      session_id: l.session_id,
      text: "after the error",
    });
    assertEquals([s.mode, s.event_cursor], ["agent_dispatch", 1]);
  });
}

Deno.test("a sign-in screen blocks the launch with vendor_onboarding_required and nothing is typed", opts, async () => {
  await using t = await agentEnv({ FAKE_MODE: "login" });
  await using c = await connect(t.env);
  const l = await c.ok<Launch>("agent_launch", {
    harness: "claude-code",
    cwd: `${t.root}/proj`,
    prompt: "never typed",
  });
  assertEquals(l.startup, { status: "blocked", reason: "vendor_onboarding_required" });
  assertEquals(l.initial_prompt.status, "not_sent");
  assertEquals(l.event_cursor, null);
  const screen = await c.ok<{ text: string }>("pty_read", { session_id: l.session_id, screen: true });
  assert(!screen.text.includes("never typed"), "the prompt was typed into the sign-in screen");
  const e = await c.err("pty_send", { wait: false, session_id: l.session_id, text: "hello" });
  assertEquals(e.code, "AGENT_BLOCKED");
});

Deno.test(
  "without trust_project the trust dialog blocks; without a prompt the launch is not_checked",
  opts,
  async () => {
    await using t = await agentEnv();
    await using c = await connect(t.env);
    const blocked = await c.ok<Launch>("agent_launch", { harness: "claude-code", cwd: `${t.root}/proj`, prompt: "x" });
    assertEquals(blocked.startup, { status: "blocked", reason: "trust_required" });
    const quick = await c.ok<Launch>("agent_launch", { harness: "codex-cli", cwd: `${t.root}/proj` });
    assertEquals(quick.startup.status, "not_checked");
    assertEquals(quick.initial_prompt.status, "not_requested");
    assertEquals(quick.wait_process, null);
  },
);

Deno.test("bad launches fail before any session exists", opts, async () => {
  await using t = await agentEnv();
  await using c = await connect(t.env);
  const before = (await c.ok<{ sessions: unknown[] }>("pty_list")).sessions.length;
  const cases: [Record<string, unknown>, string][] = [
    [{ harness: "nope" }, "INVALID_ARGUMENT"],
    [{ harness: "claude-code", reasoning_effort: "galaxy-brain" }, "EFFORT_UNSUPPORTED"],
    [{ harness: "claude-code", cwd: `${t.root}/missing` }, "CWD_NOT_FOUND"],
    [{ harness: "claude-code", cwd: "relative" }, "INVALID_ARGUMENT"],
    [{ harness: "claude-code", model: "" }, "INVALID_ARGUMENT"],
    [{ harness: "claude-code", prompt: "x", image: ["relative.png"] }, "IMAGE_INVALID"],
    [{ harness: "claude-code", prompt: "x", image: [`${t.root}/missing.png`] }, "IMAGE_INVALID"],
    [{ harness: "claude-code", prompt: "x".repeat(70 * 1024) }, "INPUT_TOO_LARGE"],
  ];
  for (const [args, code] of cases) {
    const e = await c.err("agent_launch", { cwd: `${t.root}/proj`, ...args });
    assertEquals(e.code, code, JSON.stringify(args));
    assertMatch(e.text, new RegExp(`^${code}: `));
  }
  await c.ok("pty_open", { name: "taken", cwd: t.root });
  assertEquals((await c.err("agent_launch", { harness: "codex-cli", session_name: "taken" })).code, "SESSION_EXISTS");
  {
    await using c2 = await connect({ ...t.env, CLAUDE_BIN: `${t.root}/no-claude`, PATH: "/usr/bin:/bin" });
    assertEquals(
      (await c2.err("agent_launch", { harness: "claude-code", cwd: `${t.root}/proj` })).code,
      "HARNESS_NOT_INSTALLED",
    );
  }
  assertEquals((await c.ok<{ sessions: unknown[] }>("pty_list")).sessions.length, before + 1);
});

Deno.test("the launched agent knows it is a sub-agent: lineage in its env and system prompt", opts, async () => {
  await using t = await agentEnv({
    AITERM_SESSION_ID: "parent_1",
    AITERM_DELEGATION_DEPTH: "1",
    AITERM_LINEAGE: "root/parent_1",
  });
  await using c = await connect(t.env);
  const l = await c.ok<Launch>("agent_launch", {
    harness: "claude-code",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "who are you",
    session_name: "child_a",
  });
  await runWaiter(t.env, l.wait_process!);
  const pid = (await t.tmux("display", "-p", "-t", "=child_a:", "#{pane_pid}")).stdout.trim();
  const env = (await Deno.readTextFile(`/proc/${pid}/environ`)).split("\0").join("\n");
  assertStringIncludes(env, "AITERM_DELEGATION_DEPTH=2");
  assertStringIncludes(env, "AITERM_LINEAGE=root/parent_1/child_a");
  assertStringIncludes(env, "AITERM_PARENT_SESSION_ID=parent_1");
  assertStringIncludes(env, "AITERM_DELEGATION_ALLOWED=true");
  // The notice rides on --append-system-prompt; the first prompt is the task alone.
  const argv = (await Deno.readTextFile(`/proc/${pid}/cmdline`)).split("\0");
  const notice = argv[argv.indexOf("--append-system-prompt") + 1] ?? "";
  assertStringIncludes(notice, 'sub-agent running in aiterm session "child_a", launched by session "parent_1"');
  assertStringIncludes(notice, "lineage root > parent_1 > child_a");
  assertEquals(await answer(c, "child_a", 0), "ANSWER(who are you)");
});

Deno.test("a prompt-less claude-code launch with launch_operation_id replays exactly", opts, async () => {
  await using t = await agentEnv();
  await using c = await connect(t.env);
  const op = `sha256:${"ab".repeat(32)}`;
  const args = { harness: "claude-code", cwd: `${t.root}/proj`, session_name: "replayed", launch_operation_id: op };
  const first = await c.ok<Launch>("agent_launch", args);
  const again = await c.ok<Launch>("agent_launch", args);
  assertEquals(again, first);
  const rows = (await c.ok<{ sessions: { session_id: string }[] }>("pty_list")).sessions.filter((s) =>
    s.session_id === "replayed"
  );
  assertEquals(rows.length, 1);
  assertEquals(
    (await c.err("agent_launch", { ...args, launch_operation_id: `sha256:${"cd".repeat(32)}` })).code,
    "SESSION_EXISTS",
  );
  assertEquals((await c.err("agent_launch", { ...args, prompt: "x" })).code, "INVALID_ARGUMENT");
});

Deno.test("a waiter from a closed launch does not wait on the new launch of the same name", opts, async () => {
  await using t = await agentEnv();
  await using c = await connect(t.env);
  const first = await c.ok<Launch>("agent_launch", {
    harness: "codex-cli",
    cwd: `${t.root}/proj`,
    session_name: "same",
    prompt: "SLOW one",
  });
  assert(first.wait_process?.args.includes("--generation"), "no generation in wait_process");
  await c.ok("pty_close", { session_id: "same" });
  await c.ok<Launch>("agent_launch", {
    harness: "codex-cli",
    cwd: `${t.root}/proj`,
    session_name: "same",
    prompt: "two",
  });
  const w = await runWaiter(t.env, first.wait_process!);
  assertEquals([w.code, w.json.outcome], [4, "closed"]);
  assertStringIncludes(String(w.json.error), "SESSION_STALE");
});

Deno.test("write_scope read-only is enforced through each harness's own read-only mode", opts, async () => {
  await using t = await agentEnv();
  await using c = await connect(t.env);
  const codex = await c.ok<Launch>("agent_launch", {
    harness: "codex-cli",
    cwd: `${t.root}/proj`,
    write_scope: "read-only",
  });
  assertEquals(codex.write_scope_enforcement, "enforced_read_only");
  const claude = await c.ok<Launch>("agent_launch", {
    harness: "claude-code",
    cwd: `${t.root}/proj`,
    write_scope: "read-only",
  });
  assertEquals(claude.write_scope_enforcement, "enforced_read_only");
  const declared = await c.ok<Launch>("agent_launch", {
    harness: "codex-cli",
    cwd: `${t.root}/proj`,
    write_scope: "src/ only",
  });
  assertEquals(declared.write_scope_enforcement, "declaration_only_unsupported");
  const argv = await eventually(async () => {
    const text = await Deno.readTextFile(`${t.root}/argv.log`).catch(() => "");
    return text.split("\n").filter(Boolean).length >= 3 ? text : null;
  });
  assertMatch(argv, /"-s","read-only"|"--sandbox","read-only"|-s read-only/);
  assertMatch(argv, /"--permission-mode","plan"|--permission-mode plan/);
});

Deno.test(
  "Claude's first-run theme picker is confirmed with its default, then trust, then the prompt",
  opts,
  async () => {
    await using t = await agentEnv({ FAKE_THEME_PICKER: "1" });
    await using c = await connect(t.env);
    const l = await c.ok<Launch>("agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "after the theme",
    });
    assertEquals([l.startup.status, l.initial_prompt.status], ["ready", "started"]);
    assertEquals((await runWaiter(t.env, l.wait_process!)).code, 0);
  },
);

Deno.test(
  "pty_observe names what an agent is stuck on: a sign-in screen; plain terminals have no agent",
  opts,
  async () => {
    await using t = await agentEnv({ FAKE_MODE: "login" });
    await using c = await connect(t.env);
    const l = await c.ok<Launch>("agent_launch", { harness: "claude-code", cwd: `${t.root}/proj`, prompt: "x" });
    const o = await c.ok<{ state: string; reason: string; agent: { state: string; reason: string } | null }>(
      "pty_observe",
      { session_id: l.session_id },
    );
    assertEquals([o.state, o.reason, o.agent?.reason], [
      "blocked",
      "vendor_onboarding_required",
      "vendor_onboarding_required",
    ]);
    const plain = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
    assertEquals((await c.ok<{ agent: unknown }>("pty_observe", { session_id: plain.session_id })).agent, null);
  },
);

Deno.test("pty_observe reports approval_required while a turn waits on a permission prompt", opts, async () => {
  await using t = await agentEnv();
  await using c = await connect(t.env);
  const l = await c.ok<Launch>("agent_launch", {
    harness: "claude-code",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "PERM please",
  });
  const o = await eventually(async () => {
    const r = await c.ok<{ state: string; reason: string }>("pty_observe", { session_id: l.session_id });
    return r.state === "blocked" ? r : null;
  });
  assertEquals(o.reason, "approval_required");
  const e = await c.err("pty_send", { wait: false, session_id: l.session_id, text: "more" });
  assertEquals(e.code, "AGENT_BLOCKED");
});
