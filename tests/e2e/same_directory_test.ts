/**
 * Several Codex launches in one directory (a parent fanning out work), through the real MCP client on real
 * tmux with the fake codex CLI. Codex names no session at launch, so aiterm finds each launch's rollout in
 * the directory and pins it; another launch's rollout must never be taken, however close together the
 * launches are: back to back (the first's rollout is the only one there when the second sends), and at once.
 */
import { runWaiter, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const hasFakes = await Deno.stat(`${FIXTURE_BIN}codex`).then(() => true, () => false);
const opts = { ignore: !hasTmux || !hasFakes, sanitizeOps: false, sanitizeResources: false };

interface Launch {
  session_id: string;
  event_cursor: number | null;
  wait_process: WaitProcess | null;
}

interface Sent {
  mode: string;
  event_cursor: number | null;
  wait_process: WaitProcess | null;
}

/** A test env with the fake codex and a project directory (real path) `proj`. */
async function codexEnv(): Promise<{ t: TestEnv; proj: string }> {
  const t = await makeTestEnv();
  t.env.CODEX_BIN = `${FIXTURE_BIN}codex`;
  t.env.CODEX_HOME = `${t.home}/.codex`;
  await Deno.mkdir(`${t.root}/proj`);
  return { t, proj: await Deno.realPath(`${t.root}/proj`) };
}

/** The rollout a session's agent record pinned (null: none yet). */
async function pinnedRollout(t: TestEnv, sid: string): Promise<string | null> {
  const rec = JSON.parse(await Deno.readTextFile(`${t.stateDir}/sessions/${sid}/agent.json`));
  return rec.transcript_path ?? null;
}

/** Sends `text` as a new turn, waits for it, and checks that turn `cursor` answers exactly it. */
async function turnAnswers(c: TestClient, t: TestEnv, sid: string, text: string, cursor: number): Promise<void> {
  const s = await c.ok<Sent>("pty_send", { wait: false, session_id: sid, text });
  assertEquals([s.mode, s.event_cursor], ["agent_dispatch", cursor], `${sid}: ${text}`);
  await answers(c, t, sid, s.wait_process!, cursor, text);
}

/** Waits for turn `cursor` of `sid` and checks its answer is the fake's answer to `text`. */
async function answers(
  c: TestClient,
  t: TestEnv,
  sid: string,
  wp: WaitProcess,
  cursor: number,
  text: string,
): Promise<void> {
  const w = await runWaiter(t.env, wp);
  assertEquals([w.code, w.json.outcome], [0, "done"], `${sid} turn ${cursor}: ${JSON.stringify(w.json)}`);
  const a = await c.ok<{ text: string }>("pty_read", { session_id: sid, agent_transcript: true, cursor });
  assertStringIncludes(a.text, `ANSWER(${text})`);
}

Deno.test("codex-cli back to back in one directory: each launch pins its own rollout", opts, async () => {
  const { t, proj } = await codexEnv();
  await using _t = t;
  await using c = await connect(t.env);
  // The first starts its turn (its rollout appears); the second is launched bare right after it, and its
  // first send comes while the first's rollout is the only one in the directory.
  const a = await c.ok<Launch>("agent_launch", { harness: "codex-cli", cwd: proj, prompt: "alpha; $(x) {y} #z" });
  const b = await c.ok<Launch>("agent_launch", { harness: "codex-cli", cwd: proj });
  assertEquals(a.event_cursor, 0);
  await turnAnswers(c, t, b.session_id, "bravo [1] \\ ;", 0);
  await answers(c, t, a.session_id, a.wait_process!, 0, "alpha; $(x) {y} #z");
  const [ra, rb] = [await pinnedRollout(t, a.session_id), await pinnedRollout(t, b.session_id)];
  assert(ra && rb && ra !== rb, `the two launches pinned ${ra} and ${rb}`);
  // Later turns stay apart: each is turn 1 of its own launch.
  await turnAnswers(c, t, a.session_id, "alpha again", 1);
  await turnAnswers(c, t, b.session_id, "bravo again", 1);
  // A third launch with a prompt, right after both have two turns: its first turn is turn 0.
  const d = await c.ok<Launch>("agent_launch", { harness: "codex-cli", cwd: proj, prompt: "delta" });
  assertEquals(d.event_cursor, 0);
  await answers(c, t, d.session_id, d.wait_process!, 0, "delta");
  const rd = await pinnedRollout(t, d.session_id);
  assert(rd && rd !== ra && rd !== rb, `the third launch pinned ${rd}`);
  const e = await c.err("pty_read", { session_id: d.session_id, agent_transcript: true, cursor: 1 });
  assertEquals(e.code, "AGENT_RESULT_PENDING");
});

Deno.test("codex-cli launched at once in one directory: each gets its own rollout and answers", opts, async () => {
  const { t, proj } = await codexEnv();
  await using _t = t;
  await using c = await connect(t.env);
  const prompts = ["first of three", "second of three", "third of three"];
  // Two with a prompt and one bare, all at once; the bare one is sent to while the others run.
  const launched = await Promise.all([
    c.ok<Launch>("agent_launch", { harness: "codex-cli", cwd: proj, prompt: prompts[0] }),
    c.ok<Launch>("agent_launch", { harness: "codex-cli", cwd: proj, prompt: prompts[1] }),
    c.ok<Launch>("agent_launch", { harness: "codex-cli", cwd: proj }),
  ]);
  const bare = launched[2]!;
  const sent = await c.ok<Sent>("pty_send", { wait: false, session_id: bare.session_id, text: prompts[2] });
  assertEquals([launched[0]!.event_cursor, launched[1]!.event_cursor, sent.event_cursor], [0, 0, 0]);
  const waits = [launched[0]!.wait_process!, launched[1]!.wait_process!, sent.wait_process!];
  await Promise.all(launched.map((l, i) => answers(c, t, l.session_id, waits[i]!, 0, prompts[i]!)));
  const pinned = await Promise.all(launched.map((l) => pinnedRollout(t, l.session_id)));
  assertEquals(new Set(pinned.filter((p) => p !== null)).size, 3, JSON.stringify(pinned));
  // Follow-ups sent to all three at once: each is turn 1 of its own launch, with its own answer.
  await Promise.all(launched.map((l, i) => turnAnswers(c, t, l.session_id, `then ${i}`, 1)));
});
