/**
 * Launch options that must take effect or be refused, with the REAL pinned CLIs (Claude Code 2.1.328,
 * Codex CLI 0.169.0, Grok Build 1.0.41) against the loopback fake model servers (issue 17, items 3, 4
 * and 8). What each CLI sent is read from the fake server's request log:
 *
 * - models: agent_models reads Claude Code's own list (its stream-json `initialize` answer, no model
 *   request); agent_launch refuses an id outside the live catalog (MODEL_UNKNOWN naming the choices)
 *   or one no CLI could take (INVALID_ARGUMENT) with nothing started, and an accepted alias reaches
 *   the model server as the id the CLI resolves it to.
 * - fast:true: the seat starts in fast mode (Claude `speed:"fast"` + the fast-mode beta, Codex
 *   `service_tier:"priority"`), the receipt says fast:true only once the CLI's screen shows it, and the
 *   user's own settings are left alone (the CLIs' `/fast` commands would save it as their default).
 * - the sub-agent notice reaches the model in the system / developer channel, not in the user's text.
 *
 * Ignored, with the reason in the name, when tmux or a CLI is missing.
 */
import { gitProject, runWaiter, serverEnv, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import { findVendorClis, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";
import type { FakeServer, RecordedRequest } from "../fixtures/fake_api/mod.ts";

const clis = findVendorClis();
const why = (cli: string | null) =>
  !hasTmux ? " [ignored: tmux missing]" : cli ? "" : " [ignored: run scripts/install_vendor_clis.sh first]";
const NOTICE = "[aiterm] You are a sub-agent running in aiterm session";

interface Launch {
  session_id: string;
  startup: { status: string; reason: string };
  initial_prompt: { status: string };
  wait_process: WaitProcess | null;
  fast: boolean;
  fast_error: { code: string; message: string } | null;
}
interface Models {
  catalog: string;
  source: string;
  default_model: string | null;
  models: { id: string; resolved_model: string | null; fast: boolean; efforts: string[] }[];
}

async function sessions(c: TestClient): Promise<number> {
  return (await c.ok<{ sessions: unknown[] }>("pty_list")).sessions.length;
}

async function answer(c: TestClient, session_id: string): Promise<string> {
  return (await c.ok<{ text: string }>("pty_read", { session_id, agent_transcript: true, cursor: 0 })).text;
}

/** Launches with `args`, waits for the first turn to end, returns the receipt and the turn's model requests. */
async function launchAndWait(
  c: TestClient,
  env: Record<string, string>,
  srv: FakeServer,
  args: Record<string, unknown>,
  isTurn: (r: RecordedRequest) => boolean,
): Promise<{ l: Launch; turn: RecordedRequest[] }> {
  const l = await c.ok<Launch>("agent_launch", args);
  assertEquals(l.initial_prompt.status, "started", JSON.stringify(l));
  const w = await runWaiter(env, l.wait_process!);
  assertEquals(w.code, 0, JSON.stringify(w.json));
  return { l, turn: srv.requests.filter(isTurn) };
}

/** A Messages request that carries the conversation (tools), not a title or summary request. */
const claudeTurn = (r: RecordedRequest) =>
  r.path.startsWith("/v1/messages") && !r.path.includes("count_tokens") &&
  Array.isArray((r.body as { tools?: unknown[] })?.tools) && (r.body as { tools: unknown[] }).tools.length > 0;

/** A Responses request of the conversation: its input has the prompt as a user message. */
const responsesTurn = (prompt: string) => (r: RecordedRequest) =>
  r.path.endsWith("/responses") && JSON.stringify((r.body as { input?: unknown })?.input ?? "").includes(prompt);

interface InputItem {
  role?: string;
  content?: string | { text?: string }[];
}
/** The text of the Responses input items with `role`. */
function roleText(r: RecordedRequest, role: string): string {
  const input = (r.body as { input?: InputItem[] }).input ?? [];
  return input.filter((i) => i.role === role).map((i) =>
    typeof i.content === "string" ? i.content : (i.content ?? []).map((c) => c.text ?? "").join("\n")
  ).join("\n");
}

Deno.test({
  name: `real claude-code: agent_models is the CLI's own list; unknown and malformed models are refused${
    why(clis.claude)
  }`,
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
    const cat = await c.ok<Models>("agent_models", { harness: "claude-code" });
    assertEquals([cat.catalog, cat.source, cat.default_model], ["live", "claude-code-initialize", "default"]);
    const opus = cat.models.find((m) => m.id === "opus");
    assert(opus && /^claude-opus-/.test(opus.resolved_model ?? ""), JSON.stringify(cat));
    assertEquals(opus.efforts, ["low", "medium", "high", "xhigh", "max"]);
    const sonnet = cat.models.find((m) => m.id === "sonnet")!;
    assertEquals(sonnet.fast, false);
    // Reading the list sent nothing to the model server.
    assertEquals(srv.requests.filter((r) => r.path.startsWith("/v1/messages")).length, 0);

    const before = await sessions(c);
    const e = await c.err("agent_launch", { harness: "claude-code", cwd: proj, model: "gpt-9", prompt: "x" });
    assertEquals(e.code, "MODEL_UNKNOWN", e.text);
    assertStringIncludes(e.text, "opus");
    assertStringIncludes(e.text, opus.resolved_model!);
    const flag = await c.err("agent_launch", { harness: "claude-code", cwd: proj, model: "--version" });
    assertEquals(flag.code, "INVALID_ARGUMENT", flag.text);
    const slow = await c.err("agent_launch", { harness: "claude-code", cwd: proj, model: "sonnet", fast: true });
    assertEquals(slow.code, "FAST_MODE_NOT_SUPPORTED", slow.text);
    assertEquals(await sessions(c), before, "something was started");

    // An alias from the list is accepted, and the model server gets the id the CLI resolves it to.
    const { l, turn } = await launchAndWait(c, env, srv, {
      harness: "claude-code",
      cwd: proj,
      model: "sonnet",
      prompt: "which model",
    }, claudeTurn);
    assert(turn.length > 0, "no turn request");
    assertEquals((turn[0]!.body as { model: string }).model, sonnet.resolved_model);
    // Its full id is accepted as well (it names the same catalog entry).
    const full = await c.ok<Launch>("agent_launch", {
      harness: "claude-code",
      cwd: proj,
      model: sonnet.resolved_model,
    });
    await c.ok("pty_close", { session_id: full.session_id });
    await c.ok("pty_close", { session_id: l.session_id });
  },
});

Deno.test({
  name:
    `real claude-code: fast:true runs the seat fast (speed:"fast" reaches the server), confirmed, settings untouched${
      why(clis.claude)
    }`,
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
    const { l, turn } = await launchAndWait(c, env, srv, {
      harness: "claude-code",
      cwd: proj,
      fast: true,
      prompt: "fast task",
    }, claudeTurn);
    assertEquals([l.fast, l.fast_error], [true, null], JSON.stringify(l));
    assert(turn.length > 0, "no turn request");
    for (const r of turn) {
      assertEquals((r.body as { speed?: string }).speed, "fast");
      assertStringIncludes(r.headers["anthropic-beta"] ?? "", "fast-mode-");
    }
    // The choice is this seat's: the user's settings file does not get fastMode.
    const settings = await Deno.readTextFile(`${vh.configDir}/settings.json`).catch(() => "{}");
    assertEquals(JSON.parse(settings).fastMode, undefined);

    // fast:false is normal speed: no speed field, no fast mark, no error.
    const before = srv.requests.length;
    const n = await launchAndWait(c, env, srv, {
      harness: "claude-code",
      cwd: proj,
      fast: false,
      prompt: "normal task",
    }, (r) => claudeTurn(r) && srv.requests.indexOf(r) >= before);
    assertEquals([n.l.fast, n.l.fast_error], [false, null]);
    assert(n.turn.length > 0 && n.turn.every((r) => (r.body as { speed?: string }).speed === undefined));
    await c.ok("pty_close", { session_id: l.session_id });
    await c.ok("pty_close", { session_id: n.l.session_id });
  },
});

Deno.test({
  name:
    `real codex-cli: fast:true runs the seat on the priority tier, confirmed from the status line, config untouched${
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
    const cat = await c.ok<Models>("agent_models", { harness: "codex-cli" });
    const model = cat.models.find((m) => m.fast);
    assert(model, "no model with a fast tier in the catalog");
    const { l, turn } = await launchAndWait(c, env, srv, {
      harness: "codex-cli",
      cwd: proj,
      model: model.id,
      fast: true,
      prompt: "fast codex task",
    }, responsesTurn("fast codex task"));
    assertEquals([l.fast, l.fast_error], [true, null], JSON.stringify(l));
    assert(turn.length > 0, "no turn request");
    for (const r of turn) assertEquals((r.body as { service_tier?: string }).service_tier, "priority");
    assert(!(await Deno.readTextFile(`${vh.configDir}/config.toml`)).includes("service_tier"), "config.toml changed");
    await c.ok("pty_close", { session_id: l.session_id });
  },
});

Deno.test({
  name:
    `real claude-code and codex-cli: the sub-agent notice reaches the model as system / developer text, not in the prompt${
      why(clis.claude && clis.codex)
    }`,
  ignore: !hasTmux || !clis.claude || !clis.codex,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    const proj = await gitProject(t);
    {
      await using srv = startFakeAnthropic();
      await using vh = await vendorHome("claude", { apiUrl: srv.url, cwd: proj, trusted: true });
      const env = serverEnv(t, vh.env, { CLAUDE_BIN: clis.claude! });
      await using c = await connect(env);
      const { l, turn } = await launchAndWait(c, env, srv, {
        harness: "claude-code",
        cwd: proj,
        prompt: "notice check",
      }, claudeTurn);
      assert(turn.length > 0, "no turn request");
      const body = turn[0]!.body as { system?: unknown; messages?: unknown };
      assertStringIncludes(JSON.stringify(body.system), NOTICE);
      assertStringIncludes(JSON.stringify(body.system), `session \\"${l.session_id}\\"`);
      assert(!JSON.stringify(body.messages).includes("[aiterm]"), "the notice is in the user's text");
      assertEquals(await answer(c, l.session_id), "MOCK_REPLY notice check");
      await c.ok("pty_close", { session_id: l.session_id });
    }
    {
      await using srv = startFakeOpenAI();
      await using vh = await vendorHome("codex", { apiUrl: srv.url, cwd: proj, trusted: true });
      const env = serverEnv(t, vh.env, { CODEX_BIN: clis.codex! });
      await using c = await connect(env);
      const { l, turn } = await launchAndWait(c, env, srv, {
        harness: "codex-cli",
        cwd: proj,
        prompt: "codex notice check",
      }, responsesTurn("codex notice check"));
      assert(turn.length > 0, "no turn request");
      assertStringIncludes(roleText(turn[0]!, "developer"), NOTICE);
      assert(!roleText(turn[0]!, "user").includes("[aiterm]"), "the notice is in the user's text");
      assertEquals(await answer(c, l.session_id), "MOCK_REPLY codex notice check");
      await c.ok("pty_close", { session_id: l.session_id });
    }
  },
});

Deno.test({
  name: `real grok-cli: the notice goes into the system prompt (--rules); models follow \`grok models\`; no fast mode${
    why(clis.grok)
  }`,
  ignore: !hasTmux || !clis.grok,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    const proj = await gitProject(t);
    await using srv = startFakeOpenAI();
    await using vh = await vendorHome("grok", { apiUrl: srv.url, cwd: proj, trusted: true });
    const env = serverEnv(t, vh.env, { GROK_BIN: clis.grok! });
    await using c = await connect(env);
    const cat = await c.ok<Models>("agent_models", { harness: "grok-cli" });
    assertEquals([cat.catalog, cat.source, cat.default_model], ["live", "grok-models", "mock"]);
    const before = await sessions(c);
    assertEquals(
      (await c.err("agent_launch", { harness: "grok-cli", cwd: proj, model: "gpt-9" })).code,
      "MODEL_UNKNOWN",
    );
    assertEquals(
      (await c.err("agent_launch", { harness: "grok-cli", cwd: proj, fast: true })).code,
      "FAST_MODE_NOT_SUPPORTED",
    );
    assertEquals(await sessions(c), before, "something was started");
    const { l, turn } = await launchAndWait(c, env, srv, {
      harness: "grok-cli",
      cwd: proj,
      model: "mock",
      prompt: "grok notice check",
    }, responsesTurn("grok notice check"));
    assert(turn.length > 0, "no turn request");
    assertStringIncludes(roleText(turn[0]!, "system"), NOTICE);
    assert(!roleText(turn[0]!, "user").includes("[aiterm] You are"), "the notice is in the user's text");
    await c.ok("pty_close", { session_id: l.session_id });
  },
});
