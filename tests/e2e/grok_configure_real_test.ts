/**
 * agent_configure through MCP with the REAL pinned Grok Build CLI (1.0.41) against the loopback fake
 * OpenAI Responses server. The throwaway ~/.grok/config.toml of tests/helpers/vendor.ts gets a second
 * custom model, `mock2` ("Mock Two", wire id `mock-model-2`) with two reasoning efforts, so there is a
 * model and an effort to switch to; the fake server records which model id and effort each turn used.
 * Ignored, with the reason in the name, when tmux or the CLI is missing.
 */
import { runWaiter, serverEnv, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import { findVendorClis, killProcessesUsing, vendorHome } from "../helpers/vendor.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";
import type { FakeServer } from "../fixtures/fake_api/mod.ts";
import { classifyGrokScreen, grokComposerText } from "../../harnesses/grok/mod.ts";

const bin = findVendorClis().grok;
const why = !hasTmux ? " [ignored: tmux missing]" : bin ? "" : " [ignored: run scripts/install_vendor_clis.sh first]";

interface Configured {
  model: string | null;
  reasoning_effort: string | null;
  previous: { model: string | null; reasoning_effort: string | null };
  confirmations: string[];
  persisted_default: boolean | null;
}

/** The second custom model: same fake server, its own wire id, efforts low and high (high the default). */
function secondModel(apiUrl: string): string {
  return [
    ``,
    `[model.mock2]`,
    `model = "mock-model-2"`,
    `name = "Mock Two"`,
    `base_url = ${JSON.stringify(`${apiUrl}/v1`)}`,
    `env_key = "MOCK_API_KEY"`,
    `api_backend = "responses"`,
    `context_window = 128000`,
    ``,
    `[[model.mock2.reasoning_efforts]]`,
    `value = "low"`,
    `label = "Low Effort"`,
    ``,
    `[[model.mock2.reasoning_efforts]]`,
    `value = "high"`,
    `label = "High Effort"`,
    `default = true`,
    ``,
  ].join("\n");
}

const record = async (t: TestEnv, sid: string) =>
  JSON.parse(await Deno.readTextFile(`${t.stateDir}/sessions/${sid}/agent.json`)) as {
    model: string | null;
    reasoning_effort: string | null;
  };
const screenOf = async (c: TestClient, sid: string) =>
  (await c.ok<{ text: string }>("pty_read", { session_id: sid, screen: true })).text;

/** The model id and reasoning effort of the newest turn request (one with tools; titles have none). */
function lastTurn(srv: FakeServer): { model: string | null; effort: string | null } {
  const turns = srv.requests
    .map((r) => r.body as { model?: string; tools?: unknown[]; reasoning?: { effort?: string } } | null)
    .filter((b) => b && Array.isArray(b.tools) && b.tools.length > 0);
  const b = turns[turns.length - 1];
  return { model: b?.model ?? null, effort: b?.reasoning?.effort ?? null };
}

async function turn(c: TestClient, env: Record<string, string>, sid: string, text: string): Promise<void> {
  const s = await c.ok<{ wait_process: WaitProcess }>("pty_send", { wait: false, session_id: sid, text });
  assertEquals((await runWaiter(env, s.wait_process)).code, 0, await screenOf(c, sid));
}

Deno.test({
  name: `agent_configure: real grok-cli 1.0.41 switches model and effort with /model and /effort${why}`,
  ignore: !hasTmux || !bin,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    await Deno.mkdir(`${t.root}/proj`);
    const proj = await Deno.realPath(`${t.root}/proj`);
    await using srv = startFakeOpenAI();
    await using vh = await vendorHome("grok", { apiUrl: srv.url, cwd: proj, trusted: true });
    await Deno.writeTextFile(`${vh.configDir}/config.toml`, secondModel(srv.url), { append: true });
    const env = serverEnv(t, vh.env, { GROK_BIN: bin! });
    await using c = await connect(env);
    let sid = "";
    try {
      const l = await c.ok<{ session_id: string; startup: { status: string }; wait_process: WaitProcess | null }>(
        "agent_launch",
        { harness: "grok-cli", cwd: proj, trust_project: true, model: "mock", prompt: "first task" },
      );
      sid = l.session_id;
      assertEquals(l.startup.status, "ready", await screenOf(c, sid));
      assert(l.wait_process, "no wait_process");
      assertEquals((await runWaiter(env, l.wait_process)).code, 0);
      assertEquals(lastTurn(srv).model, "mock-model");

      // Model and effort together: one `/model mock2 low`, confirmed by the CLI's own notice.
      const a = await c.ok<Configured>("agent_configure", { session_id: sid, model: "mock2", reasoning_effort: "low" });
      assertEquals([a.model, a.reasoning_effort, a.persisted_default], ["mock2", "low", true]);
      assertEquals(a.previous, { model: "mock", reasoning_effort: null });
      assertEquals(a.confirmations, ["Switched to Mock Two (low effort)"]);
      const first = await record(t, sid);
      assertEquals([first.model, first.reasoning_effort], ["mock2", "low"]);
      // The CLI saves the switch as the user's default too (what persisted_default reports).
      assertStringIncludes(await Deno.readTextFile(`${vh.configDir}/config.toml`), `default = "mock2"`);
      await turn(c, env, sid, "second task");
      assertEquals(lastTurn(srv), { model: "mock-model-2", effort: "low" });

      // Effort alone: `/effort high` on the current model.
      const b = await c.ok<Configured>("agent_configure", { session_id: sid, reasoning_effort: "high" });
      assertEquals([b.model, b.reasoning_effort], ["mock2", "high"]);
      assertEquals(b.confirmations, ["Switched to Mock Two (high effort)"]);
      await turn(c, env, sid, "third task");
      assertEquals(lastTurn(srv), { model: "mock-model-2", effort: "high" });

      // A bare `/model mock`: confirmed by the "Default model" toast; mock lists no effort, so none is in use.
      const m = await c.ok<Configured>("agent_configure", { session_id: sid, model: "mock" });
      assertEquals([m.model, m.reasoning_effort], ["mock", null]);
      assertEquals(m.confirmations, ["Default model: Mock"]);
      const rec = await record(t, sid);
      assertEquals([rec.model, rec.reasoning_effort], ["mock", null]);
      await turn(c, env, sid, "fourth task");
      assertEquals(lastTurn(srv), { model: "mock-model", effort: null });

      // In the catalog and in GROK_EFFORTS, but refused by the CLI (mock2 offers low and high only).
      const bad = await c.err("agent_configure", { session_id: sid, model: "mock2", reasoning_effort: "max" });
      assertEquals(bad.code, "CONFIGURE_REJECTED", bad.text);
      assertStringIncludes(bad.message, "unknown effort level 'max'");
      const after = await record(t, sid);
      assertEquals([after.model, after.reasoning_effort], ["mock", null]);
      // Nothing left open: an empty composer, the agent ready, still on Mock.
      const screen = await screenOf(c, sid);
      assertEquals(grokComposerText(screen), "", screen);
      assertEquals(classifyGrokScreen(screen).kind, "ready", screen);
      assert(/─ Mock ─╯/.test(screen), screen);

      // A running turn refuses with nothing typed.
      const slow = await c.ok<{ wait_process: WaitProcess }>("pty_send", {
        wait: false,
        session_id: sid,
        text: "SLOW task",
      });
      const busy = await c.err("agent_configure", { session_id: sid, model: "mock2" });
      assertEquals(busy.code, "AGENT_BUSY", busy.text);
      assertEquals((await runWaiter(env, slow.wait_process)).code, 0);
      assertEquals(lastTurn(srv).model, "mock-model");
      await eventually(async () => classifyGrokScreen(await screenOf(c, sid)).kind === "ready", 10_000, "ready");
      assert(!(await screenOf(c, sid)).includes("/model mock2"), "the refused change was typed");
    } finally {
      if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
      await c.close();
      await killProcessesUsing(vh.home);
    }
  },
});
