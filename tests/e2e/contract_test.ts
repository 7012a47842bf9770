/**
 * One contract, every harness: the same steps run against claude-code, codex-cli and cursor-cli (the
 * fake CLIs of tests/fixtures/bin, which draw the real screens and write the real transcript formats)
 * and grok-cli (the real Grok Build 1.0.41 against the loopback fake model server). Launch → first
 * answer → a second turn → a steer that stays inside the running turn → an API-error turn → a
 * approval dialog (where the fixture can raise one) → a waiter timeout → a harness killed mid-turn. Harness-specific details live only in the fixtures
 * table below (binary variables and prompt keywords).
 */
import { runWaiter, serverEnv, type WaitProcess } from "../helpers/agent.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import { findVendorClis, vendorHome } from "../helpers/vendor.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const grokBin = findVendorClis().grok;

interface Fixture {
  harness: "claude-code" | "codex-cli" | "cursor-cli" | "grok-cli";
  /** Builds the server environment for a project directory; returns it and a cleanup. */
  setup(t: TestEnv, proj: string): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }>;
  model?: string;
  slow: string;
  error: string;
  /** A prompt keyword that makes the harness ask for a command approval (when its fixture can). */
  approval?: string;
  /** What every answer of this harness contains. */
  answer: RegExp;
  ignore: boolean;
}

const fake = (vars: (t: TestEnv) => Record<string, string>) => (t: TestEnv) =>
  Promise.resolve({ env: { ...t.env, ...vars(t) }, cleanup: () => Promise.resolve() });

const FIXTURES: Fixture[] = [
  {
    harness: "claude-code",
    setup: fake(() => ({ CLAUDE_BIN: `${FIXTURE_BIN}claude` })),
    approval: "PERM",
    slow: "SLOW",
    error: "APIERR",
    answer: /ANSWER\(/,
    ignore: false,
  },
  {
    harness: "codex-cli",
    setup: fake((t) => ({ CODEX_BIN: `${FIXTURE_BIN}codex`, CODEX_HOME: `${t.home}/.codex` })),
    approval: "PERM",
    slow: "SLOW",
    error: "APIERR",
    answer: /ANSWER\(/,
    ignore: false,
  },
  {
    harness: "cursor-cli",
    setup: fake(() => ({ CURSOR_AGENT_BIN: `${FIXTURE_BIN}cursor-agent`, FAKE_CURSOR_SLOW_MS: "8000" })),
    slow: "SLOW",
    error: "APIERR",
    answer: /ANSWER\(/,
    ignore: false,
  },
  {
    harness: "grok-cli",
    async setup(t, proj) {
      const srv = startFakeOpenAI({ slowMs: 60_000 });
      const vh = await vendorHome("grok", { apiUrl: srv.url, cwd: proj, trusted: false });
      return {
        env: serverEnv(t, vh.env, { GROK_BIN: grokBin! }),
        cleanup: async () => {
          await vh[Symbol.asyncDispose]();
          await srv[Symbol.asyncDispose]();
        },
      };
    },
    model: "mock",
    slow: "SLOW",
    error: "ERR400",
    answer: /MOCK_REPLY/,
    ignore: !grokBin,
  },
];

interface Receipt {
  session_id: string;
  mode?: string;
  startup?: { status: string };
  event_cursor: number | null;
  joined_event_cursor?: number | null;
  wait_process: WaitProcess | null;
}

async function observe(c: TestClient, sid: string) {
  return await c.ok<{
    state: string;
    reason: string;
    harness_process?: { pid: number } | null;
    pane_process?: { pid: number } | null;
    harness_alive?: boolean;
    agent: { state: string };
  }>(
    "pty_observe",
    { session_id: sid },
  );
}

async function idle(c: TestClient, sid: string): Promise<void> {
  await eventually(async () => (await observe(c, sid)).agent.state === "ready", 60_000, "agent ready");
}

for (const f of FIXTURES) {
  Deno.test({
    name: `contract ${f.harness}: launch, answer, new turn, steer, error turn, stuck, timeout, killed` +
      (f.ignore ? " [ignored: run scripts/install_vendor_clis.sh]" : ""),
    ignore: !hasTmux || f.ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await using t = await makeTestEnv();
      await Deno.mkdir(`${t.root}/proj`);
      const proj = await Deno.realPath(`${t.root}/proj`);
      const { env, cleanup } = await f.setup(t, proj);
      try {
        await using c = await connect(env);
        const model = f.model ? { model: f.model } : {};
        // 1. Launch with a prompt: ready, cursor 0, the waiter says done, the answer is that turn's.
        const l = await c.ok<Receipt>("agent_launch", {
          harness: f.harness,
          cwd: proj,
          trust_project: true,
          prompt: "first contract task",
          ...model,
        });
        const sid = l.session_id;
        assertEquals([l.startup?.status, l.event_cursor], ["ready", 0], JSON.stringify(l));
        assertEquals((await runWaiter(env, l.wait_process!, 90)).code, 0);
        const a0 = await c.ok<{ text: string; cursor: number }>("pty_read", {
          session_id: sid,
          agent_transcript: true,
          cursor: 0,
        });
        assertMatch(a0.text, f.answer);
        assertEquals(a0.cursor, 0);
        // 2. An idle agent gets a new turn.
        await idle(c, sid);
        const s1 = await c.ok<Receipt>("pty_send", { wait: false, session_id: sid, text: "second contract task" });
        assertEquals([s1.mode, s1.event_cursor], ["agent_dispatch", 1]);
        assertEquals((await runWaiter(env, s1.wait_process!, 90)).code, 0);
        // 3. A steer joins the running turn: no new cursor, one completion, the next turn is 3.
        await idle(c, sid);
        const s2 = await c.ok<Receipt>("pty_send", {
          wait: false,
          session_id: sid,
          text: `${f.slow} third contract task`,
        });
        assertEquals(s2.event_cursor, 2);
        await eventually(async () => (await observe(c, sid)).agent.state === "busy", 30_000, "busy");
        const steer = await c.ok<Receipt>("pty_send", { wait: false, session_id: sid, text: "steer: keep it short" });
        assertEquals([steer.mode, steer.event_cursor, steer.joined_event_cursor], ["agent_steer", null, 2]);
        assertEquals((await runWaiter(env, s2.wait_process!, 120)).code, 0);
        await idle(c, sid);
        // 4. An API-error turn: the waiter says error (7), the answer read is AGENT_TURN_ERROR.
        const s3 = await c.ok<Receipt>("pty_send", {
          wait: false,
          session_id: sid,
          text: `${f.error} fourth contract task`,
        });
        assertEquals(s3.event_cursor, 3, "the steered turn was one turn");
        assertEquals((await runWaiter(env, s3.wait_process!, 90)).code, 7);
        assertEquals(
          (await c.err("pty_read", { session_id: sid, agent_transcript: true, cursor: 3 })).code,
          "AGENT_TURN_ERROR",
        );
        // 5. Stuck and slow: an approval dialog is a named blocked state (harnesses whose fixture can raise
        // one); a waiter whose time runs out during a running turn says timeout (3) and changes nothing.
        await idle(c, sid);
        if (f.approval) {
          const sp = await c.ok<Receipt>("pty_send", {
            wait: false,
            session_id: sid,
            text: `${f.approval} approval contract task`,
          });
          const o = await eventually(
            async () => {
              const x = await observe(c, sid);
              return x.state === "blocked" && x;
            },
            30_000,
            "blocked",
          );
          assertEquals([o.agent.state, o.reason], ["blocked", "approval_required"]);
          // A parent's waiter learns it too, without waiting for its timeout: exit 5 with the reason.
          const stuck = await runWaiter(env, sp.wait_process!, 60);
          assertEquals([stuck.code, stuck.json.outcome, stuck.json.reason], [5, "blocked", "approval_required"]);
          const dialog = await c.ok<{ choices: { id: string }[]; digest: string }>("agent_approval", {
            action: "inspect",
            session_id: sid,
          });
          assert(dialog.choices.some((x) => x.id === "approve_once"), JSON.stringify(dialog));
          await c.ok("agent_approval", {
            action: "respond",
            session_id: sid,
            approval_choice: "approve_once",
            observed_prompt_digest: dialog.digest,
          });
          assertEquals((await runWaiter(env, sp.wait_process!, 60)).code, 0);
          await idle(c, sid);
        }
        const slow = await c.ok<Receipt>("pty_send", {
          wait: false,
          session_id: sid,
          text: `${f.slow} slow contract task`,
        });
        assertEquals((await runWaiter(env, slow.wait_process!, 1)).code, 3);
        // 6. The harness killed in the middle of that turn: the waiter says closed (4), the send is refused.
        await eventually(async () => (await observe(c, sid)).agent.state === "busy", 30_000, "busy");
        // pty_observe tells the harness (an npm shim's native body for Codex) from the pane's process.
        const live = await observe(c, sid);
        assert(live.harness_process && live.pane_process && live.harness_alive, JSON.stringify(live));
        Deno.kill(live.harness_process.pid, "SIGKILL");
        assertEquals((await runWaiter(env, slow.wait_process!, 60)).code, 4);
        const dead = await observe(c, sid);
        assertEquals([dead.state, dead.harness_alive, dead.harness_process], ["exited", false, null]);
        assertEquals(
          (await c.err("pty_send", { wait: false, session_id: sid, text: "after the end" })).code,
          "SESSION_ENDED",
        );
      } finally {
        await cleanup();
      }
    },
  });
}
