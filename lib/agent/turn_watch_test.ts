/**
 * The turn waiter wakes on the harness's write (a file watch), not on a timer: FileWaker on real
 * directories, and waitForTurn with its fallback tick set far beyond the test's timeout, so only a
 * watch can end the wait with `done` well before that timeout.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import type { Terminal } from "../terminal/mod.ts";
import { type AgentRecord, writeAgentRecord } from "./record.ts";
import { FileWaker } from "./turn_watch.ts";
import { waitForTurn } from "./waiter.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

async function tmp(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "aiterm-turnwatch-" }));
}

Deno.test("FileWaker wakes when the transcript is appended, and keeps a change seen while busy", opts, async () => {
  const dir = await tmp();
  try {
    const file = join(dir, "t.jsonl");
    await Deno.writeTextFile(file, "{}\n");
    using w = new FileWaker(join(dir, "session"));
    assert(await w.follow(file), "a new watch was started");
    assert(w.watchingTranscript);
    assertEquals(await w.follow(file), false, "the same watch again is not new");
    const woke = w.next(60_000);
    await Deno.writeTextFile(file, "{}\n", { append: true });
    assertEquals(await woke, "change");
    // Written while nobody waits: the next wait returns at once.
    await Deno.writeTextFile(file, "{}\n", { append: true });
    await new Promise((r) => setTimeout(r, 50));
    assertEquals(await w.next(60_000), "change");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileWaker ignores other files in the transcript's directory", opts, async () => {
  const dir = await tmp();
  try {
    const file = join(dir, "mine.jsonl");
    await Deno.writeTextFile(file, "");
    using w = new FileWaker(join(dir, "session"));
    await w.follow(file);
    const woke = w.next(300);
    await Deno.writeTextFile(join(dir, "other.jsonl"), "{}\n");
    assertEquals(await woke, "tick");
    const again = w.next(60_000);
    await Deno.writeTextFile(file, "{}\n", { append: true });
    assertEquals(await again, "change");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileWaker follows a transcript whose directories do not exist yet", opts, async () => {
  const dir = await tmp();
  try {
    const file = join(dir, "projects", "slug", "t.jsonl");
    using w = new FileWaker(join(dir, "session"));
    assert(await w.follow(file), "the nearest existing ancestor is watched");
    assertEquals(w.watchingTranscript, false);
    const woke = w.next(60_000);
    await Deno.mkdir(join(dir, "projects", "slug"), { recursive: true });
    assertEquals(await woke, "change");
    // Climb down as the harness creates the directories, until the transcript's own one is watched.
    for (let i = 0; i < 3 && !w.watchingTranscript; i++) await w.follow(file);
    assert(w.watchingTranscript, "now watching the transcript's own directory");
    const wrote = w.next(60_000);
    await Deno.writeTextFile(file, "{}\n");
    assertEquals(await wrote, "change");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileWaker wakes when the agent record is rewritten, and dispose ends a pending wait", opts, async () => {
  const dir = await tmp();
  try {
    const session = join(dir, "session");
    await Deno.mkdir(session);
    const w = new FileWaker(session);
    assert(w.watchingSession);
    const woke = w.next(60_000);
    await Deno.writeTextFile(join(session, "last_command.json"), "{}");
    await Deno.writeTextFile(join(session, "agent.json"), "{}");
    assertEquals(await woke, "change");
    w[Symbol.dispose]();
    // A fresh waker, so no change of the writes above is still owed to it.
    const quiet = new FileWaker(join(dir, "elsewhere"));
    const pending = quiet.next(60_000);
    quiet[Symbol.dispose]();
    assertEquals(await pending, "aborted");
    assertEquals(await w.next(60_000), "aborted", "a disposed waker never waits");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A Claude Code transcript line set: one prompt, then (with `end`) its answer and turn_duration. */
function claudeTurn(end: boolean): string {
  const lines: unknown[] = [{
    type: "user",
    promptId: "p1",
    uuid: "u1",
    message: { role: "user", content: "hello" },
  }];
  if (end) {
    lines.push({
      type: "assistant",
      message: { model: "claude-x", role: "assistant", content: [{ type: "text", text: "ANSWER" }] },
    });
    lines.push({ type: "system", subtype: "turn_duration", durationMs: 5 });
  }
  return lines.map((l) => JSON.stringify(l) + "\n").join("");
}

Deno.test("waitForTurn ends on the harness's write, not on its fallback tick", opts, async () => {
  const dir = await tmp();
  try {
    const session = join(dir, "sessions", "s1");
    await Deno.mkdir(session, { recursive: true });
    const transcript = join(dir, "projects", "slug", "abc.jsonl");
    const rec: AgentRecord = {
      schema: "aiterm.agent.v1",
      launch_id: "l1",
      harness: "claude-code",
      session_id: "s1",
      cwd: dir,
      created_at_ms: Date.now(),
      pinned_session_id: "abc",
      transcript_path: transcript,
      lineage: {
        agent_role: "subagent",
        parent_session_id: null,
        delegation_depth: 1,
        lineage: ["s1"],
        delegation_allowed: true,
      },
      preface_pending: false,
      model: null,
      reasoning_effort: null,
      write_scope: null,
      launch_operation_id: null,
      active_turn: { index: 0, dispatched_at_ms: Date.now() },
    };
    await writeAgentRecord(session, rec);
    // The harness writes its first record (creating the directory), then the end of the turn, as soon
    // as the waiter has looked once: whichever moment that falls on, no timer is left to save it.
    let looked: () => void = () => {};
    const firstLook = new Promise<void>((r) => (looked = r));
    const pane = () => {
      looked();
      return Promise.resolve({ paneDead: false });
    };
    const terminal = {
      sessionDir: () => session,
      meta: () => Promise.resolve(null),
      pane,
      mux: { paneInfo: pane },
    } as unknown as Terminal;
    const t0 = Date.now();
    const waiting = waitForTurn(terminal, "s1", 0, { timeoutMs: 10_000, env: {}, fallbackTickMs: 600_000 });
    await firstLook;
    await Deno.mkdir(join(dir, "projects", "slug"), { recursive: true });
    await Deno.writeTextFile(transcript, claudeTurn(false));
    await new Promise((r) => setTimeout(r, 100));
    await Deno.writeTextFile(transcript, claudeTurn(true).slice(claudeTurn(false).length), { append: true });
    const out = await waiting;
    assertEquals([out.outcome, out.exit_code, out.turn_id], ["done", 0, "p1"]);
    // Without a watch the only look left is the one at the 10 s deadline.
    const waited = Date.now() - t0;
    assert(waited < 5000, `the verdict came at ${waited} ms, i.e. from the deadline's look, not from the write`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
