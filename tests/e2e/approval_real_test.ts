/**
 * agent_approval through MCP with the REAL pinned CLIs (Codex CLI 0.169.0, Claude Code 2.1.328)
 * against the loopback fake model servers, whose TOOLCALL keyword makes the model run `echo TOOL_OK`.
 * The throwaway HOME makes each CLI ask about that command: a Codex exec-policy rule
 * (`prefix_rule(pattern=["echo"], decision="prompt")` in CODEX_HOME/rules) and a Claude Code
 * `permissions.ask` rule for `Bash(echo TOOL_OK)`. Ignored, with the reason in the name, when tmux or
 * the CLIs are missing.
 */
import { gitProject, runWaiter, serverEnv, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import { findVendorClis, killProcessesUsing, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";

const clis = findVendorClis();
const why = (cli: string | null) =>
  !hasTmux ? " [ignored: tmux missing]" : cli ? "" : " [ignored: run scripts/install_vendor_clis.sh first]";

interface Approval {
  status: string;
  reason: string;
  kind: string | null;
  text: string | null;
  choices: { id: string; label: string; single_shot: boolean; key: string }[];
  digest: string | null;
  selected_choice: string | null;
  typed: boolean;
  after: string | null;
  launch_id: string;
}
interface Observe {
  state: string;
  reason: string;
  agent: { state: string; reason: string | null } | null;
}

const STALE = `sha256:${"0".repeat(64)}`;

const inspect = (c: TestClient, sid: string) =>
  c.ok<Approval>("agent_approval", { action: "inspect", session_id: sid });
const respond = (c: TestClient, sid: string, choice: string, digest: string) =>
  c.ok<Approval>("agent_approval", {
    action: "respond",
    session_id: sid,
    approval_choice: choice,
    observed_prompt_digest: digest,
  });
const screenOf = async (c: TestClient, sid: string) =>
  (await c.ok<{ text: string }>("pty_read", { session_id: sid, screen: true })).text;
/** The bottom of the screen, where the dialog is (the banner above it may animate). */
const dialogArea = async (c: TestClient, sid: string) => (await screenOf(c, sid)).trimEnd().split("\n").slice(-12);

/** Requests to the fake model whose newest input is a tool result (Anthropic tool_result, OpenAI *_call_output). */
function toolResults(requests: { body: unknown }[]): number {
  return requests.filter((r) => {
    const b = r.body as { messages?: { content?: unknown }[]; input?: { type?: string }[] } | null;
    const lastMsg = b?.messages?.[b.messages.length - 1]?.content;
    if (Array.isArray(lastMsg)) return lastMsg.some((x) => (x as { type?: string }).type === "tool_result");
    const lastItem = b?.input?.[b.input.length - 1];
    return typeof lastItem?.type === "string" && lastItem.type.endsWith("_call_output");
  }).length;
}

/** Waits until pty_observe says the agent is blocked on an approval. */
async function approvalShown(c: TestClient, sid: string): Promise<Observe> {
  return await eventually(
    async () => {
      const o = await c.ok<Observe>("pty_observe", { session_id: sid });
      return o.agent?.reason === "approval_required" ? o : null;
    },
    30_000,
    "approval_required",
  );
}

interface Case {
  harness: "claude-code" | "codex-cli";
  bin: string | null;
  /** The deny choice's label. */
  denyLabel: string;
}

const CASES: Case[] = [
  { harness: "codex-cli", bin: clis.codex, denyLabel: "No, and tell Codex what to do differently" },
  { harness: "claude-code", bin: clis.claude, denyLabel: "No" },
];

for (const k of CASES) {
  Deno.test({
    name:
      `real ${k.harness}: approval_required is observed, a stale digest or a remembered choice types nothing, approve_once runs the command once and the turn completes, deny ends the next one${
        why(k.bin)
      }`,
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
        trusted: true,
      });
      if (k.harness === "codex-cli") {
        await Deno.mkdir(`${vh.configDir}/rules`, { recursive: true });
        await Deno.writeTextFile(
          `${vh.configDir}/rules/default.rules`,
          'prefix_rule(pattern=["echo"], decision="prompt")\n',
        );
      } else {
        await Deno.writeTextFile(
          `${vh.configDir}/settings.json`,
          JSON.stringify({ permissions: { ask: ["Bash(echo TOOL_OK)"] } }),
        );
      }
      const env = serverEnv(t, vh.env, k.harness === "claude-code" ? { CLAUDE_BIN: k.bin! } : { CODEX_BIN: k.bin! });
      await using c = await connect(env);
      let sid = "";
      try {
        const l = await c.ok<{ session_id: string; initial_prompt: { status: string }; wait_process: WaitProcess }>(
          "agent_launch",
          { harness: k.harness, cwd: proj, prompt: "TOOLCALL please" },
        );
        sid = l.session_id;
        assertEquals(l.initial_prompt.status, "started", await screenOf(c, sid));

        // The parent sees what the child is stuck on.
        const o = await approvalShown(c, sid);
        assertEquals([o.state, o.reason], ["blocked", "approval_required"]);

        // inspect: the dialog as the CLI shows it, with a digest that is stable while it stays.
        const seen = await inspect(c, sid);
        assertEquals([seen.status, seen.kind], ["approval_required", "command"], JSON.stringify(seen));
        assertStringIncludes(seen.text ?? "", "echo TOOL_OK");
        assertEquals(seen.choices.map((x) => [x.id, x.single_shot]), [["approve_once", true], ["deny", true]]);
        assertEquals(seen.choices[1]!.label, k.denyLabel);
        assertMatch(seen.digest ?? "", /^sha256:[0-9a-f]{64}$/);
        assertEquals((await inspect(c, sid)).digest, seen.digest);
        const before = await dialogArea(c, sid);

        // A stale digest and a choice the dialog does not offer are blocked, and nothing is typed.
        const stale = await respond(c, sid, "approve_once", STALE);
        assertEquals([stale.status, stale.reason, stale.typed], ["blocked", "digest_changed", false]);
        assertEquals(stale.digest, seen.digest); // what is shown now, to inspect again
        const always = await respond(c, sid, "approve_always", seen.digest!);
        assertEquals([always.status, always.reason, always.typed], ["blocked", "choice_not_offered", false]);
        assertEquals(await dialogArea(c, sid), before);
        assertEquals((await inspect(c, sid)).digest, seen.digest);
        assertEquals(toolResults(srv.requests), 0);

        // The right digest approves once; the dialog goes away and the turn ends with the tool's answer.
        const ok = await respond(c, sid, "approve_once", seen.digest!);
        assertEquals([ok.status, ok.reason, ok.typed, ok.selected_choice], [
          "submitted",
          "choice_submitted",
          true,
          "approve_once",
        ]);
        assert(ok.after !== "blocked:approval_required", `after: ${ok.after}`);
        const w = await runWaiter(env, l.wait_process);
        assertEquals([w.code, w.json.outcome], [0, "done"], JSON.stringify(w.json));
        const answer = await c.ok<{ text: string }>("pty_read", { session_id: sid, agent_transcript: true, cursor: 0 });
        assertStringIncludes(answer.text, "MOCK_AFTER_TOOL done.");
        // The model got exactly one result of the command back.
        assertEquals(toolResults(srv.requests), 1);

        // The same digest again: the dialog is gone, so nothing is typed.
        const again = await respond(c, sid, "approve_once", seen.digest!);
        assertEquals([again.status, again.reason, again.typed], ["blocked", "no_dialog", false]);
        assertEquals((await inspect(c, sid)).status, "none");

        // A second request is a new dialog (another digest); deny answers it once.
        await c.ok("pty_send", { wait: false, session_id: sid, text: "TOOLCALL once more" });
        await approvalShown(c, sid);
        const second = await inspect(c, sid);
        // Same command, same text: the turn it belongs to makes it another dialog.
        assertEquals([second.status, second.text], ["approval_required", seen.text]);
        assert(second.digest !== seen.digest, "the second request has the first one's digest");
        const old = await respond(c, sid, "approve_once", seen.digest!);
        assertEquals([old.status, old.reason, old.typed], ["blocked", "digest_changed", false]);
        const denied = await respond(c, sid, "deny", second.digest!);
        // Typed once; on a loaded machine the redraw may come after respond returned (submitted_unconfirmed).
        assertMatch(denied.status, /^submitted(_unconfirmed)?$/);
        assertEquals([denied.typed, denied.selected_choice], [true, "deny"]);
        await eventually(async () => (await inspect(c, sid)).status === "none", 15_000, "dialog gone after deny")
          .catch(async (err) => {
            const screen = (await c.ok<{ text: string }>("pty_read", { session_id: sid, screen: true })).text;
            throw new Error(`${(err as Error).message}; respond said ${JSON.stringify(denied)}; screen:\n${screen}`);
          });
      } finally {
        if (sid) await c.call("pty_close", { session_id: sid }).catch(() => {});
        await c.close();
        await killProcessesUsing(vh.home);
      }
    },
  });
}
