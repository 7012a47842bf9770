/**
 * agent_configure (and agent_approval on the fakes) through MCP on real tmux: the fake claude, codex and
 * cursor-agent of tests/fixtures/bin draw the vendors' `/model`, `/effort` and permission screens; the
 * last tests drive the REAL Claude Code 2.1.328 and Codex 0.169.0 (no model request is needed to change
 * the model), ignored with the reason in their names when the CLIs are missing.
 */
import { gitProject, runWaiter, serverEnv, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import { findVendorClis, killProcessesUsing, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const hasFakes = await Deno.stat(`${FIXTURE_BIN}claude`).then(() => true, () => false);
const opts = { ignore: !hasTmux || !hasFakes, sanitizeOps: false, sanitizeResources: false };
const clis = findVendorClis();
const why = (cli: string | null) =>
  !hasTmux ? " [ignored: tmux missing]" : cli ? "" : " [ignored: run scripts/install_vendor_clis.sh first]";

interface Configured {
  model: string | null;
  reasoning_effort: string | null;
  previous: { model: string | null; reasoning_effort: string | null };
  confirmations: string[];
  persisted_default: boolean | null;
}
interface Launch {
  session_id: string;
  startup: { status: string };
  wait_process: WaitProcess | null;
}

async function fakeEnv(): Promise<TestEnv> {
  const t = await makeTestEnv();
  t.env.CLAUDE_BIN = `${FIXTURE_BIN}claude`;
  t.env.CODEX_BIN = `${FIXTURE_BIN}codex`;
  t.env.CURSOR_AGENT_BIN = `${FIXTURE_BIN}cursor-agent`;
  t.env.CODEX_HOME = `${t.home}/.codex`;
  await Deno.mkdir(`${t.root}/proj`);
  return t;
}

const screenOf = async (c: TestClient, sid: string) =>
  (await c.ok<{ text: string }>("pty_read", { session_id: sid, screen: true })).text;
const record = async (t: TestEnv, sid: string) =>
  JSON.parse(await Deno.readTextFile(`${t.stateDir}/sessions/${sid}/agent.json`)) as {
    model: string | null;
    reasoning_effort: string | null;
  };
const configure = (c: TestClient, args: Record<string, unknown>) => c.ok<Configured>("agent_configure", args);
const ready = (c: TestClient, sid: string) =>
  eventually(
    async () => {
      const o = await c.ok<{ agent: { state: string } | null }>("pty_observe", { session_id: sid });
      return o.agent?.state === "ready";
    },
    15_000,
    "agent ready",
  );

Deno.test(
  "agent_configure: fake claude-code switches model (confirming Switch model?) and effort in place",
  opts,
  async () => {
    await using t = await fakeEnv();
    await using c = await connect(t.env);
    const l = await c.ok<Launch>("agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "first task",
    });
    const sid = l.session_id;
    assertEquals((await runWaiter(t.env, l.wait_process!)).code, 0);
    await ready(c, sid);

    // Bad values are refused before anything is typed.
    assertEquals((await c.err("agent_configure", { session_id: sid })).code, "INVALID_ARGUMENT");
    const bad = await c.err("agent_configure", { session_id: sid, reasoning_effort: "galaxy" });
    assertEquals(bad.code, "EFFORT_UNSUPPORTED");
    assert(!(await screenOf(c, sid)).includes("❯ /effort"), "something was typed");

    const r = await configure(c, { session_id: sid, model: "sonnet", reasoning_effort: "high" });
    assertEquals([r.model, r.reasoning_effort], ["sonnet", "high"]);
    assertEquals(r.previous, { model: null, reasoning_effort: null });
    assertEquals(r.confirmations.length, 2);
    assertStringIncludes(r.confirmations[0]!, "Set model to Sonnet 5.5");
    assertStringIncludes(r.confirmations[1]!, "Set effort level to high");
    assertEquals(r.persisted_default, true);
    assertEquals(await record(t, sid), { ...(await record(t, sid)), model: "sonnet", reasoning_effort: "high" });
    assertStringIncludes(await screenOf(c, sid), "Sonnet 5.5 with high effort");

    // The next turn runs on the new settings and completes as usual.
    const s = await c.ok<{ wait_process: WaitProcess }>("pty_send", {
      wait: false,
      session_id: sid,
      text: "second task",
    });
    assertEquals((await runWaiter(t.env, s.wait_process)).code, 0);
  },
);

Deno.test(
  "agent_configure refuses a running turn (AGENT_BUSY) and an open dialog (AGENT_BLOCKED) with nothing typed; agent_approval answers the fake dialogs",
  opts,
  async () => {
    await using t = await fakeEnv();
    await using c = await connect(t.env);
    for (const harness of ["claude-code", "codex-cli"] as const) {
      const l = await c.ok<Launch>("agent_launch", {
        harness,
        cwd: `${t.root}/proj`,
        trust_project: true,
        prompt: "SLOW first task",
      });
      const sid = l.session_id;
      const busy = await c.err("agent_configure", { session_id: sid, reasoning_effort: "high" });
      assertEquals(busy.code, "AGENT_BUSY", busy.text);
      assertEquals((await runWaiter(t.env, l.wait_process!)).code, 0);
      assert(!/[❯›] \/effort/.test(await screenOf(c, sid)), "something was typed while busy");

      const p = await c.ok<{ wait_process: WaitProcess }>("pty_send", {
        wait: false,
        session_id: sid,
        text: "PERM please",
      });
      const seen = await eventually(
        async () => {
          const a = await c.ok<{ status: string; digest: string; kind: string; choices: { id: string }[] }>(
            "agent_approval",
            { action: "inspect", session_id: sid },
          );
          return a.status === "approval_required" ? a : null;
        },
        10_000,
        "fake dialog",
      );
      assertEquals([seen.kind, seen.choices.map((x) => x.id)], ["command", ["approve_once", "approve_always", "deny"]]);
      const blocked = await c.err("agent_configure", {
        session_id: sid,
        model: harness === "claude-code" ? "opus" : "gpt-5.5",
      });
      assertEquals(blocked.code, "AGENT_BLOCKED");
      const always = await c.ok<{ status: string; reason: string }>("agent_approval", {
        action: "respond",
        session_id: sid,
        approval_choice: "approve_always",
        observed_prompt_digest: seen.digest,
      });
      assertEquals([always.status, always.reason], ["blocked", "choice_not_single_shot"]);
      const ok = await c.ok<{ status: string }>("agent_approval", {
        action: "respond",
        session_id: sid,
        approval_choice: "approve_once",
        observed_prompt_digest: seen.digest,
      });
      assertEquals(ok.status, "submitted");
      assertEquals((await runWaiter(t.env, p.wait_process)).code, 0);
      await c.ok("pty_close", { session_id: sid });
    }
  },
);

Deno.test(
  "agent_configure: fake codex-cli walks the /model picker and applies for this session only",
  opts,
  async () => {
    await using t = await fakeEnv();
    await using c = await connect(t.env);
    const l = await c.ok<Launch>("agent_launch", {
      harness: "codex-cli",
      cwd: `${t.root}/proj`,
      trust_project: true,
      model: "gpt-6-luna",
    });
    const sid = l.session_id;
    assertEquals(l.startup.status, "ready");

    const a = await configure(c, { session_id: sid, model: "gpt-6.1-sol", reasoning_effort: "xhigh" });
    assertEquals([a.model, a.reasoning_effort, a.persisted_default], ["gpt-6.1-sol", "xhigh", false]);
    assertEquals(a.confirmations, ["Model changed to gpt-6.1-sol xhigh for this session only"]);
    assertStringIncludes(await screenOf(c, sid), "GPT-6.1-Sol xhigh ·");

    // Effort only: the "(current)" model, max behind "More reasoning…".
    const b = await configure(c, { session_id: sid, reasoning_effort: "max" });
    assertEquals([b.model, b.reasoning_effort], ["gpt-6.1-sol", "max"]);

    // Model only: gpt-5.5 has no max, so the picker's default for it (medium) is applied and recorded.
    const m = await configure(c, { session_id: sid, model: "gpt-5.5" });
    assertEquals([m.model, m.reasoning_effort], ["gpt-5.5", "medium"]);
    assertEquals(await record(t, sid), { ...(await record(t, sid)), model: "gpt-5.5", reasoning_effort: "medium" });

    // The live catalog decides what is valid.
    assertEquals((await c.err("agent_configure", { session_id: sid, model: "no-such-model" })).code, "MODEL_UNKNOWN");
    const e = await c.err("agent_configure", { session_id: sid, model: "gpt-5.5", reasoning_effort: "ultra" });
    assertEquals(e.code, "EFFORT_UNSUPPORTED");
  },
);

Deno.test(
  "agent_configure: an effort for a model the codex picker does not list is rejected and the picker is left",
  opts,
  async () => {
    await using t = await fakeEnv();
    await using c = await connect(t.env);
    // Launched on the CLI's default model, which the fake picker does not list (no "(current)" row).
    const l = await c.ok<Launch>("agent_launch", { harness: "codex-cli", cwd: `${t.root}/proj`, trust_project: true });
    const sid = l.session_id;
    const e = await c.err("agent_configure", { session_id: sid, reasoning_effort: "high" });
    assertEquals(e.code, "CONFIGURE_REJECTED", e.text);
    await ready(c, sid);
    assertEquals(await record(t, sid), { ...(await record(t, sid)), model: null, reasoning_effort: null });
    assert(!(await screenOf(c, sid)).includes("Select Model and Effort"), "the picker was left open");
  },
);

Deno.test(
  "agent_configure: fake cursor-cli needs the model with an effort and selects <id>[effort=<e>]",
  opts,
  async () => {
    await using t = await fakeEnv();
    await using c = await connect(t.env);
    const l = await c.ok<Launch>("agent_launch", { harness: "cursor-cli", cwd: `${t.root}/proj`, trust_project: true });
    const sid = l.session_id;
    const e = await c.err("agent_configure", { session_id: sid, reasoning_effort: "high" });
    assertEquals(e.code, "EFFORT_UNSUPPORTED");
    const r = await configure(c, { session_id: sid, model: "claude-opus-4-8", reasoning_effort: "high" });
    assertEquals([r.model, r.reasoning_effort], ["claude-opus-4-8", "high"]);
    assertStringIncludes(await screenOf(c, sid), "claude-opus-4-8[effort=high] · / commands");
    const f = await configure(c, { session_id: sid, model: "composer-2.5-fast" });
    assertEquals([f.model, f.reasoning_effort], ["composer-2.5-fast", null]);
    assertEquals((await c.err("agent_configure", { session_id: sid, model: "gpt-0" })).code, "MODEL_UNKNOWN");
    // A turn still runs after the changes.
    const s = await c.ok<{ wait_process: WaitProcess }>("pty_send", {
      wait: false,
      session_id: sid,
      text: "after configure",
    });
    assertEquals((await runWaiter(t.env, s.wait_process)).code, 0);
  },
);

Deno.test("agent_configure and agent_approval need an agent session and well-formed arguments", opts, async () => {
  await using t = await fakeEnv();
  await using c = await connect(t.env);
  const p = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  assertEquals(
    (await c.err("agent_configure", { session_id: p.session_id, model: "x" })).code,
    "AGENT_SESSION_REQUIRED",
  );
  assertEquals(
    (await c.err("agent_approval", { action: "inspect", session_id: p.session_id })).code,
    "AGENT_SESSION_REQUIRED",
  );
  const digest = `sha256:${"a".repeat(64)}`;
  const cases: Record<string, unknown>[] = [
    { action: "inspect", session_id: p.session_id, observed_prompt_digest: digest },
    { action: "respond", session_id: p.session_id, approval_choice: "approve_once" },
    { action: "respond", session_id: p.session_id, observed_prompt_digest: digest },
    { action: "respond", session_id: p.session_id, approval_choice: "yes_forever", observed_prompt_digest: digest },
    { action: "respond", session_id: p.session_id, approval_choice: "deny", observed_prompt_digest: "sha256:xyz" },
  ];
  for (const args of cases) {
    assertEquals((await c.err("agent_approval", args)).code, "INVALID_ARGUMENT", JSON.stringify(args));
  }
});

Deno.test({
  name: `agent_configure: real claude-code 2.1.328 takes /model and /effort${why(clis.claude)}`,
  ignore: !hasTmux || !clis.claude,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    const proj = await gitProject(t);
    await using srv = startFakeAnthropic();
    await using vh = await vendorHome("claude", { apiUrl: srv.url, cwd: proj, trusted: true });
    await using c = await connect(serverEnv(t, vh.env, { CLAUDE_BIN: clis.claude! }));
    let sid = "";
    try {
      const l = await c.ok<Launch>("agent_launch", { harness: "claude-code", cwd: proj, trust_project: true });
      sid = l.session_id;
      assertEquals(l.startup.status, "ready");
      const r = await configure(c, { session_id: sid, model: "sonnet", reasoning_effort: "low" });
      assertEquals([r.model, r.reasoning_effort, r.persisted_default], ["sonnet", "low", true]);
      assertStringIncludes(r.confirmations.join("\n"), "Set model to Sonnet");
      assertStringIncludes(r.confirmations.join("\n"), "Set effort level to low");
      assertEquals(await record(t, sid), { ...(await record(t, sid)), model: "sonnet", reasoning_effort: "low" });
      // Claude Code itself saved both as the user's defaults (what persisted_default reports).
      const settings = JSON.parse(await Deno.readTextFile(`${vh.configDir}/settings.json`));
      assertEquals(settings.model, "sonnet");
      assertStringIncludes(JSON.stringify(settings.modelSettings), '"effortLevel":"low"');
    } finally {
      if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
      await c.close();
      await killProcessesUsing(vh.home);
    }
  },
});

Deno.test({
  name: `agent_configure: real codex-cli 0.169.0 picks model and effort in /model for this session only${
    why(clis.codex)
  }`,
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
      const l = await c.ok<Launch>("agent_launch", { harness: "codex-cli", cwd: proj, trust_project: true });
      sid = l.session_id;
      assertEquals(l.startup.status, "ready");
      const config = await Deno.readTextFile(`${vh.configDir}/config.toml`);
      const a = await configure(c, { session_id: sid, model: "gpt-6-luna", reasoning_effort: "high" });
      assertEquals([a.model, a.reasoning_effort, a.persisted_default], ["gpt-6-luna", "high", false]);
      assertEquals(a.confirmations, ["Model changed to gpt-6-luna high for this session only"]);
      // Effort only, through "More reasoning…" → "Advanced Reasoning".
      const b = await configure(c, { session_id: sid, reasoning_effort: "max" });
      assertEquals([b.model, b.reasoning_effort], ["gpt-6-luna", "max"]);
      // A model further down the list (scrolled into view).
      const m = await configure(c, { session_id: sid, model: "gpt-5.5", reasoning_effort: "low" });
      assertEquals([m.model, m.reasoning_effort], ["gpt-5.5", "low"]);
      // "for this session only": the user's config.toml still names the old model.
      assertStringIncludes(await Deno.readTextFile(`${vh.configDir}/config.toml`), config.split("\n")[0]!);
      assert(!(await Deno.readTextFile(`${vh.configDir}/config.toml`)).includes("gpt-5.5"), "saved as default");
      // The next turn goes to the fake server with the new model.
      const s = await c.ok<{ wait_process: WaitProcess }>("pty_send", { wait: false, session_id: sid, text: "hello" });
      assertEquals((await runWaiter(env, s.wait_process)).code, 0);
      const models = srv.requests.map((r) => (r.body as { model?: string } | null)?.model).filter(Boolean);
      assertEquals(models[models.length - 1], "gpt-5.5");
    } finally {
      if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
      await c.close();
      await killProcessesUsing(vh.home);
    }
  },
});

Deno.test(
  "agent_approval: when the digit only moves the highlight, Enter confirms that same choice once",
  opts,
  async () => {
    await using t = await fakeEnv();
    t.env.FAKE_PERM_DIGIT_SELECTS = "1";
    await using c = await connect(t.env);
    const l = await c.ok<Launch>("agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "PERM digit selects",
    });
    const sid = l.session_id;
    const seen = await eventually(
      async () => {
        const r = await c.ok<{ status: string; digest: string | null }>("agent_approval", {
          action: "inspect",
          session_id: sid,
        });
        return r.status === "approval_required" && r;
      },
      15_000,
      "dialog",
    );
    const r = await c.ok<{ status: string; typed: boolean; selected_choice: string }>("agent_approval", {
      action: "respond",
      session_id: sid,
      approval_choice: "approve_once",
      observed_prompt_digest: seen.digest,
    });
    assertEquals([r.status, r.typed, r.selected_choice], ["submitted", true, "approve_once"]);
    assertEquals((await runWaiter(t.env, l.wait_process!)).code, 0);
  },
);
