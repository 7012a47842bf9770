/**
 * agent_configure through MCP with the REAL pinned Claude Code (2.1.328) and Codex CLI (0.169.0) against
 * the loopback fake model servers: the typed `/model` is submitted once the composer shows it (no fixed
 * pause, ADR 0023's amendment), several changes in a row each confirmed by the CLI, the next turn uses
 * what was asked, and nothing is left open. Grok's is tests/e2e/grok_configure_real_test.ts. Ignored,
 * with the reason in the name, when tmux or the CLI is missing.
 */
import { gitProject, runWaiter, serverEnv, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import { findVendorClis, killProcessesUsing, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";
import type { FakeServer } from "../fixtures/fake_api/mod.ts";
import { claude } from "../../harnesses/claude/adapter.ts";
import { codex } from "../../harnesses/codex/adapter.ts";
import type { HarnessAdapter } from "../../harnesses/mod.ts";

const clis = findVendorClis();
const why = (bin: string | null | undefined) =>
  !hasTmux ? " [ignored: tmux missing]" : bin ? "" : " [ignored: run scripts/install_vendor_clis.sh first]";

interface Configured {
  model: string | null;
  reasoning_effort: string | null;
  confirmations: string[];
}
interface Models {
  models: { id: string; resolved_model: string | null; efforts: string[] }[];
}

const screenOf = async (c: TestClient, sid: string) =>
  (await c.ok<{ text: string }>("pty_read", { session_id: sid, screen: true })).text;

/** The newest conversation request (one with tools; titles and summaries have none). */
function lastTurn(srv: FakeServer): Record<string, unknown> | null {
  const turns = srv.requests
    .map((r) => r.body as { tools?: unknown[] } | null)
    .filter((b) => b && Array.isArray(b.tools) && b.tools.length > 0);
  return (turns[turns.length - 1] as Record<string, unknown> | undefined) ?? null;
}

async function turn(c: TestClient, env: Record<string, string>, sid: string, text: string): Promise<void> {
  const s = await c.ok<{ wait_process: WaitProcess }>("pty_send", { wait: false, session_id: sid, text });
  assertEquals((await runWaiter(env, s.wait_process)).code, 0, await screenOf(c, sid));
}

/** The agent idles at an empty composer: no picker or confirmation left open. */
async function assertSettled(c: TestClient, sid: string, adapter: HarnessAdapter): Promise<void> {
  const screen = await screenOf(c, sid);
  assertEquals(adapter.classifyScreen(screen).kind, "ready", screen);
  assertEquals(adapter.composerText?.(screen) ?? "", "", screen);
}

Deno.test({
  name: `agent_configure: real claude-code 2.1.328, /model and /effort several times in a row${why(clis.claude)}`,
  ignore: !hasTmux || !clis.claude,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    const proj = await gitProject(t);
    await using srv = startFakeAnthropic();
    await using vh = await vendorHome("claude", { apiUrl: srv.url, cwd: proj, trusted: true });
    const env = serverEnv(t, vh.env, { CLAUDE_BIN: clis.claude! });
    await using c = await connect(env);
    let sid = "";
    try {
      const cat = await c.ok<Models>("agent_models", { harness: "claude-code" });
      const resolved = (id: string) => cat.models.find((m) => m.id === id)?.resolved_model;
      const l = await c.ok<{ session_id: string; wait_process: WaitProcess | null }>("agent_launch", {
        harness: "claude-code",
        cwd: proj,
        model: "sonnet",
        prompt: "first task",
      });
      sid = l.session_id;
      assertEquals((await runWaiter(env, l.wait_process!)).code, 0, await screenOf(c, sid));
      // The conversation has history now (2.1.328 may ask "Switch model?"; the flow confirms it).
      const goals: [string, string][] = [["opus", "low"], ["sonnet", "high"], ["opus", "medium"]];
      for (const [i, [model, effort]] of goals.entries()) {
        const r = await c.ok<Configured>("agent_configure", { session_id: sid, model, reasoning_effort: effort });
        assertEquals([r.model, r.reasoning_effort], [model, effort]);
        assertEquals(r.confirmations.length, 2, JSON.stringify(r));
        assert(r.confirmations[0]!.startsWith("Set model to "), JSON.stringify(r));
        assert(r.confirmations[1]!.startsWith(`Set effort level to ${effort}`), JSON.stringify(r));
        await assertSettled(c, sid, claude);
        await turn(c, env, sid, `task after change ${i}`);
        assertEquals(lastTurn(srv)?.model, resolved(model), JSON.stringify(lastTurn(srv)?.model));
      }
    } finally {
      if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
      await c.close();
      await killProcessesUsing(vh.home);
    }
  },
});

Deno.test({
  name: `agent_configure: real codex-cli 0.169.0, the /model picker several times in a row${why(clis.codex)}`,
  ignore: !hasTmux || !clis.codex,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    const proj = await gitProject(t);
    await using srv = startFakeOpenAI();
    await using vh = await vendorHome("codex", { apiUrl: srv.url, cwd: proj, trusted: true });
    const env = serverEnv(t, vh.env, { CODEX_BIN: clis.codex! });
    await using c = await connect(env);
    let sid = "";
    try {
      const l = await c.ok<{ session_id: string; wait_process: WaitProcess | null }>("agent_launch", {
        harness: "codex-cli",
        cwd: proj,
        prompt: "first task",
      });
      sid = l.session_id;
      assertEquals((await runWaiter(env, l.wait_process!)).code, 0, await screenOf(c, sid));
      // GPT-5.5 sits below the eight rows the list shows (it scrolls); max is behind "More reasoning…".
      const goals: [string, string][] = [["gpt-6-luna", "low"], ["gpt-5.5", "high"], ["gpt-6-luna", "max"]];
      for (const [i, [model, effort]] of goals.entries()) {
        const r = await c.ok<Configured>("agent_configure", { session_id: sid, model, reasoning_effort: effort });
        assertEquals([r.model, r.reasoning_effort], [model, effort]);
        assertEquals(r.confirmations, [`Model changed to ${model} ${effort} for this session only`]);
        await assertSettled(c, sid, codex);
        const prompt = `task after change ${i}`;
        await turn(c, env, sid, prompt);
        // The turn's own request (its input holds the prompt; 0.169.0 sends no tools with these models).
        const body = srv.requests.map((q) => q.body as { model?: string; reasoning?: { effort?: string } } | null)
          .find((b) => JSON.stringify((b as { input?: unknown } | null)?.input ?? "").includes(prompt));
        assertEquals([body?.model, body?.reasoning?.effort], [model, effort]);
      }
    } finally {
      if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
      await c.close();
      await killProcessesUsing(vh.home);
    }
  },
});
