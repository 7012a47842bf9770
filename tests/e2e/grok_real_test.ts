/**
 * agent_launch, dispatch, answers and aiterm-wait through MCP with the REAL pinned Grok Build CLI
 * (1.0.41, installed by scripts/install_vendor_clis.sh) against the loopback fake OpenAI Responses
 * server (a custom `[model.mock]` in a throwaway ~/.grok/config.toml, tests/helpers/vendor.ts).
 * Ignored, with the reason in the name, when tmux or the CLI is missing.
 *
 * Grok sends the prompt wrapped as `<user_query>\n…\n</user_query>`; the fake server answers the
 * first line of the last user message, so every answer here reads `MOCK_REPLY <user_query>`.
 */
import { runWaiter, serverEnv, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import { findVendorClis, killProcessesUsing, vendorHome } from "../helpers/vendor.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";
import { grokCwdKey } from "../../harnesses/grok.ts";

const bin = findVendorClis().grok;
const why = !hasTmux ? " [ignored: tmux missing]" : bin ? "" : " [ignored: run scripts/install_vendor_clis.sh first]";

interface Launch {
  session_id: string;
  startup: { status: string; reason: string };
  initial_prompt: { status: string; reason: string; turn_started: boolean | null };
  event_cursor: number | null;
  wait_process: WaitProcess | null;
}
interface Send {
  mode: string;
  event_cursor: number | null;
  wait_process: WaitProcess | null;
}

async function answer(c: TestClient, session_id: string, cursor: number): Promise<string> {
  return (await c.ok<{ text: string }>("pty_read", { session_id, agent_transcript: true, cursor })).text;
}

async function screenOf(c: TestClient, session_id: string): Promise<string> {
  return (await c.ok<{ text: string }>("pty_read", { session_id, screen: true })).text;
}

Deno.test({
  name: `real grok-cli: --trust launch, prompt, wait, answer, second turn, API error, unknown model${why}`,
  ignore: !hasTmux || !bin,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    // A directory name the CLI must percent-encode (space, parentheses).
    const dir = `${t.root}/proj (g) x`;
    await Deno.mkdir(dir);
    const proj = await Deno.realPath(dir);
    await using srv = startFakeOpenAI();
    await using vh = await vendorHome("grok", { apiUrl: srv.url, cwd: proj, trusted: false });
    const env = serverEnv(t, vh.env, { GROK_BIN: bin! });
    await using c = await connect(env);
    let sid = "";
    try {
      // An explicit model is checked against `grok models` before anything is launched.
      const bad = await c.err("agent_launch", { harness: "grok-cli", cwd: proj, model: "no-such-model", prompt: "x" });
      assertEquals(bad.code, "MODEL_UNKNOWN", bad.message);

      const l = await c.ok<Launch>("agent_launch", {
        harness: "grok-cli",
        cwd: proj,
        trust_project: true,
        model: "mock",
        prompt: "first task",
      });
      sid = l.session_id;
      const diag = `${JSON.stringify(l)}\n${await screenOf(c, sid)}`;
      assertEquals(l.startup, { status: "ready", reason: "input_accepted" }, diag);
      assertEquals(l.initial_prompt.status, "started", diag);
      assertEquals(l.event_cursor, 0);
      assert(l.wait_process, "no wait_process");
      const w0 = await runWaiter(env, l.wait_process);
      assertEquals([w0.code, w0.json.outcome], [0, "done"], JSON.stringify(w0.json));
      assertEquals(await answer(c, sid, 0), "MOCK_REPLY <user_query>");
      // The session folder is the percent-encoded realpath of the cwd.
      const sessions = [...Deno.readDirSync(`${vh.configDir}/sessions`)].map((e) => e.name);
      assert(sessions.includes(grokCwdKey(proj)), JSON.stringify(sessions));

      // A second turn.
      const s1 = await c.ok<Send>("pty_send", { session_id: sid, text: "second task" });
      assertEquals([s1.mode, s1.event_cursor], ["agent_dispatch", 1]);
      const w1 = await runWaiter(env, s1.wait_process!);
      assertEquals([w1.code, w1.json.outcome], [0, "done"], JSON.stringify(w1.json));
      assertEquals(await answer(c, sid, 1), "MOCK_REPLY <user_query>");

      // An API error ends the turn: aiterm-wait exits 7, the answer read is AGENT_TURN_ERROR.
      const e = await c.ok<Send>("pty_send", { session_id: sid, text: "ERR400 please" });
      assertEquals([e.mode, e.event_cursor], ["agent_dispatch", 2]);
      const we = await runWaiter(env, e.wait_process!);
      assertEquals([we.code, we.json.outcome], [7, "error"], JSON.stringify(we.json));
      assertStringIncludes(String(we.json.error), "Mock 400 error");
      const er = await c.err("pty_read", { session_id: sid, agent_transcript: true, cursor: 2 });
      assertEquals(er.code, "AGENT_TURN_ERROR");

      // A turn after the error is dispatched and ends normally.
      const after = await c.ok<Send>("pty_send", { session_id: sid, text: "after the error" });
      assertEquals([after.mode, after.event_cursor], ["agent_dispatch", 3]);
      const wa = await runWaiter(env, after.wait_process!);
      assertEquals([wa.code, wa.json.outcome], [0, "done"], JSON.stringify(wa.json));
    } finally {
      if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
      await c.close();
      await killProcessesUsing(vh.home);
    }
  },
});
