import { assertEquals } from "../../tests/helpers/assert.ts";
import { join } from "node:path";
import { getHarness } from "../../harnesses/mod.ts";
import type { AgentRecord } from "./record.ts";
import { loadTurns, promptMatches, withSentPrompt } from "./turns.ts";

const codex = getHarness("codex-cli")!;

/** A temp CODEX_HOME, project and state root; `rollout` writes a rollout whose first turn has `prompt`. */
async function world() {
  const root = await Deno.makeTempDir();
  const home = join(root, "codex");
  const cwd = join(root, "proj");
  const sessions = join(root, "state", "sessions");
  await Deno.mkdir(cwd);
  await Deno.mkdir(join(sessions, "me"), { recursive: true });
  const now = new Date();
  const day = join(
    home,
    "sessions",
    String(now.getUTCFullYear()),
    String(now.getUTCMonth() + 1).padStart(2, "0"),
    String(now.getUTCDate()).padStart(2, "0"),
  );
  await Deno.mkdir(day, { recursive: true });
  let n = 0;
  const rollout = async (prompt: string): Promise<string> => {
    const path = join(day, `rollout-x-${n++}.jsonl`);
    const ts = new Date().toISOString();
    const lines = [
      { timestamp: ts, type: "session_meta", payload: { id: `t${n}`, timestamp: ts, cwd } },
      { timestamp: ts, type: "event_msg", payload: { type: "task_started", turn_id: `u${n}` } },
      { timestamp: ts, type: "event_msg", payload: { type: "user_message", message: prompt } },
    ];
    await Deno.writeTextFile(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    return path;
  };
  const rec = (extra: Partial<AgentRecord> = {}): AgentRecord => ({
    schema: "aiterm.agent.v1",
    launch_id: "l",
    harness: "codex-cli",
    session_id: "me",
    cwd,
    created_at_ms: Date.now() - 500,
    pinned_session_id: null,
    transcript_path: null,
    lineage: {
      agent_role: "subagent",
      parent_session_id: null,
      delegation_depth: 1,
      lineage: ["me"],
      delegation_allowed: true,
    },
    preface_pending: false,
    model: null,
    reasoning_effort: null,
    write_scope: null,
    launch_operation_id: null,
    active_turn: null,
    sent_prompts: [],
    ...extra,
  });
  const env = { CODEX_HOME: home, HOME: root };
  const load = (r: AgentRecord) => loadTurns(codex, r, { env, sessionDir: join(sessions, "me") });
  return { root, sessions, rollout, rec, load, [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }) };
}

Deno.test("loadTurns() never takes another launch's lone rollout; it takes the one its typed text started", async () => {
  await using w = await world();
  const theirs = await w.rollout("alpha task");
  // Nothing typed yet (a bare launch): the lone rollout in the directory is not this launch's.
  assertEquals((await w.load(w.rec())).path, null);
  // Typed "bravo", and the lone rollout's first prompt is another: still not this launch's.
  const sent = withSentPrompt(w.rec(), "bravo task");
  assertEquals(sent.sent_prompts, ["bravo task"]);
  assertEquals((await w.load(sent)).path, null);
  // Its own rollout appears: that one is taken, with its turns.
  const mine = await w.rollout("bravo task");
  const got = await w.load(sent);
  assertEquals([got.path, got.newlyPinned, got.turns[0]?.prompt], [mine, true, "bravo task"]);
  assertEquals((await w.load(withSentPrompt(w.rec(), "alpha task"))).path, theirs);
});

Deno.test("loadTurns() leaves a rollout another session pinned, and two rollouts of the same text undecided", async () => {
  await using w = await world();
  const first = await w.rollout("same text");
  const second = await w.rollout("same text");
  const sent = withSentPrompt(w.rec(), "same text");
  assertEquals((await w.load(sent)).path, null);
  await Deno.mkdir(join(w.sessions, "other"));
  await Deno.writeTextFile(
    join(w.sessions, "other", "agent.json"),
    JSON.stringify({ ...w.rec({ session_id: "other", transcript_path: first }) }),
  );
  assertEquals((await w.load(sent)).path, second);
});

Deno.test("loadTurns() keeps the old lone-candidate rule for a record without sent_prompts", async () => {
  await using w = await world();
  const only = await w.rollout("whatever");
  const legacy = w.rec();
  delete legacy.sent_prompts;
  assertEquals((await w.load(legacy)).path, only);
});

Deno.test("promptMatches() and withSentPrompt()", () => {
  assertEquals(promptMatches("fix the bug in a.ts", "fix the bug in a.ts"), true);
  // A harness that records less than was typed (no attached-images note).
  assertEquals(
    promptMatches("look at this picture please", "look at this picture please\n\n[attached images: a.png]"),
    true,
  );
  // A short record is no evidence of a longer text that merely contains it.
  assertEquals(promptMatches("go", "go on and fix it"), false);
  assertEquals(promptMatches("fix", "prefix it"), false);
  assertEquals(promptMatches(null, "x"), false);
  assertEquals(promptMatches("  ", ""), false);
  const long = "x".repeat(500);
  assertEquals(
    promptMatches(
      long,
      withSentPrompt(
        {
          transcript_path: null,
          pinned_session_id: null,
        } as AgentRecord,
        long,
      ).sent_prompts![0]!,
    ),
    true,
  );
  // Pinned: nothing more is kept; at most 8 texts are.
  const pinned = { transcript_path: "/t", pinned_session_id: null } as AgentRecord;
  assertEquals(withSentPrompt(pinned, "a"), pinned);
  let r = { transcript_path: null, pinned_session_id: null } as AgentRecord;
  for (let i = 0; i < 10; i++) r = withSentPrompt(r, ` t${i} `);
  assertEquals(r.sent_prompts, ["t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"]);
});
