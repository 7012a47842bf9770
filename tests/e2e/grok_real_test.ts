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
import type { FakeServer } from "../fixtures/fake_api/mod.ts";
import { grokCwdKey } from "../../harnesses/grok/mod.ts";
import { eventually } from "../helpers/env.ts";

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
  joined_event_cursor: number | null;
  submit_residue: boolean | null;
  pane_input_recovery: string[];
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
      const s1 = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "second task" });
      assertEquals([s1.mode, s1.event_cursor], ["agent_dispatch", 1]);
      const w1 = await runWaiter(env, s1.wait_process!);
      assertEquals([w1.code, w1.json.outcome], [0, "done"], JSON.stringify(w1.json));
      assertEquals(await answer(c, sid, 1), "MOCK_REPLY <user_query>");

      // An API error ends the turn: aiterm-wait exits 7, the answer read is AGENT_TURN_ERROR.
      const e = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "ERR400 please" });
      assertEquals([e.mode, e.event_cursor], ["agent_dispatch", 2]);
      const we = await runWaiter(env, e.wait_process!);
      assertEquals([we.code, we.json.outcome], [7, "error"], JSON.stringify(we.json));
      assertStringIncludes(String(we.json.error), "Mock 400 error");
      const er = await c.err("pty_read", { session_id: sid, agent_transcript: true, cursor: 2 });
      assertEquals(er.code, "AGENT_TURN_ERROR");

      // A turn after the error is dispatched and ends normally.
      const after = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "after the error" });
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

/**
 * A loopback proxy in front of the fake server that answers HTTP 402 (as a custom model's provider would when
 * its credit is gone) to a model request whose newest input item carries ERR402. Grok 1.0.41 then shows its
 * "You hit your weekly limit." card (no xAI identity to re-check the tier against).
 */
function payment402Proxy(upstream: FakeServer): AsyncDisposable & { url: string } {
  const ac = new AbortController();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const body = req.body ? await req.text() : "";
    let last = "";
    try {
      const input = JSON.parse(body).input;
      last = JSON.stringify(Array.isArray(input) ? input[input.length - 1] : input);
    } catch {
      // not a model request
    }
    if (req.method === "POST" && last.includes("ERR402")) {
      const error = { message: "Mock payment required", type: "insufficient_quota", code: "insufficient_quota" };
      return new Response(JSON.stringify({ error }), { status: 402, headers: { "content-type": "application/json" } });
    }
    const r = await fetch(upstream.url + url.pathname + url.search, {
      method: req.method,
      headers: req.headers,
      ...(body ? { body } : {}),
    });
    return new Response(r.body, { status: r.status, headers: r.headers });
  });
  const port = (server.addr as Deno.NetAddr).port;
  return {
    url: `http://127.0.0.1:${port}`,
    async [Symbol.asyncDispose]() {
      ac.abort();
      await server.finished.catch(() => {});
    },
  };
}

Deno.test({
  name: `real grok-cli: a steer while running is queued, sent now, and stays one turn with the right answer${why}`,
  ignore: !hasTmux || !bin,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    await Deno.mkdir(`${t.root}/proj`);
    const proj = await Deno.realPath(`${t.root}/proj`);
    // Long enough that the first turn is still waiting for the model whenever the steer comes.
    await using srv = startFakeOpenAI({ slowMs: 60_000 });
    await using vh = await vendorHome("grok", { apiUrl: srv.url, cwd: proj, trusted: false });
    const env = serverEnv(t, vh.env, { GROK_BIN: bin! });
    await using c = await connect(env);
    let sid = "";
    try {
      const l = await c.ok<Launch>("agent_launch", { harness: "grok-cli", cwd: proj, prompt: "SLOW first task" });
      sid = l.session_id;
      assertEquals([l.initial_prompt.status, l.event_cursor], ["started", 0], JSON.stringify(l));
      await eventually(async () => (await screenOf(c, sid)).includes("Waiting for response"), 30_000, "busy");

      const s = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "steer: also count the tests" });
      const diag = `${JSON.stringify(s)}\n${await screenOf(c, sid)}`;
      assertEquals(
        [s.mode, s.event_cursor, s.joined_event_cursor, s.submit_residue],
        ["agent_steer", null, 0, false],
        diag,
      );
      assertEquals(s.wait_process, null);

      // Turn 0 ends once, with the answer of the work that continued after "send now".
      const w = await runWaiter(env, l.wait_process!);
      assertEquals([w.code, w.json.outcome, w.json.turn_id], [0, "done", "0"], JSON.stringify(w.json));
      assertEquals(await answer(c, sid, 0), "MOCK_REPLY The user sent a message while you were w");
      // The CLI really cut the turn with send_now, and wrote the steer as its next prompt.
      const folder = `${vh.configDir}/sessions/${grokCwdKey(proj)}`;
      const [only] = [...Deno.readDirSync(folder)].filter((d) => d.isDirectory).map((d) => d.name);
      const updates = await Deno.readTextFile(`${folder}/${only}/updates.jsonl`);
      assertStringIncludes(updates, '"cancelTrigger":"send_now"');
      assertStringIncludes(updates, '"text":"steer: also count the tests"');
      // One completion boundary: no turn 1 exists, and the next dispatch gets cursor 1.
      assertEquals(
        (await c.err("pty_read", { session_id: sid, agent_transcript: true, cursor: 1 })).code,
        "AGENT_RESULT_PENDING",
      );
      const next = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "SLOW next task" });
      assertEquals([next.mode, next.event_cursor], ["agent_dispatch", 1]);

      // Someone else's text already waits first in Grok's queue: send now would send theirs, so aiterm
      // presses nothing and claims no steer.
      await eventually(async () => (await screenOf(c, sid)).includes("Waiting for response"), 30_000, "busy again");
      await t.tmux("send-keys", "-t", `=${sid}:`, "-l", "a note typed by hand");
      await t.tmux("send-keys", "-t", `=${sid}:`, "Enter");
      await eventually(async () => (await screenOf(c, sid)).includes("#1 a note typed by hand"), 10_000, "queued");
      const e = await c.err("pty_send", { wait: false, session_id: sid, text: "my steer" });
      assertEquals(e.code, "AGENT_STEER_NOT_TAKEN", e.text);
      assertStringIncludes(e.message, "behind other queued text");
      const after = await screenOf(c, sid);
      assertStringIncludes(after, "#1 a note typed by hand");
      assertStringIncludes(after, "#2 my steer");
    } finally {
      if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
      await c.close();
      await killProcessesUsing(vh.home);
    }
  },
});

Deno.test({
  name:
    `real grok-cli: HTTP 402 → weekly-limit card → wait says rate_limited; the next dispatch dismisses it once${why}`,
  ignore: !hasTmux || !bin,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    await Deno.mkdir(`${t.root}/proj`);
    const proj = await Deno.realPath(`${t.root}/proj`);
    await using srv = startFakeOpenAI();
    await using proxy = payment402Proxy(srv);
    await using vh = await vendorHome("grok", { apiUrl: proxy.url, cwd: proj, trusted: false });
    const env = serverEnv(t, vh.env, { GROK_BIN: bin! });
    await using c = await connect(env);
    let sid = "";
    try {
      const l = await c.ok<Launch>("agent_launch", { harness: "grok-cli", cwd: proj, prompt: "first task" });
      sid = l.session_id;
      assertEquals((await runWaiter(env, l.wait_process!)).code, 0);

      const e = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "ERR402 please" });
      assertEquals([e.mode, e.event_cursor, e.pane_input_recovery], ["agent_dispatch", 1, []]);
      const we = await runWaiter(env, e.wait_process!);
      assertEquals([we.code, we.json.outcome, we.json.turn_id], [7, "error", "1"], JSON.stringify(we.json));
      const why402 = String(we.json.error);
      assert(why402.startsWith("rate_limited: You hit your weekly limit. ("), why402);
      assertStringIncludes(why402, "status 402 Payment Required");
      assertStringIncludes(await screenOf(c, sid), "Shift+x:dismiss");

      // Reads do not dismiss the card; the next normal dispatch does, once, and says so.
      assertEquals(
        (await c.err("pty_read", { session_id: sid, agent_transcript: true, cursor: 1 })).code,
        "AGENT_TURN_ERROR",
      );
      assertStringIncludes(await screenOf(c, sid), "You hit your weekly limit.");
      const s = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "after the limit" });
      assertEquals([s.mode, s.event_cursor, s.pane_input_recovery], [
        "agent_dispatch",
        2,
        ["grok_rate_limit_dialog_dismissed"],
      ]);
      const w2 = await runWaiter(env, s.wait_process!);
      assertEquals([w2.code, w2.json.outcome], [0, "done"], JSON.stringify(w2.json));
      assertEquals(await answer(c, sid, 2), "MOCK_REPLY <user_query>");
      // With the card gone, turn 1 is a plain error: old records alone never say rate_limited.
      const again = await runWaiter(env, e.wait_process!);
      assertEquals([again.code, again.json.outcome], [7, "error"]);
      assert(!String(again.json.error).startsWith("rate_limited"), String(again.json.error));
      assertEquals(srv.requests.filter((r) => r.method === "POST").length >= 2, true);
    } finally {
      if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
      await c.close();
      await killProcessesUsing(vh.home);
    }
  },
});

Deno.test({
  name: `real grok-cli: a sandbox the CLI refuses → GROK_SANDBOX_STARTUP_FAILED with its cause, nothing sent${why}`,
  ignore: !hasTmux || !bin,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    await Deno.mkdir(`${t.root}/proj`);
    const proj = await Deno.realPath(`${t.root}/proj`);
    await using srv = startFakeOpenAI();
    await using vh = await vendorHome("grok", { apiUrl: srv.url, cwd: proj, trusted: false });
    // Grok refuses a symlinked GROK_HOME under a sandbox (whether or not bubblewrap is installed).
    const link = `${vh.home}/grok-home-link`;
    await Deno.symlink(vh.configDir, link);
    const env = serverEnv(t, vh.env, { GROK_BIN: bin!, GROK_HOME: link });
    await using c = await connect(env);
    let sid = "";
    try {
      const l = await c.ok<Launch>("agent_launch", {
        harness: "grok-cli",
        cwd: proj,
        write_scope: "read-only",
        prompt: "never sent",
      });
      sid = l.session_id;
      assertEquals(l.startup.status, "blocked", JSON.stringify(l));
      assert(
        l.startup.reason.startsWith(
          "GROK_SANDBOX_STARTUP_FAILED: sandbox profile resolve failed: symlinked GROK_HOME is not allowed",
        ),
        l.startup.reason,
      );
      assertStringIncludes(l.startup.reason, "Refusing to start");
      assertEquals([l.initial_prompt.status, l.event_cursor], ["not_sent", null]);
      // A later send names the same cause instead of a bare "session ended".
      const e = await c.err("pty_send", { wait: false, session_id: sid, text: "still never sent" });
      assertEquals(e.code, "GROK_SANDBOX_STARTUP_FAILED", e.text);
      assertStringIncludes(e.message, "symlinked GROK_HOME");
      assertStringIncludes(e.message, "Refusing to start");
      assertEquals(srv.requests.filter((r) => r.method === "POST").length, 0);
    } finally {
      if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
      await c.close();
      await killProcessesUsing(vh.home);
    }
  },
});
