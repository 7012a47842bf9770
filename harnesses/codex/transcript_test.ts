/** The Codex CLI's rollout location and turn parser. */
import { join } from "node:path";
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { TESTDATA } from "../common/test_kit.ts";
import { locateCodexRollouts, parseCodexTurns } from "./transcript.ts";

const dir = TESTDATA;

const meta = (cwd: string) =>
  JSON.stringify({ timestamp: "t", ordinal: 0, type: "session_meta", payload: { id: "x", cwd } });

Deno.test("locateCodexRollouts() finds this cwd's rollouts written since launch, newest first", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const cwd = await Deno.realPath(tmp);
    const now = Date.UTC(2026, 11, 2, 0, 30);
    const since = now - 600_000;
    const today = join(tmp, "ch", "sessions", "2026", "12", "02");
    const yesterday = join(tmp, "ch", "sessions", "2026", "12", "01");
    await Deno.mkdir(today, { recursive: true });
    await Deno.mkdir(yesterday, { recursive: true });
    const write = async (path: string, body: string, mtime: number) => {
      await Deno.writeTextFile(path, body);
      await Deno.utime(path, new Date(mtime), new Date(mtime));
    };
    await write(join(yesterday, "rollout-a.jsonl"), meta(cwd) + "\n{}\n", since + 1_000);
    await write(join(today, "rollout-b.jsonl"), meta(cwd) + "\n", since + 5_000);
    await write(join(today, "rollout-other.jsonl"), meta("/elsewhere") + "\n", since + 6_000);
    await write(join(today, "rollout-old.jsonl"), meta(cwd) + "\n", since - 60_000);
    await write(join(today, "notes.jsonl"), meta(cwd) + "\n", since + 7_000);
    await write(join(today, "rollout-torn.jsonl"), '{"type":"session_me', since + 8_000);
    const env = { CODEX_HOME: join(tmp, "ch"), HOME: "/nonexistent" };
    const found = await locateCodexRollouts({ cwd, env, since, pinnedSessionId: null }, now);
    assertEquals(found, [join(today, "rollout-b.jsonl"), join(yesterday, "rollout-a.jsonl")]);
    const none = await locateCodexRollouts({ cwd, env: { HOME: tmp }, since, pinnedSessionId: null }, now);
    assertEquals(none, []);
    // A session that began before the launch (another launch in this cwd, still writing) is never a candidate.
    const began = (ms: number) =>
      JSON.stringify({ type: "session_meta", payload: { id: "y", cwd, timestamp: new Date(ms).toISOString() } });
    await write(join(today, "rollout-earlier-launch.jsonl"), began(since - 30_000) + "\n", since + 9_000);
    await write(join(today, "rollout-this-launch.jsonl"), began(since + 1_500) + "\n", since + 9_500);
    const mine = await locateCodexRollouts({ cwd, env, since, pinnedSessionId: null }, now);
    assertEquals(mine.slice(0, 1), [join(today, "rollout-this-launch.jsonl")]);
    assert(!mine.includes(join(today, "rollout-earlier-launch.jsonl")), JSON.stringify(mine));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("parseCodexTurns() reads the 0.171 reference rollout", () => {
  const text = Deno.readTextFileSync(new URL("samples/codex-rollout.jsonl", dir));
  const turns = parseCodexTurns(text);
  assertEquals(turns.map((t) => [t.index, t.prompt, t.status]), [
    [0, "hello codex mock", "done"],
    [1, "SLOW please", "done"],
    [2, "TOOLCALL now", "done"],
    [3, "MCPCALL now", "done"],
    [4, "MCPCALL again", "done"],
    [5, "MCPCALL third", "done"],
    [6, "ERR400 now", "error"],
    [7, "queued hello", "done"],
    [8, "SLOW then interrupt", "interrupted"],
  ]);
  assertEquals(turns[0]!.turnId, "01a236fc-282b-7391-b55e-43c080e5cd3d");
  assertEquals(turns[0]!.answer, "MOCK_REPLY line one.\nSecond line for: hello codex mock");
  assertEquals(
    turns[6]!.error,
    '{"error":{"type":"invalid_request_error","code":"mock_error","message":"Mock 400 error"}}',
  );
  const cut = text.slice(0, text.indexOf('"type":"task_complete","root_turn_id":"01a236fc-bd61') + 30);
  const torn = parseCodexTurns(cut);
  assertEquals(torn.map((t) => t.status), ["done", "running"]);
});

Deno.test("parseCodexTurns() reads a real 0.169.0 rollout: a steered turn, an API error, a tool call", () => {
  const text = Deno.readTextFileSync(new URL("samples/real-0.169.0-rollout.jsonl", dir));
  const turns = parseCodexTurns(text);
  assertEquals(turns.map((t) => [t.index, t.prompt, t.status, t.answer]), [
    [0, "SLOW first", "done", "MOCK_REPLY steer text here"], // the steer joined the running turn
    [1, "ERR400 now", "error", null],
    [2, "TOOLCALL go", "done", "MOCK_AFTER_TOOL done."],
  ]);
  assertEquals(turns[0]!.turnId, "01a23792-b25d-7573-b056-9bbd5ecf901a");
  assertEquals(
    turns[1]!.error,
    '{"error":{"message":"Mock 400 error","type":"invalid_request_error","param":null,"code":"mock_error"}}',
  );
  // Every prefix of the file (a live read): never more turns, and a turn is never done early.
  const lines = text.split("\n");
  for (let n = 0; n <= lines.length; n++) {
    const part = parseCodexTurns(lines.slice(0, n).join("\n"));
    assert(part.length <= turns.length, `prefix ${n}`);
    for (const t of part) if (t.status !== "running") assertEquals(t, turns[t.index], `prefix ${n}`);
  }
});

Deno.test("parseCodexTurns() accepts the older user_message / agent_message layout", () => {
  const ev = (payload: Record<string, unknown>) => JSON.stringify({ timestamp: "t", type: "event_msg", payload });
  const text = [
    ev({ type: "user_message", message: "first" }),
    ev({ type: "task_started", model_context_window: 1 }),
    ev({ type: "agent_message", message: "one" }),
    ev({ type: "task_complete", last_agent_message: null }),
    ev({ type: "task_started" }),
    ev({ type: "user_message", message: "second" }),
    ev({ type: "turn_aborted", reason: "interrupted" }),
    ev({ type: "task_started", turn_id: "t3" }),
    ev({ type: "user_message", message: "third" }),
    ev({ type: "agent_message", message: "three" }),
    ev({ type: "task_complete", turn_id: "t3", last_agent_message: "three!" }),
  ].join("\n");
  assertEquals(parseCodexTurns(text).map((t) => [t.turnId, t.prompt, t.status, t.answer]), [
    ["turn-0", "first", "done", "one"],
    ["turn-1", "second", "interrupted", null],
    ["t3", "third", "done", "three!"],
  ]);
});
