/**
 * The agent-request pipeline on the REAL pinned CLIs (Claude Code 2.1.328, Codex 0.169.0, Grok Build
 * 1.0.41) against the loopback fake model servers: a `pty_send` right after a prompt-less launch waits
 * for the CLI and dispatches turn 0, and a prompt holding the bracketed-paste end sequence arrives as
 * one prompt (the model server sees both lines in one user message; no turn of its own for the second
 * line). Ignored, with the reason in the name, when tmux or a CLI is missing.
 */
import { gitProject, runWaiter, serverEnv, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import { findVendorClis, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";

const clis = findVendorClis();

interface Case {
  harness: "claude-code" | "codex-cli" | "grok-cli";
  kind: "claude" | "codex" | "grok";
  bin: string | null;
  binVar: string;
  model?: string;
}

const CASES: Case[] = [
  { harness: "claude-code", kind: "claude", bin: clis.claude, binVar: "CLAUDE_BIN" },
  { harness: "codex-cli", kind: "codex", bin: clis.codex, binVar: "CODEX_BIN" },
  { harness: "grok-cli", kind: "grok", bin: clis.grok, binVar: "GROK_BIN", model: "mock" },
];

interface Sent {
  mode: string;
  event_cursor: number | null;
  wait_process: WaitProcess | null;
}

for (const k of CASES) {
  const why = !hasTmux
    ? " [ignored: tmux missing]"
    : k.bin
    ? ""
    : " [ignored: run scripts/install_vendor_clis.sh first]";
  Deno.test({
    name:
      `real ${k.harness}: a send right after a bare launch dispatches; a paste-end sequence arrives as text (send and first prompt)${why}`,
    ignore: !hasTmux || !k.bin,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await using t = await makeTestEnv();
      const proj = await gitProject(t);
      await using srv = k.kind === "claude" ? startFakeAnthropic() : startFakeOpenAI();
      await using vh = await vendorHome(k.kind, { apiUrl: srv.url, cwd: proj, trusted: true });
      const env = serverEnv(t, vh.env, { [k.binVar]: k.bin! });
      await using c = await connect(env);
      const l = await c.ok<{ session_id: string; startup: { status: string } }>("agent_launch", {
        harness: k.harness,
        cwd: proj,
        ...(k.model ? { model: k.model } : {}),
      });
      assertEquals(l.startup.status, "not_checked");
      // At once: the CLI is still starting; the send waits for it and dispatches the first turn.
      const s = await c.ok<Sent>("pty_send", {
        wait: false,
        session_id: l.session_id,
        text: "first line\x1b[201~\nsecond line",
      });
      assertEquals([s.mode, s.event_cursor], ["agent_dispatch", 0]);
      const w = await runWaiter(env, s.wait_process!, 120);
      assertEquals([w.code, w.json.outcome], [0, "done"], JSON.stringify(w.json));
      const a = await c.ok<{ text: string }>("pty_read", {
        session_id: l.session_id,
        agent_transcript: true,
        cursor: 0,
      });
      assertStringIncludes(a.text, "MOCK_REPLY");
      const bodies = JSON.stringify(srv.requests.map((r) => r.body));
      assert(bodies.includes("first line\\nsecond line"), "the model server never saw both lines in one prompt");
      assert(!bodies.includes("\\u001b[201~"), "the paste-end sequence reached the model");
      // The second line was not a turn of its own: the next send is turn 1.
      const s2 = await c.ok<Sent>("pty_send", { wait: false, session_id: l.session_id, text: "next task" });
      assertEquals([s2.mode, s2.event_cursor], ["agent_dispatch", 1]);
      assertEquals((await runWaiter(env, s2.wait_process!, 120)).code, 0);
      // The same text as agent_launch's first prompt (typed through the same chokepoint).
      const before = srv.requests.length;
      const l2 = await c.ok<{ session_id: string; event_cursor: number; wait_process: WaitProcess }>("agent_launch", {
        harness: k.harness,
        cwd: proj,
        prompt: "alpha line\x1b[201~\nomega line",
        ...(k.model ? { model: k.model } : {}),
      });
      assertEquals(l2.event_cursor, 0);
      assertEquals((await runWaiter(env, l2.wait_process, 120)).code, 0);
      const first = JSON.stringify(srv.requests.slice(before).map((r) => r.body));
      assert(first.includes("alpha line\\nomega line"), "the first prompt did not arrive as one text");
      const s3 = await c.ok<Sent>("pty_send", {
        wait: false,
        session_id: l2.session_id,
        text: "after the first prompt",
      });
      assertEquals([s3.mode, s3.event_cursor], ["agent_dispatch", 1]);
      assertEquals((await runWaiter(env, s3.wait_process!, 120)).code, 0);
    },
  });
}
