/**
 * agent_launch, dispatch, steer, answers and aiterm-wait through MCP with the REAL pinned CLIs
 * (Claude Code 2.1.328, Codex CLI 0.169.0, installed by scripts/install_vendor_clis.sh) against the
 * loopback fake model servers of tests/fixtures/fake_api/. Each CLI gets a throwaway HOME
 * (tests/helpers/vendor.ts) whose project is NOT trusted, so agent_launch(trust_project:true) answers
 * the real trust dialog; the project is a git repository because Codex 0.169.0 asks about trust only
 * inside one. The tests are ignored, with the reason in their names, when tmux or the CLIs are missing.
 */
import { gitProject, runWaiter, serverEnv, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import { findVendorClis, killProcessesUsing, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";

const clis = findVendorClis();
const why = (cli: string | null) =>
  !hasTmux ? " [ignored: tmux missing]" : cli ? "" : " [ignored: run scripts/install_vendor_clis.sh first]";

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
  wait_process: WaitProcess | null;
  submit_residue: boolean | null;
}

async function answer(c: TestClient, session_id: string, cursor: number): Promise<string> {
  return (await c.ok<{ text: string }>("pty_read", { session_id, agent_transcript: true, cursor })).text;
}

async function screenOf(c: TestClient, session_id: string): Promise<string> {
  return (await c.ok<{ text: string }>("pty_read", { session_id, screen: true })).text;
}

interface Case {
  harness: "claude-code" | "codex-cli";
  bin: string | null;
  /** Exit codes of the waiter for the turn right after an API error (see the note in the test). */
  afterErrorCodes: number[];
}

const CASES: Case[] = [
  // Claude Code re-sends a failed prompt together with the next one (one user message, two text
  // blocks), so the fake server, which reads keywords from the whole last user message, sees ERR400
  // again and the turn after an API error fails too: the dispatch works, the turn may end 7.
  { harness: "claude-code", bin: clis.claude, afterErrorCodes: [0, 7] },
  { harness: "codex-cli", bin: clis.codex, afterErrorCodes: [0] },
];

for (const k of CASES) {
  Deno.test({
    name: `real ${k.harness}: trust dialog, prompt, wait, answer, second turn, steer, API error${why(k.bin)}`,
    ignore: !hasTmux || !k.bin,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await using t = await makeTestEnv();
      const proj = await gitProject(t);
      await using srv = k.harness === "claude-code" ? startFakeAnthropic() : startFakeOpenAI();
      await using vh = await vendorHome(k.harness === "claude-code" ? "claude" : "codex", {
        apiUrl: srv.url,
        cwd: proj,
        trusted: false,
      });
      const env = serverEnv(t, vh.env, k.harness === "claude-code" ? { CLAUDE_BIN: k.bin! } : { CODEX_BIN: k.bin! });
      await using c = await connect(env);
      let sid = "";
      try {
        // Launch: the real trust dialog is answered, the first prompt starts turn 0.
        const l = await c.ok<Launch>("agent_launch", {
          harness: k.harness,
          cwd: proj,
          trust_project: true,
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
        // The lineage notice went to the system / developer channel: the first prompt is the task alone.
        assertEquals(await answer(c, sid, 0), "MOCK_REPLY first task");
        // The trust decision was saved by the CLI itself.
        if (k.harness === "claude-code") {
          const state = JSON.parse(await Deno.readTextFile(`${vh.home}/.claude.json`));
          assertEquals(state.projects?.[proj]?.hasTrustDialogAccepted, true);
        } else {
          assertStringIncludes(await Deno.readTextFile(`${vh.configDir}/config.toml`), `trust_level = "trusted"`);
        }

        // A second turn after the first.
        const s1 = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "second task" });
        assertEquals([s1.mode, s1.event_cursor, s1.submit_residue], ["agent_dispatch", 1, false]);
        const w1 = await runWaiter(env, s1.wait_process!);
        assertEquals([w1.code, w1.json.outcome], [0, "done"], JSON.stringify(w1.json));
        assertEquals(await answer(c, sid, 1), "MOCK_REPLY second task");

        // A steer while a SLOW turn runs joins it: no cursor of its own, one completion.
        const slow = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "SLOW third task" });
        assertEquals([slow.mode, slow.event_cursor], ["agent_dispatch", 2]);
        await eventually(async () => (await screenOf(c, sid)).includes("esc to interrupt"), 10_000, "busy screen");
        const steer = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "also consider this" });
        assertEquals([steer.mode, steer.event_cursor, steer.joined_event_cursor], ["agent_steer", null, 2]);
        assertEquals(steer.wait_process, null);
        const w2 = await runWaiter(env, slow.wait_process!);
        assertEquals([w2.code, w2.json.outcome], [0, "done"], JSON.stringify(w2.json));
        // Claude answers the SLOW prompt, then the queued steer (one turn); Codex restarts the
        // request with the steer in the same turn. Either way the steer was answered in turn 2.
        assertStringIncludes(await answer(c, sid, 2), "MOCK_REPLY also consider this");
        // No extra turn: the next dispatch gets cursor 3.
        const s3 = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "fourth task" });
        assertEquals([s3.mode, s3.event_cursor], ["agent_dispatch", 3]);
        assertEquals((await runWaiter(env, s3.wait_process!)).code, 0);
        assertEquals(await answer(c, sid, 3), "MOCK_REPLY fourth task");

        // An API error ends the turn: aiterm-wait exits 7, the answer read is AGENT_TURN_ERROR.
        const bad = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "ERR400 please" });
        assertEquals([bad.mode, bad.event_cursor], ["agent_dispatch", 4]);
        const we = await runWaiter(env, bad.wait_process!);
        assertEquals([we.code, we.json.outcome], [7, "error"], JSON.stringify(we.json));
        assertStringIncludes(String(we.json.error), "Mock 400 error");
        const e = await c.err("pty_read", { session_id: sid, agent_transcript: true, cursor: 4 });
        assertEquals(e.code, "AGENT_TURN_ERROR");
        // Only that turn's marker is released: a new turn is dispatched (not steered) and ends.
        const after = await c.ok<Send>("pty_send", { wait: false, session_id: sid, text: "after the error" });
        assertEquals([after.mode, after.event_cursor], ["agent_dispatch", 5]);
        const wa = await runWaiter(env, after.wait_process!);
        assert(k.afterErrorCodes.includes(wa.code), `after the error: ${JSON.stringify(wa.json)}`);
        if (wa.code === 0) assertEquals(await answer(c, sid, 5), "MOCK_REPLY after the error");
      } finally {
        if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
        await c.close();
        await killProcessesUsing(vh.home);
      }
    },
  });
}

/** Launches the real Claude Code with an empty HOME, no ANTHROPIC_* variables and no network. */
async function launchOffline(): Promise<{ launch: Launch; projects: string[] }> {
  await using t = await makeTestEnv();
  const proj = await gitProject(t);
  // An empty HOME and no ANTHROPIC_* variables; a dead proxy makes "no network" hold on any host.
  const home = `${t.root}/empty-home`;
  await Deno.mkdir(home);
  const env = serverEnv(t, { HOME: home, HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9" }, {
    CLAUDE_BIN: clis.claude!,
  });
  await using c = await connect(env);
  let sid = "";
  try {
    const launch = await c.ok<Launch>("agent_launch", {
      harness: "claude-code",
      cwd: proj,
      trust_project: true,
      prompt: "never typed",
    });
    sid = launch.session_id;
    const projects = await Array.fromAsync(Deno.readDir(`${home}/.claude/projects`)).then(
      (es) => es.map((e) => e.name),
      () => [],
    );
    return { launch, projects };
  } finally {
    if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
    await c.close();
    await killProcessesUsing(home);
  }
}

// Claude Code prints "Unable to connect to Anthropic services" and exits 1 about 150-190 ms later;
// the tmux session then disappears (no remain-on-exit).
Deno.test({
  name: `real claude-code: no network and no config ends the launch in startup blocked, nothing typed${
    why(clis.claude)
  }`,
  ignore: !hasTmux || !clis.claude,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { launch: l, projects } = await launchOffline();
    assertEquals(l.startup.status, "blocked");
    assertEquals(l.startup.reason, "service_unreachable");
    assertEquals(l.initial_prompt.status, "not_sent");
    assertEquals(l.initial_prompt.reason, `startup_blocked:${l.startup.reason}`);
    assertEquals([l.event_cursor, l.wait_process], [null, null]);
    // Nothing was typed: no session transcript anywhere in the throwaway HOME.
    assertEquals(projects, []);
  },
});

// The message is on screen for only ~150-190 ms before the CLI exits; agent panes are kept after exit
// (remain-on-exit) so the start-up gate classifies the final screen: ten launches, ten precise reasons.
Deno.test({
  name: `real claude-code: the offline launch is blocked precisely with service_unreachable${why(clis.claude)}`,
  ignore: !hasTmux || !clis.claude,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    for (let i = 0; i < 10; i++) {
      const { launch: l } = await launchOffline();
      assertEquals(l.startup, { status: "blocked", reason: "service_unreachable" }, `launch ${i}`);
    }
  },
});

Deno.test({
  name: `real codex-cli: agent_models lists the live catalog and agent_launch refuses an unknown model${
    why(clis.codex)
  }`,
  ignore: !hasTmux || !clis.codex,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    const proj = await gitProject(t);
    const api = await startFakeOpenAI();
    const home = await vendorHome("codex", { apiUrl: api.url, cwd: proj, trusted: true });
    try {
      await using c = await connect(serverEnv(t, home.env, { CODEX_BIN: clis.codex! }));
      const cat = await c.ok<
        { source: string; models: { id: string; efforts: string[] }[]; default_model: string | null }
      >(
        "agent_models",
        { harness: "codex-cli" },
      );
      assert(cat.models.length > 0, "empty catalog");
      assert(cat.default_model === null || cat.models.some((m) => m.id === cat.default_model), "default not listed");
      const before = (await c.ok<{ sessions: unknown[] }>("pty_list")).sessions.length;
      const e = await c.err("agent_launch", { harness: "codex-cli", cwd: proj, model: "no-such-model-xyz" });
      assertEquals(e.code, "MODEL_UNKNOWN");
      assertStringIncludes(e.text, cat.models[0]!.id);
      const bad = await c.err("agent_launch", {
        harness: "codex-cli",
        cwd: proj,
        model: cat.models[0]!.id,
        reasoning_effort: "galaxy-brain",
      });
      assertEquals(bad.code, "EFFORT_UNSUPPORTED");
      assertEquals((await c.ok<{ sessions: unknown[] }>("pty_list")).sessions.length, before);
    } finally {
      await home.cleanup();
      await api.close();
    }
  },
});

Deno.test({
  name: `real codex-cli: fast follows the catalog (not supported, model conflict, confirmed)${why(clis.codex)}`,
  ignore: !hasTmux || !clis.codex,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    const proj = await gitProject(t);
    const api = await startFakeOpenAI();
    const home = await vendorHome("codex", { apiUrl: api.url, cwd: proj, trusted: true });
    try {
      await using c = await connect(serverEnv(t, home.env, { CODEX_BIN: clis.codex! }));
      const cat = await c.ok<{ models: { id: string; fast: boolean }[] }>("agent_models", {
        harness: "codex-cli",
        include_hidden: true,
      });
      const slow = cat.models.find((m) => !m.fast);
      const fast = cat.models.find((m) => m.fast);
      if (slow) {
        assertEquals(
          (await c.err("agent_launch", { harness: "codex-cli", cwd: proj, model: slow.id, fast: true })).code,
          "FAST_MODE_NOT_SUPPORTED",
        );
      }
      assertEquals(
        (await c.err("agent_launch", { harness: "codex-cli", cwd: proj, model: "gpt-6-fast", fast: false })).code,
        "FAST_MODE_MODEL_CONFLICT",
      );
      if (fast) {
        const l = await c.ok<{ fast: boolean; fast_error: { code: string } | null; session_id: string }>(
          "agent_launch",
          {
            harness: "codex-cli",
            cwd: proj,
            model: fast.id,
            fast: true,
          },
        );
        // The seat starts with -c service_tier="fast" and its status line says Fast (vendor_options_real_test.ts).
        assertEquals([l.fast, l.fast_error], [true, null], JSON.stringify(l));
        await c.ok("pty_close", { session_id: l.session_id });
      }
      assert(slow || fast, "the catalog has neither fast nor normal models");
    } finally {
      await home.cleanup();
      await api.close();
    }
  },
});
