/**
 * cursor-cli through MCP on real tmux, with the fake `cursor-agent` of tests/fixtures/bin (it submits only
 * on the extended keyboard Enter, keeps text sent during a turn in its follow-ups area until
 * "enter steer", and writes one turn_ended per turn into its agent transcript).
 */
import { runWaiter, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const hasNode = (() => {
  try {
    return new Deno.Command("node", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
})();
const opts = { ignore: !hasTmux || !hasNode, sanitizeOps: false, sanitizeResources: false };

interface Launch {
  session_id: string;
  startup: { status: string; reason: string };
  initial_prompt: { status: string; reason: string; turn_started: boolean | null };
  event_cursor: number | null;
  wait_process: WaitProcess | null;
  submit_residue: boolean | null;
}

async function cursorEnv(extra: Record<string, string> = {}): Promise<TestEnv> {
  const t = await makeTestEnv(extra);
  t.env.CURSOR_AGENT_BIN = `${FIXTURE_BIN}cursor-agent`;
  t.env.FAKE_ARGV_LOG = `${t.root}/argv.log`;
  t.env.FAKE_KEY_LOG = `${t.root}/keys.log`;
  await Deno.mkdir(`${t.root}/proj`);
  return t;
}

async function answer(c: TestClient, session_id: string, cursor: number): Promise<string> {
  return (await c.ok<{ text: string }>("pty_read", { session_id, agent_transcript: true, cursor })).text;
}

Deno.test("cursor-cli: trust + prompt, answer, second turn, steer into a slow turn", opts, async () => {
  await using t = await cursorEnv();
  await using c = await connect(t.env);
  const l = await c.ok<Launch>("agent_launch", {
    harness: "cursor-cli",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "first task",
  });
  assertEquals(l.startup, { status: "ready", reason: "input_accepted" });
  assertEquals(l.initial_prompt.status, "started");
  assertEquals([l.event_cursor, l.submit_residue], [0, false]);
  assert(l.wait_process, "no wait_process");
  const w = await runWaiter(t.env, l.wait_process);
  assertEquals([w.code, w.json.outcome], [0, "done"]);
  assertStringIncludes(await answer(c, l.session_id, 0), "ANSWER(");

  const s2 = await c.ok<{ mode: string; event_cursor: number; wait_process: WaitProcess }>("pty_send", {
    session_id: l.session_id,
    text: "second task",
  });
  assertEquals([s2.mode, s2.event_cursor], ["agent_dispatch", 1]);
  assertEquals((await runWaiter(t.env, s2.wait_process)).code, 0);
  assertStringIncludes(await answer(c, l.session_id, 1), "ANSWER(second task)");

  const slow = await c.ok<{ event_cursor: number; wait_process: WaitProcess }>("pty_send", {
    session_id: l.session_id,
    text: "SLOW third task",
  });
  assertEquals(slow.event_cursor, 2);
  await eventually(async () => {
    const o = await c.ok<{ text: string }>("pty_read", { session_id: l.session_id, screen: true });
    return o.text.includes("ctrl+c to stop");
  });
  const steer = await c.ok<
    { mode: string; event_cursor: number | null; joined_event_cursor: number | null; submit_residue: boolean }
  >("pty_send", { session_id: l.session_id, text: "also consider this" });
  assertEquals(
    [steer.mode, steer.event_cursor, steer.joined_event_cursor, steer.submit_residue],
    ["agent_steer", null, 2, false],
  );
  assertEquals((await runWaiter(t.env, slow.wait_process)).code, 0);
  const third = await answer(c, l.session_id, 2);
  assertStringIncludes(third, "ANSWER(SLOW third task)");
  assertStringIncludes(third, "STEERED(also consider this)");
  // One completion: the steer opened no turn of its own.
  await assertNoTurn(c, l.session_id, 3);
  const argv = await Deno.readTextFile(`${t.root}/argv.log`);
  assert(!argv.includes("--trust"), "trust must come from the dialog, not a flag");
  // Every submit reached the CLI as one read holding exactly the CSI u Enter (the paste is separate).
  const reads = (await Deno.readTextFile(`${t.root}/keys.log`)).split("\n").filter(Boolean).map((l) => JSON.parse(l));
  assert(reads.length >= 6, `too few CSI u reads: ${reads.length}`);
  for (const r of reads) assertEquals(r, "\x1b[13u");
});

async function assertNoTurn(c: TestClient, session_id: string, cursor: number): Promise<void> {
  const e = await c.err("pty_read", { session_id, agent_transcript: true, cursor });
  assertEquals(e.code, "AGENT_RESULT_PENDING");
}

Deno.test("cursor-cli: a follow-up that is never steered is reported as residue", opts, async () => {
  await using t = await cursorEnv({ FAKE_CURSOR_NO_STEER: "1" });
  await using c = await connect(t.env);
  const l = await c.ok<Launch>("agent_launch", {
    harness: "cursor-cli",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "SLOW first",
  });
  assertEquals(l.initial_prompt.status, "started");
  await eventually(async () => {
    const o = await c.ok<{ text: string }>("pty_read", { session_id: l.session_id, screen: true });
    return o.text.includes("ctrl+c to stop");
  });
  const steer = await c.ok<{ mode: string; submit_residue: boolean }>("pty_send", {
    session_id: l.session_id,
    text: "left in follow-ups",
  });
  assertEquals([steer.mode, steer.submit_residue], ["agent_steer", true]);
});

Deno.test("cursor-cli: an API error ends the turn with aiterm-wait exit 7", opts, async () => {
  await using t = await cursorEnv();
  await using c = await connect(t.env);
  const l = await c.ok<Launch>("agent_launch", {
    harness: "cursor-cli",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "APIERR please",
  });
  const w = await runWaiter(t.env, l.wait_process!);
  assertEquals([w.code, w.json.outcome], [7, "error"]);
  assertStringIncludes(String(w.json.error), "API Error: 400");
  assertEquals(
    (await c.err("pty_read", { session_id: l.session_id, agent_transcript: true, cursor: 0 })).code,
    "AGENT_TURN_ERROR",
  );
  const s = await c.ok<{ mode: string; event_cursor: number }>("pty_send", {
    session_id: l.session_id,
    text: "after the error",
  });
  assertEquals([s.mode, s.event_cursor], ["agent_dispatch", 1]);
});

Deno.test("cursor-cli: without trust_project the trust dialog blocks and nothing is typed", opts, async () => {
  await using t = await cursorEnv();
  await using c = await connect(t.env);
  const l = await c.ok<Launch>("agent_launch", { harness: "cursor-cli", cwd: `${t.root}/proj`, prompt: "never typed" });
  assertEquals(l.startup, { status: "blocked", reason: "trust_required" });
  assertEquals(l.initial_prompt.status, "not_sent");
});

Deno.test("cursor-cli: reasoning_effort needs a model and must be one of that model's efforts", opts, async () => {
  await using t = await cursorEnv();
  await using c = await connect(t.env);
  const cwd = `${t.root}/proj`;
  assertEquals(
    (await c.err("agent_launch", { harness: "cursor-cli", cwd, reasoning_effort: "high" })).code,
    "EFFORT_UNSUPPORTED",
  );
  assertEquals(
    (await c.err("agent_launch", { harness: "cursor-cli", cwd, model: "claude-opus-4-8", reasoning_effort: "medium" }))
      .code,
    "EFFORT_UNSUPPORTED",
  );
  assertEquals((await c.err("agent_launch", { harness: "cursor-cli", cwd, model: "nope-1" })).code, "MODEL_UNKNOWN");
  await c.ok<Launch>("agent_launch", {
    harness: "cursor-cli",
    cwd,
    model: "claude-opus-4-8",
    reasoning_effort: "high",
  });
  const argv = await eventually(async () => {
    const text = await Deno.readTextFile(`${t.root}/argv.log`).catch(() => "");
    return text.includes("[effort=high]") ? text : null;
  });
  assertStringIncludes(argv, '"--model","claude-opus-4-8[effort=high]"');
});
