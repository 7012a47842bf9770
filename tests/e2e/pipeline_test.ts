/**
 * The one agent-request pipeline (issue 17), through the real MCP client on real tmux with the fake
 * claude and codex CLIs: the first send to a starting agent waits for it (with progress) and then
 * dispatches, a blocking dialog still refuses with its reason, a bracketed-paste end sequence in a
 * prompt arrives as text (first prompt and later turns), and the smaller refusals (throughline
 * argument order, a garbage inherited delegation depth, unknown sessions, a read during the first turn).
 */
import { runWaiter } from "../helpers/agent.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const hasFakes = await Deno.stat(`${FIXTURE_BIN}claude`).then(() => true, () => false);
const opts = { ignore: !hasTmux || !hasFakes, sanitizeOps: false, sanitizeResources: false };

interface Launch {
  session_id: string;
  startup: { status: string; reason: string };
  initial_prompt: { status: string };
  event_cursor: number | null;
  wait_process: { executable: string; args: string[] } | null;
}

interface Sent {
  mode: string;
  event_cursor: number | null;
  wait_process: { executable: string; args: string[] } | null;
}

/** A test env with the fake CLIs and a project directory (real path) `proj`. */
async function agentEnv(extra: Record<string, string> = {}): Promise<{ t: TestEnv; proj: string }> {
  const t = await makeTestEnv(extra);
  t.env.CLAUDE_BIN = `${FIXTURE_BIN}claude`;
  t.env.CODEX_BIN = `${FIXTURE_BIN}codex`;
  t.env.CODEX_HOME = `${t.home}/.codex`;
  await Deno.mkdir(`${t.root}/proj`);
  return { t, proj: await Deno.realPath(`${t.root}/proj`) };
}

/** Marks `proj` trusted in the fake Claude's state file (as after an earlier session), so no dialog shows. */
async function trustForClaude(t: TestEnv, proj: string): Promise<void> {
  await Deno.writeTextFile(
    `${t.home}/.claude.json`,
    JSON.stringify({ projects: { [proj]: { hasTrustDialogAccepted: true } } }),
  );
}

/** The human prompts the fake Claude recorded in its transcripts, in order. */
async function claudePrompts(t: TestEnv): Promise<string[]> {
  const prompts: string[] = [];
  const root = `${t.home}/.claude/projects`;
  for await (const dir of Deno.readDir(root)) {
    for await (const f of Deno.readDir(`${root}/${dir.name}`)) {
      if (!f.name.endsWith(".jsonl")) continue;
      for (const line of (await Deno.readTextFile(`${root}/${dir.name}/${f.name}`)).split("\n")) {
        if (!line.trim()) continue;
        const r = JSON.parse(line);
        if (r.type === "user" && typeof r.message?.content === "string") prompts.push(r.message.content);
      }
    }
  }
  return prompts;
}

/** pty_send with a progress callback; returns the result, the progress messages and the time it took. */
async function sendWithProgress(
  c: TestClient,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; sc: Record<string, unknown>; text: string; progress: string[]; ms: number }> {
  const progress: string[] = [];
  const started = Date.now();
  const r = await c.client.callTool({ name: "pty_send", arguments: args }, undefined, {
    timeout: 120_000,
    onprogress: (p) => void progress.push(p.message ?? ""),
  });
  const first = (r.content as { type: string; text?: string }[])[0];
  return {
    isError: r.isError === true,
    sc: (r.structuredContent ?? {}) as Record<string, unknown>,
    text: first?.text ?? "",
    progress,
    ms: Date.now() - started,
  };
}

for (const harness of ["claude-code", "codex-cli"] as const) {
  Deno.test(
    `${harness}: a send right after a bare launch waits for the CLI (with progress), then dispatches`,
    opts,
    async () => {
      // The fake stays silent for 2.5 s before it draws anything: the send arrives while it starts.
      const { t, proj } = await agentEnv({ FAKE_START_DELAY_MS: "2500" });
      await using _t = t;
      await trustForClaude(t, proj);
      await using c = await connect(t.env);
      const l = await c.ok<Launch>("agent_launch", { harness, cwd: proj });
      assertEquals([l.startup.status, l.initial_prompt.status], ["not_checked", "not_requested"]);
      const s = await sendWithProgress(c, { session_id: l.session_id, text: "first task after a bare launch" });
      assert(!s.isError, s.text);
      assertEquals([s.sc.mode, s.sc.event_cursor], ["agent_dispatch", 0]);
      assert(s.progress.length >= 1, "no progress notification while waiting for the CLI");
      assertStringIncludes(s.progress[0]!, "waiting for the agent to accept input");
      assert(s.ms < 30_000, `the send took ${s.ms} ms`);
      const w = await runWaiter(t.env, s.sc.wait_process as { executable: string; args: string[] });
      assertEquals([w.code, w.json.outcome], [0, "done"]);
      const a = await c.ok<{ text: string }>("pty_read", {
        session_id: l.session_id,
        agent_transcript: true,
        cursor: 0,
      });
      assertStringIncludes(a.text, "ANSWER(");
    },
  );
}

Deno.test(
  "a send right after a bare launch into a trust dialog refuses with the reason, nothing typed",
  opts,
  async () => {
    const { t, proj } = await agentEnv({ FAKE_START_DELAY_MS: "1000" });
    await using _t = t;
    await using c = await connect(t.env);
    const l = await c.ok<Launch>("agent_launch", { harness: "claude-code", cwd: proj });
    const s = await sendWithProgress(c, { session_id: l.session_id, text: "never typed into the dialog" });
    assert(s.isError, "the send into a trust dialog succeeded");
    assertEquals(s.sc.code, "AGENT_BLOCKED");
    assertStringIncludes(String(s.sc.message), "trust_required");
    assert(s.ms < 30_000, `the refusal took ${s.ms} ms`);
    const screen = await c.ok<{ text: string }>("pty_read", { session_id: l.session_id, screen: true });
    assertStringIncludes(screen.text, "trust this folder");
    assert(!screen.text.includes("never typed"), "the text was typed into the dialog");
  },
);

Deno.test(
  "a bracketed-paste end sequence in a prompt arrives as text: first prompt and a later turn",
  opts,
  async () => {
    const { t, proj } = await agentEnv();
    await using _t = t;
    await using c = await connect(t.env);
    // Unsanitised, the paste would end at ESC[201~ and the newline after it would submit "first line" alone.
    const prompt = "first line\x1b[201~\nsecond line";
    const l = await c.ok<Launch>("agent_launch", { harness: "claude-code", cwd: proj, trust_project: true, prompt });
    assertEquals(l.initial_prompt.status, "started");
    assertEquals((await runWaiter(t.env, l.wait_process!)).code, 0);
    const s = await c.ok<Sent>("pty_send", { wait: false, session_id: l.session_id, text: prompt });
    assertEquals([s.mode, s.event_cursor], ["agent_dispatch", 1]);
    assertEquals((await runWaiter(t.env, s.wait_process!)).code, 0);
    const prompts = await claudePrompts(t);
    assertEquals(prompts.length, 2, JSON.stringify(prompts));
    // The sub-agent notice is in the CLI's system prompt (--append-system-prompt), not in the typed text.
    assertEquals(prompts[0], "first line\nsecond line");
    assertEquals(prompts[1], "first line\nsecond line");
    assert(!prompts.some((p) => p.includes("\x1b")), "an escape reached the CLI");
  },
);

Deno.test("throughline argument errors come before THROUGHLINE_UNAVAILABLE; nothing starts", opts, async () => {
  const { t, proj } = await agentEnv();
  await using _t = t;
  await using c = await connect({ ...t.env, PATH: "/usr/bin:/bin" });
  const cases: [Record<string, unknown>, string][] = [
    [{ throughline_supplement_file: "/tmp/supplement.json", prompt: "x" }, "INVALID_ARGUMENT"],
    [{ throughline_source_session: "source_1" }, "INVALID_ARGUMENT"],
    [{ throughline_source_session: "source_1", prompt: "   " }, "INVALID_ARGUMENT"],
    [{ throughline_source_session: "source_1", prompt: "mission" }, "THROUGHLINE_UNAVAILABLE"],
  ];
  for (const [args, code] of cases) {
    const e = await c.err("agent_launch", { harness: "claude-code", cwd: proj, ...args });
    assertEquals(e.code, code, JSON.stringify(args));
  }
  assertEquals((await c.ok<{ sessions: unknown[] }>("pty_list")).sessions.length, 0);
});

Deno.test("a garbage inherited AITERM_DELEGATION_DEPTH is refused before anything starts", opts, async () => {
  for (const depth of ["two", "-1", "1.5", "9999999"]) {
    const { t, proj } = await agentEnv({ AITERM_DELEGATION_DEPTH: depth });
    await using _t = t;
    await using c = await connect(t.env);
    const e = await c.err("agent_launch", { harness: "codex-cli", cwd: proj });
    assertEquals(e.code, "LINEAGE_INVALID", depth);
    assertStringIncludes(e.message, "AITERM_DELEGATION_DEPTH");
    assertEquals((await c.ok<{ sessions: unknown[] }>("pty_list")).sessions.length, 0);
  }
});

Deno.test("agent_configure and agent_approval on an unknown session are SESSION_NOT_FOUND", opts, async () => {
  const { t } = await agentEnv();
  await using _t = t;
  await using c = await connect(t.env);
  assertEquals((await c.err("agent_configure", { session_id: "nope", model: "sonnet" })).code, "SESSION_NOT_FOUND");
  assertEquals((await c.err("agent_approval", { action: "inspect", session_id: "nope" })).code, "SESSION_NOT_FOUND");
  assertEquals(
    (await c.err("pty_read", { session_id: "nope", agent_transcript: true })).code,
    "SESSION_NOT_FOUND",
  );
  // A session that exists but has no agent keeps its own code.
  const plain = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  assertEquals(
    (await c.err("agent_configure", { session_id: plain.session_id, model: "sonnet" })).code,
    "AGENT_SESSION_REQUIRED",
  );
});

Deno.test("pty_read agent_transcript without cursor during the first turn is AGENT_RESULT_PENDING", opts, async () => {
  const { t, proj } = await agentEnv();
  await using _t = t;
  await using c = await connect(t.env);
  const l = await c.ok<Launch>("agent_launch", {
    harness: "claude-code",
    cwd: proj,
    trust_project: true,
    prompt: "SLOW first turn",
  });
  const e = await c.err("pty_read", { session_id: l.session_id, agent_transcript: true });
  assertEquals(e.code, "AGENT_RESULT_PENDING");
  assertEquals((await runWaiter(t.env, l.wait_process!)).code, 0);
  const a = await c.ok<{ text: string; cursor: number }>("pty_read", {
    session_id: l.session_id,
    agent_transcript: true,
  });
  assertEquals(a.cursor, 0);
  assertStringIncludes(a.text, "ANSWER(");
});

Deno.test("a second codex-cli launch in the same directory correlates its own rollout (cursor 0)", opts, async () => {
  const { t, proj } = await agentEnv();
  await using _t = t;
  await using c = await connect(t.env);
  const first = await c.ok<Launch>("agent_launch", { harness: "codex-cli", cwd: proj, prompt: "task of the first" });
  assertEquals((await runWaiter(t.env, first.wait_process!)).code, 0);
  await c.ok<Sent>("pty_send", { wait: false, session_id: first.session_id, text: "more for the first" });
  const second = await c.ok<Launch>("agent_launch", { harness: "codex-cli", cwd: proj, prompt: "task of the second" });
  assertEquals(second.event_cursor, 0);
  assertEquals((await runWaiter(t.env, second.wait_process!)).code, 0);
  const a = await c.ok<{ text: string }>("pty_read", {
    session_id: second.session_id,
    agent_transcript: true,
    cursor: 0,
  });
  assertStringIncludes(a.text, "ANSWER(task of the second)");
  // Pinned to the first launch's rollout, its turn 1 would be "more for the first".
  const e = await c.err("pty_read", { session_id: second.session_id, agent_transcript: true, cursor: 1 });
  assertEquals(e.code, "AGENT_RESULT_PENDING");
});
