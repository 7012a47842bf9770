/**
 * The turn waiter wakes on the harness's write (a file watch, platform/file_waker.ts), not on a timer:
 * waitForTurn with its fallback tick set far beyond the test's timeout, so only a watch can end the
 * wait with `done` well before that timeout.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import type { Terminal } from "../terminal/mod.ts";
import { type AgentRecord, writeAgentRecord } from "./record.ts";
import { waitForTurn } from "./waiter.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

async function tmp(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "aiterm-turnwatch-" }));
}

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
