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
    wait: false,
    session_id: l.session_id,
    text: "second task",
  });
  assertEquals([s2.mode, s2.event_cursor], ["agent_dispatch", 1]);
  assertEquals((await runWaiter(t.env, s2.wait_process)).code, 0);
  assertStringIncludes(await answer(c, l.session_id, 1), "ANSWER(second task)");

  const slow = await c.ok<{ event_cursor: number; wait_process: WaitProcess }>("pty_send", {
    wait: false,
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
  >("pty_send", { wait: false, session_id: l.session_id, text: "also consider this" });
  assertEquals(
    [steer.mode, steer.event_cursor, steer.joined_event_cursor, steer.submit_residue],
    ["agent_steer", null, 2, false],
  );
  assertEquals((await runWaiter(t.env, slow.wait_process)).code, 0);
  const third = await answer(c, l.session_id, 2);
  assertStringIncludes(third, "ANSWER(SLOW third task)");
  assertStringIncludes(third, "STEERED(also consider this)");
  // One completion: the steer opened no turn of its own, and every turn has exactly one turn_ended.
  await assertNoTurn(c, l.session_id, 3);
  const records = await transcriptRecords(t);
  assertEquals(records.filter((r) => r.type === "turn_ended").length, 3);
  const steered = records.find((r) => r.role === "user" && JSON.stringify(r).includes("also consider this"));
  assert(steered, "the steered text is in the transcript");
  const steeredTurn = records.filter((r) => r.generation_id === steered.generation_id);
  assertEquals(steeredTurn.filter((r) => r.type === "turn_ended").length, 1);
  const argv = await Deno.readTextFile(`${t.root}/argv.log`);
  assert(!argv.includes("--trust"), "trust must come from the dialog, not a flag");
  // Every submit reached the CLI as one read holding exactly the CSI u Enter (the paste is separate).
  const reads = (await Deno.readTextFile(`${t.root}/keys.log`)).split("\n").filter(Boolean).map((l) => JSON.parse(l));
  assert(reads.length >= 6, `too few CSI u reads: ${reads.length}`);
  for (const r of reads) assertEquals(r, "\x1b[13u");
});

/** Every record of the session's (only) Cursor agent transcript. */
async function transcriptRecords(t: TestEnv): Promise<Record<string, unknown>[]> {
  const projects = `${t.home}/.cursor/projects`;
  const files: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(`${dir}/${e.name}`);
      else if (e.name.endsWith(".jsonl")) files.push(`${dir}/${e.name}`);
    }
  };
  await walk(projects);
  assertEquals(files.length, 1, JSON.stringify(files));
  return (await Deno.readTextFile(files[0]!)).split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

/** The reads of the fake that carried a CSI sequence (each must be exactly the CSI u Enter). */
async function csiReads(t: TestEnv): Promise<string[]> {
  const text = await Deno.readTextFile(`${t.root}/keys.log`).catch(() => "");
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

async function assertNoTurn(c: TestClient, session_id: string, cursor: number): Promise<void> {
  const e = await c.err("pty_read", { session_id, agent_transcript: true, cursor });
  assertEquals(e.code, "AGENT_RESULT_PENDING");
}

Deno.test("cursor-cli: a follow-up that enter steer does not move is not claimed as a steer", opts, async () => {
  // The turn outlasts the steer attempt, so the follow-up cannot start a turn of its own meanwhile.
  await using t = await cursorEnv({ FAKE_CURSOR_NO_STEER: "1", FAKE_CURSOR_SLOW_MS: "20000" });
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
  const e = await c.err("pty_send", { wait: false, session_id: l.session_id, text: "left in follow-ups" });
  assertEquals(e.code, "AGENT_STEER_NOT_TAKEN", e.text);
  assertStringIncludes(e.message, "still waits in the queue");
  const screen = await c.ok<{ text: string }>("pty_read", { session_id: l.session_id, screen: true });
  assertStringIncludes(screen.text, "› left in follow-ups");
  // First prompt: two CSI u Enters; the steer: two with the submit, one more "enter steer", nothing else.
  assertEquals(await csiReads(t), Array(5).fill("\x1b[13u"));
});

Deno.test("cursor-cli: enter steer as a separate step moves the follow-up into the running turn", opts, async () => {
  // The fake needs two empty-composer Enters: the submit's second one is not enough, the steer step is.
  await using t = await cursorEnv({ FAKE_CURSOR_STEER_PRESSES: "2" });
  await using c = await connect(t.env);
  const l = await c.ok<Launch>("agent_launch", {
    harness: "cursor-cli",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "SLOW first",
  });
  await eventually(async () => {
    const o = await c.ok<{ text: string }>("pty_read", { session_id: l.session_id, screen: true });
    return o.text.includes("ctrl+c to stop");
  });
  const steer = await c.ok<{ mode: string; joined_event_cursor: number | null; submit_residue: boolean }>(
    "pty_send",
    { session_id: l.session_id, text: "steered late" },
  );
  assertEquals([steer.mode, steer.joined_event_cursor, steer.submit_residue], ["agent_steer", 0, false]);
  assertEquals((await runWaiter(t.env, l.wait_process!)).code, 0);
  assertStringIncludes(await answer(c, l.session_id, 0), "STEERED(steered late)");
  await assertNoTurn(c, l.session_id, 1);
  assertEquals((await transcriptRecords(t)).filter((r) => r.type === "turn_ended").length, 1);
  assertEquals(await csiReads(t), Array(5).fill("\x1b[13u"));
});

Deno.test("cursor-cli: text left in the composer during a turn is not claimed as a steer", opts, async () => {
  await using t = await cursorEnv({ FAKE_CURSOR_BUSY_COMPOSER_STUCK: "1", FAKE_CURSOR_SLOW_MS: "20000" });
  await using c = await connect(t.env);
  const l = await c.ok<Launch>("agent_launch", {
    harness: "cursor-cli",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "SLOW first",
  });
  await eventually(async () => {
    const o = await c.ok<{ text: string }>("pty_read", { session_id: l.session_id, screen: true });
    return o.text.includes("ctrl+c to stop");
  });
  const e = await c.err("pty_send", { wait: false, session_id: l.session_id, text: "stuck in the composer" });
  assertEquals(e.code, "AGENT_STEER_NOT_TAKEN", e.text);
  assertStringIncludes(e.message, "stayed in the composer");
  const screen = await c.ok<{ text: string }>("pty_read", { session_id: l.session_id, screen: true });
  assertStringIncludes(screen.text, "→ stuck in the composer");
  // No steer step is pressed for text that never reached the follow-ups.
  assertEquals(await csiReads(t), Array(4).fill("\x1b[13u"));
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
    wait: false,
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
