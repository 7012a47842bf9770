/**
 * Codex steer against the REAL Codex CLI 0.169.0 (scripts/install_vendor_clis.sh) in a throwaway
 * CODEX_HOME. Steer is `unsupported` on Linux, so these tests run the macOS/Windows code path with
 * `os: "darwin"`; everything Codex does here is the real binary.
 *
 * 1. Approval: `--codex-steer enable` adds aiterm's two hooks to hooks.json next to the user's own,
 *    approves exactly those two through hooks/list → config/batchWrite, and a separate app-server
 *    lists them enabled and trusted (the user's hooks stay untrusted). Enabling again changes no
 *    byte of hooks.json or config.toml; disable removes only aiterm's hooks and approvals.
 * 2. Delivery: a Codex TUI (private tmux socket) loads those approved hooks. An answer queued while
 *    a turn waits for its tool call reaches the model inside that turn through the PostToolUse hook;
 *    one queued while the final reply is generated continues that turn through the Stop hook. In
 *    both cases the queue entry is gone and no separate turn runs it.
 * Ignored, with the reason in the name, when the real CLI (or tmux, for 2) is missing.
 */
import { parse as parseToml } from "smol-toml";
import { assert, assertEquals } from "../helpers/assert.ts";
import { eventually, hasTmux } from "../helpers/env.ts";
import { findVendorClis, PrivateTmux, type VendorHome, vendorHome } from "../helpers/vendor.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";
import type { FakeServer } from "../fixtures/fake_api/mod.ts";
import { AppServer, recordOf } from "../../harnesses/clients/mod.ts";
import { addToCodexQueue } from "../../harnesses/clients/mod.ts";
import { type DeliveryRecord, DeliveryStore, envelope } from "../../state/mod.ts";
import { parentIntegrations, parentStoreDirs } from "../../harnesses/clients/mod.ts";
import { runCodexSteer } from "../../harnesses/clients/mod.ts";

const codex = findVendorClis().codex;
const why = (needTmux: boolean) =>
  !codex
    ? " [ignored: run scripts/install_vendor_clis.sh first]"
    : needTmux && !hasTmux
    ? " [ignored: tmux missing]"
    : "";
const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** One call to a fresh real app-server of `home` (test side). */
async function rpc(env: Record<string, string>, home: string, method: string, params: Record<string, unknown>) {
  const conn = AppServer.spawn({ codexBin: codex!, codexHome: home, env }, {
    timeoutMs: 60_000,
    cwd: home,
    error: (f) => new Error(`${f.command} ${f.what} ${f.stderrTail}`),
  });
  try {
    await conn.initialize({ name: "aiterm-test", title: "aiterm test", version: "0" });
    const r = await conn.call(method, params);
    if (!r.ok) throw new Error(`${method}: ${r.message}`);
    return recordOf(r.result) ?? {};
  } finally {
    await conn.close();
  }
}

const USER_HOOKS = {
  hooks: {
    PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "/bin/true user-audit" }] }],
    SessionStart: [{ hooks: [{ type: "command", command: "/bin/true user-start" }] }],
  },
};

Deno.test({
  name: `real codex: enable approves exactly aiterm's two hooks, Codex lists them trusted; disable removes only ours${
    why(false)
  }`,
  ignore: !codex,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const proj = await Deno.makeTempDir({ prefix: "aiterm-steer-proj-" });
    await using vh = await vendorHome("codex", { apiUrl: "http://127.0.0.1:9", cwd: proj, trusted: false });
    try {
      const hooksJson = `${vh.configDir}/hooks.json`;
      const configToml = `${vh.configDir}/config.toml`;
      const userText = JSON.stringify(USER_HOOKS, null, 2) + "\n";
      await Deno.writeTextFile(hooksJson, userText);
      // The user already trusts a hook elsewhere; that approval must stay as it is.
      await Deno.writeTextFile(
        configToml,
        '\n[hooks.state."/elsewhere/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:users-own"\n',
        { append: true },
      );
      const configBefore = parseToml(await Deno.readTextFile(configToml)) as Record<string, unknown>;
      const server = { command: "/opt/aiterm/aiterm-mcp", args: [] };
      const options = {
        env: vh.env,
        dryRun: false,
        os: "darwin" as const,
        server: () => server,
        codexBin: codex!,
        listProcesses: () => [],
      };

      const r = await runCodexSteer("enable", options);
      assertEquals([r.status, r.state], ["ok", "ready"], r.detail);
      const real = await Deno.realPath(hooksJson);
      const ours = [`${real}:post_tool_use:1:0`, `${real}:stop:0:0`];
      assertEquals(r.codex_steer?.hooks.map((h) => h.key).sort(), ours);

      // config.toml: exactly our two keys were added under hooks.state; nothing else changed.
      const config = parseToml(await Deno.readTextFile(configToml)) as Record<string, Record<string, unknown>>;
      const state = config.hooks!.state as Record<string, Record<string, unknown>>;
      assertEquals(Object.keys(state).sort(), ["/elsewhere/hooks.json:stop:0:0", ...ours].sort());
      assertEquals(state["/elsewhere/hooks.json:stop:0:0"], { trusted_hash: "sha256:users-own" });
      for (const k of ours) assertEquals(Object.keys(state[k]!), ["trusted_hash"]);
      const { hooks: _h, ...rest } = config;
      const { hooks: _b, ...restBefore } = configBefore;
      assertEquals(rest, restBefore);
      assert(!/bypass/i.test(await Deno.readTextFile(configToml)), "a bypass flag was written");

      // A separate app-server agrees: ours enabled and trusted, the user's untouched and untrusted.
      const listed = await rpc(vh.env, vh.configDir, "hooks/list", { cwds: [vh.configDir] });
      const hooks = (listed.data as { hooks: Record<string, unknown>[] }[]).flatMap((d) => d.hooks);
      const view = Object.fromEntries(hooks.map((h) => [h.command, [h.trustStatus, h.enabled]]));
      assertEquals(view, {
        "/bin/true user-audit": ["untrusted", true],
        "/bin/true user-start": ["untrusted", true],
        "/opt/aiterm/aiterm-mcp hook codex-post-tool-use": ["trusted", true],
        "/opt/aiterm/aiterm-mcp hook codex-stop": ["trusted", true],
      });
      assertEquals(
        hooks.filter((h) => h.trustStatus === "trusted").map((h) => h.currentHash).sort(),
        [
          state[ours[0]!]!.trusted_hash,
          state[ours[1]!]!.trusted_hash,
        ].sort(),
      );

      // Enabling again: not one byte of either file changes.
      const bytes = [await Deno.readTextFile(hooksJson), await Deno.readTextFile(configToml)];
      const again = await runCodexSteer("enable", options);
      assertEquals([again.status, again.state], ["ok", "ready"]);
      assertEquals([await Deno.readTextFile(hooksJson), await Deno.readTextFile(configToml)], bytes);
      assertEquals((await runCodexSteer("status", options)).state, "ready");

      // Disable: the user's hooks.json content is back, our approvals are gone, theirs stays.
      const off = await runCodexSteer("disable", options);
      assertEquals([off.status, off.state], ["ok", "not_enabled"], off.detail);
      assertEquals(JSON.parse(await Deno.readTextFile(hooksJson)), USER_HOOKS);
      const after = parseToml(await Deno.readTextFile(configToml)) as Record<string, Record<string, unknown>>;
      assertEquals(Object.keys(after.hooks!.state as object), ["/elsewhere/hooks.json:stop:0:0"]);
      assertEquals((await runCodexSteer("status", options)).state, "not_enabled");
    } finally {
      await Deno.remove(proj, { recursive: true }).catch(() => {});
    }
  },
});

/** User-role texts and developer texts in one Responses request. */
function requestTexts(body: unknown): string {
  return JSON.stringify((body as { input?: unknown })?.input ?? "");
}

interface Steered extends AsyncDisposable {
  srv: FakeServer;
  vh: VendorHome;
  proj: string;
  threadId: string;
  env: Record<string, string>;
  store: DeliveryStore;
}

async function steeredParent(): Promise<Steered> {
  const srv = startFakeOpenAI({ slowMs: 8000 });
  const proj = await Deno.realPath(await Deno.makeTempDir({ prefix: "aiterm-steer-proj-" }));
  const vh = await vendorHome("codex", { apiUrl: srv.url, cwd: proj, trusted: true });
  const denoDir = JSON.parse(
    new TextDecoder().decode(new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).outputSync().stdout),
  ).denoDir as string;
  // The hooks run `deno run -A main.ts hook …` with the TUI's environment.
  const env = { ...vh.env, AITERM_STATE_DIR: `${vh.home}/aiterm-state`, CODEX_BIN: codex!, DENO_DIR: denoDir };
  const cleanup = async () => {
    await vh.cleanup();
    await srv.close();
    await Deno.remove(proj, { recursive: true }).catch(() => {});
  };
  try {
    // One finished turn, so the thread is on disk for the TUI to resume.
    const conn = AppServer.spawn({ codexBin: codex!, codexHome: vh.configDir, env }, {
      timeoutMs: 90_000,
      cwd: proj,
      error: (f) => new Error(`${f.what} ${f.stderrTail}`),
    });
    let threadId = "";
    try {
      await conn.initialize({ name: "aiterm-test", title: "aiterm test", version: "0" });
      const ok = async (method: string, params: Record<string, unknown>) => {
        const r = await conn.call(method, params);
        if (!r.ok) throw new Error(`${method}: ${r.message}`);
        return recordOf(r.result) ?? {};
      };
      const started = await ok("thread/start", { cwd: proj, sandbox: "read-only", approvalPolicy: "never" });
      threadId = String(recordOf(started.thread)?.id);
      await ok("turn/start", { threadId, input: [{ type: "text", text: "first task", text_elements: [] }] });
      await eventually(() => Promise.resolve(srv.requests.length > 0), 60_000, "the first model request");
      await eventually(
        async () => {
          const read = await ok("thread/read", { threadId, includeTurns: false });
          return recordOf(recordOf(read.thread)?.status)?.type === "idle";
        },
        60_000,
        "the first turn to complete",
      );
    } finally {
      await conn.close();
    }
    const enabled = await runCodexSteer("enable", {
      env,
      dryRun: false,
      os: "darwin",
      server: () => ({ command: Deno.execPath(), args: ["run", "-A", MAIN] }),
      codexBin: codex!,
      listProcesses: () => [],
    });
    assertEquals([enabled.status, enabled.state], ["ok", "ready"], enabled.detail);
    return {
      srv,
      vh,
      proj,
      threadId,
      env,
      store: new DeliveryStore(env.AITERM_STATE_DIR, parentStoreDirs(parentIntegrations())),
      [Symbol.asyncDispose]: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** Queues `body` the way the delivery manager does and records it as submitted through the queue. */
async function queueAnswer(p: Steered, n: number, body: string): Promise<DeliveryRecord> {
  const now = Date.now();
  const rec: DeliveryRecord = {
    schema: "aiterm.parent-delivery.v1",
    delivery_id: crypto.randomUUID(),
    parent: "codex",
    destination: { thread_id: p.threadId, codex_home: p.vh.configDir },
    child: { session_id: `child-${n}`, launch_id: `l${n}`, harness: "claude-code", cursor: n, generation: null },
    state: "sending",
    child_outcome: "done",
    child_turn_id: null,
    child_error: null,
    queued_submission_id: null,
    error_code: null,
    owner: null,
    sender: null,
    received_by: null,
    created_at_ms: now,
    ready_at_ms: now,
    updated_at_ms: now,
  };
  await p.store.create(rec);
  await p.store.saveBody("codex", rec.delivery_id, body);
  const q = await addToCodexQueue(
    { codexBin: codex!, codexHome: p.vh.configDir, threadId: p.threadId, env: p.env },
    envelope(rec, body),
    rec.delivery_id,
  );
  const after = await p.store.update("codex", rec.delivery_id, (r) => ({
    ...r,
    state: "submitted",
    queued_submission_id: q.queuedSubmissionId,
    received_by: "codex_queue",
  }));
  return after!;
}

Deno.test({
  name: `real codex: the PostToolUse hook hands a queued answer to the running turn, the Stop hook continues the turn${
    why(true)
  }`,
  ignore: !codex || !hasTmux,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using p = await steeredParent();
    await using tui = await PrivateTmux.start({
      env: p.env,
      cwd: p.proj,
      argv: [codex!, "resume", p.threadId, "--no-alt-screen", "-a", "never", "-s", "danger-full-access"],
    });
    await tui.waitFor((s) => s.includes("MOCK_REPLY first task") && s.includes("? for shortcuts"), 60_000, "idle TUI");
    const turnsBefore = ((await rpc(p.env, p.vh.configDir, "thread/turns/list", { threadId: p.threadId }))
      .data as unknown[]).length;

    // 1. PostToolUse: the answer is queued while the model is still deciding on its tool call.
    const seen = p.srv.requests.length;
    await tui.submit("SLOW TOOLCALL steer check");
    await eventually(() => Promise.resolve(p.srv.requests.length > seen), 30_000, "the slow model request");
    const a = await queueAnswer(p, 1, "STEER-POST-7c1e: the child's answer\nsecond line ✓");
    await tui.waitFor("MOCK_AFTER_TOOL done.", 90_000, "the turn to finish after its tool call");
    const carrying = p.srv.requests.filter((r) => requestTexts(r.body).includes("STEER-POST-7c1e"));
    assert(carrying.length > 0, "the model never received the answer");
    // The first request that carries it is the one right after the tool ran: the same turn.
    // Codex 0.169.0 puts additionalContext in as a developer message, byte-exact, before the tool output.
    const input = (carrying[0]!.body as { input: Record<string, unknown>[] }).input;
    const dev = input.findIndex((i) =>
      i.role === "developer" && JSON.stringify(i.content) ===
        JSON.stringify([{
          type: "input_text",
          text: envelope(a, "STEER-POST-7c1e: the child's answer\nsecond line ✓"),
        }])
    );
    assert(dev >= 0, "no developer message holds exactly the answer");
    assertEquals(input.slice(dev + 1).some((i) => i.type === "function_call_output"), true);
    const recA = await p.store.read("codex", a.delivery_id);
    assertEquals([recA?.state, recA?.received_by], ["submitted", "codex_post_tool_use"]);

    // 2. Stop: the answer is queued while the final reply is being generated.
    const seen2 = p.srv.requests.length;
    await tui.submit("SLOW final words");
    await eventually(() => Promise.resolve(p.srv.requests.length > seen2), 30_000, "the slow model request");
    const b = await queueAnswer(p, 2, "STEER-STOP-4d2a: the second answer");
    // Codex shows "Blocked by hook" with the answer, and the model answers the continuation prompt
    // (Codex wraps it as <hook_prompt hook_run_id="stop:…">) within the same turn.
    await tui.waitFor(
      (s) => s.includes("Blocked by hook") && s.includes("MOCK_REPLY <hook_prompt"),
      90_000,
      "continued",
    );
    assert(p.srv.requests.some((r) => requestTexts(r.body).includes("STEER-STOP-4d2a")), "no request carried it");
    const recB = await p.store.read("codex", b.delivery_id);
    assertEquals([recB?.state, recB?.received_by], ["submitted", "codex_stop"]);

    // Neither answer is left in the queue, and no turn of its own ran either of them.
    await tui.waitFor((s) => s.includes("? for shortcuts"), 60_000, "idle again");
    assertEquals((await rpc(p.env, p.vh.configDir, "thread/queue/list", { threadId: p.threadId })).data, []);
    // On screen: only the three prompts typed here were user turns; no answer ran as a prompt of its own.
    const screen = await tui.screen(400);
    assertEquals(
      screen.split("\n").filter((l) => l.startsWith("› ") && !l.includes("Ask Codex")).map((l) => l.trim()),
      [
        "› first task",
        "› SLOW TOOLCALL steer check",
        "› SLOW final words",
      ],
    );
    // In the thread: the Stop continuation is a hookPrompt item of the last turn, and no user message
    // carries either delivery id (a queue entry that ran would).
    const turns = await eventually(
      async () => {
        const list =
          (await rpc(p.env, p.vh.configDir, "thread/turns/list", { threadId: p.threadId, itemsView: "full" }))
            .data as { items: Record<string, unknown>[] }[];
        return list.some((t) => t.items.some((i) => i.type === "hookPrompt")) ? list : null;
      },
      60_000,
      "the continued turn in the thread",
    );
    assertEquals(turns.length, turnsBefore + 2);
    const clientIds = turns.flatMap((t) => t.items).map((i) => i.clientId).filter((c) => c);
    assertEquals(clientIds.includes(a.delivery_id) || clientIds.includes(b.delivery_id), false);
  },
});
