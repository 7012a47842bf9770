/**
 * Issue 17 items 2, 5, 6, 7 through the real MCP SDK client on real tmux with the fake CLIs of
 * tests/fixtures/bin: pty_observe/pty_list tell pane and harness apart and say the agent's state;
 * a launch replay with another request is LAUNCH_OPERATION_CONFLICT; aiterm-wait's edge cases have
 * their own exit codes; receipts and server instructions say what this parent must do.
 */
import { runWaiter } from "../helpers/agent.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, registeredServerCommand, type TestClient } from "../helpers/mcp.ts";
import { installClaudeParentHooks } from "../../harnesses/clients/mod.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const hasFakes = await Deno.stat(`${FIXTURE_BIN}claude`).then(() => true, () => false);
const opts = { ignore: !hasTmux || !hasFakes, sanitizeOps: false, sanitizeResources: false };

interface Identity {
  pid: number;
  start: string | null;
  argv_digest: string | null;
}
interface Observed {
  state: string;
  reason: string;
  pane_alive: boolean;
  foreground: { pid: number; is_shell: boolean } | null;
  pane_process?: Identity | null;
  harness_process?: Identity | null;
  harness_alive?: boolean;
  agent: {
    harness: string;
    state: string;
    reason: string | null;
    model?: string | null;
    pending_deliveries?: { delivery_id: string; parent: string; state: string; cursor: number }[];
  } | null;
}
interface Receipt {
  session_id: string;
  mode?: string;
  event_cursor: number | null;
  joined_event_cursor?: number | null;
  wait_process: { executable: string; args: string[]; windows_start_process_argument_list: string | null } | null;
  parent_delivery: { delivery_id: string; parent: string; state: string } | null;
  generation: string;
  next: string;
  warning?: { code: string; message: string };
}

async function agentEnv(extra: Record<string, string> = {}): Promise<TestEnv> {
  const t = await makeTestEnv(extra);
  t.env.CLAUDE_BIN = `${FIXTURE_BIN}claude`;
  t.env.CODEX_BIN = `${FIXTURE_BIN}codex`;
  t.env.CODEX_HOME = `${t.home}/.codex`;
  await Deno.mkdir(`${t.root}/proj`);
  return t;
}

const observe = (c: TestClient, session_id: string) => c.ok<Observed>("pty_observe", { session_id });

/** Runs `aiterm-mcp wait …` as a parent would start aiterm-wait; returns its exit code and JSON line. */
async function waitCli(
  t: TestEnv,
  args: string[],
): Promise<{ code: number; json: Record<string, unknown>; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "wait", ...args],
    env: t.env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  return { code: out.code, json: text ? JSON.parse(text) : {}, stderr: new TextDecoder().decode(out.stderr) };
}

// ---- item 2: pane vs harness ----

Deno.test(
  "pty_observe of an agent: its state at the top (ready, busy, exited), pane and harness apart, no shell",
  opts,
  async () => {
    await using t = await agentEnv({ FAKE_SLOW_MS: "30000" });
    await using c = await connect(t.env);
    const l = await c.ok<Receipt>("agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
    });
    const ready = await eventually(async () => {
      const o = await observe(c, l.session_id);
      return o.state === "ready" && o;
    });
    assertEquals([ready.reason, ready.harness_alive, ready.agent?.state], ["accepts_input", true, "ready"]);
    assertEquals(ready.agent?.pending_deliveries, []);
    assertEquals(ready.agent?.model, null);
    assert(ready.pane_process && ready.harness_process, JSON.stringify(ready));
    // The fake CLI is the pane's own process (exec'd by the launcher): the same pid, reported twice, apart.
    assertEquals(ready.harness_process.pid, ready.pane_process.pid);
    assertMatch(ready.harness_process.argv_digest ?? "", /^sha256:[0-9a-f]{64}$/);
    assertMatch(ready.pane_process.start ?? "", /./);
    assert(ready.foreground?.is_shell !== true, "an agent's pane has no shell");

    await c.ok<Receipt>("pty_send", { wait: false, session_id: l.session_id, text: "SLOW long task" });
    const busy = await eventually(async () => {
      const o = await observe(c, l.session_id);
      return o.state === "busy" && o;
    });
    // Before: state idle_shell, is_shell:true while the agent was busy.
    assertEquals([busy.reason, busy.harness_alive, busy.agent?.state], ["turn_running", true, "busy"]);
    assert(busy.foreground?.is_shell !== true, JSON.stringify(busy.foreground));

    Deno.kill(busy.harness_process!.pid, "SIGKILL");
    const gone = await eventually(async () => {
      const o = await observe(c, l.session_id);
      return o.state === "exited" && o;
    });
    assertEquals([gone.pane_alive, gone.harness_alive, gone.harness_process, gone.pane_process], [
      false,
      false,
      null,
      null,
    ]);
    assertEquals(gone.agent?.state, "exited");
  },
);

Deno.test("an npm-style shim in the pane: harness_process is the CLI body below the pane's process", opts, async () => {
  await using t = await agentEnv({ FAKE_SLOW_MS: "30000" });
  // Like @openai/codex's bin/codex.js: a node script that starts the real CLI as its child on the same terminal.
  const shim = `${t.root}/shim/codex.js`;
  await Deno.mkdir(`${t.root}/shim`);
  await Deno.writeTextFile(
    shim,
    [
      "#!/usr/bin/env node",
      'const { spawn } = require("node:child_process");',
      `const child = spawn(process.execPath, [${
        JSON.stringify(`${FIXTURE_BIN}codex`)
      }, ...process.argv.slice(2)], { stdio: "inherit" });`,
      'child.on("exit", (code) => process.exit(code ?? 1));',
      "",
    ].join("\n"),
  );
  await Deno.chmod(shim, 0o755);
  t.env.CODEX_BIN = shim;
  await using c = await connect(t.env);
  const l = await c.ok<Receipt>("agent_launch", {
    harness: "codex-cli",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "SLOW shim task",
  });
  const o = await eventually(
    async () => {
      const x = await observe(c, l.session_id);
      return x.state === "busy" && x;
    },
    20_000,
    "busy",
  );
  assert(o.pane_process && o.harness_process, JSON.stringify(o));
  assert(o.harness_process.pid !== o.pane_process.pid, "the shim was taken for the harness");
  const ppid = Number((await Deno.readTextFile(`/proc/${o.harness_process.pid}/stat`)).split(") ")[1]!.split(" ")[1]);
  assertEquals(ppid, o.pane_process.pid, "the body is the shim's child");
  assert(o.harness_process.argv_digest !== o.pane_process.argv_digest, "each has its own argv digest");
});

Deno.test("pty_list rows carry harness and model for agent sessions, nothing for plain terminals", opts, async () => {
  await using t = await agentEnv();
  await using c = await connect(t.env);
  const models = await c.ok<{ models: { id: string; hidden?: boolean }[] }>("agent_models", { harness: "codex-cli" });
  const model = models.models.find((m) => !m.hidden)?.id;
  assert(model, JSON.stringify(models));
  await c.ok("agent_launch", { harness: "codex-cli", cwd: `${t.root}/proj`, session_name: "kid", model });
  await c.ok("agent_launch", { harness: "claude-code", cwd: `${t.root}/proj`, session_name: "kid2" });
  await c.ok("pty_open", { name: "plain", cwd: t.root });
  const rows = (await c.ok<{ sessions: Record<string, unknown>[] }>("pty_list")).sessions;
  const by = Object.fromEntries(rows.map((r) => [r.session_id, r]));
  assertEquals([by.kid?.harness, by.kid?.model], ["codex-cli", model]);
  assertEquals([by.kid2?.harness, by.kid2?.model], ["claude-code", null]);
  assert(!("harness" in by.plain!) && !("model" in by.plain!), JSON.stringify(by.plain));
});

Deno.test(
  "pty_observe lists the parent deliveries still pending for a child until the parent takes the answer",
  opts,
  async () => {
    await using t = await agentEnv({ FAKE_SLOW_MS: "4000" });
    await installClaudeParentHooks(registeredServerCommand(), { env: t.env, home: t.home, dryRun: false });
    await using c = await connect(t.env, "claude-code");
    const hook = async (name: string, input: unknown) => {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, "hook", name],
        env: t.env,
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode(JSON.stringify(input)));
      await w.close();
      return (await child.output()).code;
    };
    assertEquals(
      await hook("claude-pre-tool-use", {
        session_id: "conv-1",
        hook_event_name: "PreToolUse",
        tool_name: "mcp__aiterm__agent_launch",
        tool_input: {},
        tool_use_id: "toolu_T1",
      }),
      0,
    );
    const r = await c.client.callTool(
      {
        name: "agent_launch",
        arguments: { harness: "claude-code", cwd: `${t.root}/proj`, trust_project: true, prompt: "SLOW pending task" },
        _meta: { "claudecode/toolUseId": "toolu_T1" },
      },
      undefined,
      { timeout: 120_000 },
    );
    assert(!r.isError, JSON.stringify(r.content));
    const l = r.structuredContent as unknown as Receipt;
    assert(l.parent_delivery, "parent_delivery");
    // A Claude Code parent does nothing: the receipt says so in structuredContent (what its model reads).
    assertStringIncludes(l.next, "comes to you by itself");
    assertStringIncludes(l.next, "do not poll");
    assertEquals(l.wait_process, null);
    const o = await observe(c, l.session_id);
    assertEquals(o.agent?.pending_deliveries?.map((d) => [d.delivery_id, d.parent, d.cursor]), [
      [l.parent_delivery.delivery_id, "claude", 0],
    ]);
    assertMatch(o.agent!.pending_deliveries![0]!.state, /^(waiting|ready)$/);
    // The parent's PostToolUse takes the answer: nothing is pending any more.
    assertEquals(
      await hook("claude-post-tool-use", {
        session_id: "conv-1",
        hook_event_name: "PostToolUse",
        tool_name: "mcp__aiterm__agent_launch",
        tool_use_id: "toolu_T1",
        tool_response: [{ type: "text", text: "launched" }],
      }),
      2,
    );
    assertEquals((await observe(c, l.session_id)).agent?.pending_deliveries, []);
  },
);

// ---- item 5: replays ----

Deno.test(
  "launch_operation_id: an identical replay returns the receipt; any other request is LAUNCH_OPERATION_CONFLICT",
  opts,
  async () => {
    await using t = await agentEnv();
    await Deno.mkdir(`${t.root}/other`);
    await using c = await connect(t.env);
    const op = `sha256:${"ef".repeat(32)}`;
    const args = { harness: "claude-code", cwd: `${t.root}/proj`, session_name: "op1", launch_operation_id: op };
    const first = await c.ok<Receipt>("agent_launch", args);
    assertEquals(await c.ok<Receipt>("agent_launch", args), first);
    // Before: each of these returned the first receipt as this request's success.
    for (
      const [change, field] of [
        [{ model: "opus" }, "model"],
        [{ reasoning_effort: "high" }, "reasoning_effort"],
        [{ cwd: `${t.root}/other` }, "cwd"],
        [{ trust_project: true }, "trust_project"],
      ] as const
    ) {
      const e = await c.err("agent_launch", { ...args, ...change });
      assertEquals(e.code, "LAUNCH_OPERATION_CONFLICT", e.text);
      assertStringIncludes(e.message, field);
    }
    // The same directory through another spelling is the same request.
    assertEquals(await c.ok<Receipt>("agent_launch", { ...args, cwd: `${t.root}/proj/.` }), first);
    const rows = (await c.ok<{ sessions: { session_id: string }[] }>("pty_list")).sessions;
    assertEquals(rows.filter((s) => s.session_id === "op1").length, 1);
    assertEquals(rows.length, 1, "a conflict launched nothing");
  },
);

// ---- item 6: aiterm-wait edge cases ----

Deno.test("aiterm-wait: an unknown session or a plain terminal is not_found (exit 6), never closed", opts, async () => {
  await using t = await agentEnv();
  await using c = await connect(t.env);
  const typo = await waitCli(t, ["--session", "no_such_kid", "--cursor", "0", "--timeout", "10"]);
  assertEquals([typo.code, typo.json.outcome], [6, "not_found"], typo.stderr);
  assertMatch(String(typo.json.error), /^SESSION_NOT_FOUND: /);
  await c.ok("pty_open", { name: "plain", cwd: t.root });
  const plain = await waitCli(t, ["--session", "plain", "--cursor", "0", "--timeout", "10"]);
  assertEquals([plain.code, plain.json.outcome], [6, "not_found"]);
  assertMatch(String(plain.json.error), /^AGENT_SESSION_REQUIRED: /);
  // A child closed under its receipt's generation is still "closed" (4).
  const l = await c.ok<Receipt>("agent_launch", {
    harness: "codex-cli",
    cwd: `${t.root}/proj`,
    trust_project: true,
    prompt: "SLOW closing",
  });
  await c.ok("pty_close", { session_id: l.session_id });
  const closed = await runWaiter(t.env, l.wait_process!, 10);
  assertEquals([closed.code, closed.json.outcome], [4, "closed"]);
});

Deno.test(
  "aiterm-wait --timeout 0 reports now: running (8), blocked (5) or done (0), never timeout",
  opts,
  async () => {
    await using t = await agentEnv({ FAKE_SLOW_MS: "30000" });
    await using c = await connect(t.env);
    const l = await c.ok<Receipt>("agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "SLOW report now",
    });
    const running = await runWaiter(t.env, l.wait_process!, 0);
    assertEquals([running.code, running.json.outcome], [8, "running"]);
    await c.ok("pty_close", { session_id: l.session_id });

    await using t2 = await agentEnv();
    await using c2 = await connect(t2.env);
    const done = await c2.ok<Receipt>("agent_launch", {
      harness: "claude-code",
      cwd: `${t2.root}/proj`,
      trust_project: true,
      prompt: "quick one",
    });
    assertEquals((await runWaiter(t2.env, done.wait_process!, 30)).code, 0);
    const now = await runWaiter(t2.env, done.wait_process!, 0);
    assertEquals([now.code, now.json.outcome], [0, "done"]);
    const perm = await c2.ok<Receipt>("pty_send", { wait: false, session_id: done.session_id, text: "PERM please" });
    await eventually(async () => (await observe(c2, done.session_id)).state === "blocked");
    const blocked = await runWaiter(t2.env, perm.wait_process!, 0);
    assertEquals([blocked.code, blocked.json.outcome, blocked.json.reason], [5, "blocked", "approval_required"]);
  },
);

Deno.test(
  "aiterm-wait: duplicate flags, a timeout above the cap and malformed values are usage errors (exit 2)",
  opts,
  async () => {
    await using t = await agentEnv();
    for (
      const args of [
        ["--session", "a", "--session", "b", "--cursor", "0"],
        ["--session", "a", "--cursor", "0", "--timeout", "86401"],
        ["--session", "a", "--cursor", "0", "--timeout", "ten"],
        ["--session", "a", "--cursor", "-1"],
        ["--session", "a", "--cursor", "0", "stray"],
      ]
    ) {
      const r = await waitCli(t, args);
      assertEquals(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assertStringIncludes(r.stderr, "usage: aiterm-wait");
    }
  },
);

// ---- item 7: per-parent guidance ----

Deno.test("server instructions say what each parent must do for a child's answer", opts, async () => {
  await using t = await makeTestEnv();
  const said: Record<string, string> = {};
  for (const name of ["codex-mcp-client", "claude-code", "cursor-vscode 1.7.2", "some-other-client"]) {
    await using c = await connect(t.env, name);
    said[name] = c.client.getInstructions() ?? "";
  }
  assertStringIncludes(said["codex-mcp-client"]!, "As a Codex parent you do nothing");
  assertStringIncludes(said["codex-mcp-client"]!, "CODEX_PARENT_ID_UNAVAILABLE");
  assertStringIncludes(said["claude-code"]!, "As a Claude Code parent you do nothing");
  assertStringIncludes(said["cursor-vscode 1.7.2"]!, "start the receipt's wait_process in the background");
  assertStringIncludes(said["some-other-client"]!, "start the receipt's wait_process in the background");
  for (const text of Object.values(said)) assertStringIncludes(text, "pty_open");
  assert(!said["codex-mcp-client"]!.includes("start the receipt's wait_process"), "Codex is told to wait");
});

Deno.test("receipts say what this parent must do next: waiter, first send, steer", opts, async () => {
  await using t = await agentEnv({ FAKE_SLOW_MS: "6000" });
  await using c = await connect(t.env, "some-other-client");
  const bare = await c.ok<Receipt>("agent_launch", {
    harness: "codex-cli",
    cwd: `${t.root}/proj`,
    trust_project: true,
  });
  assertStringIncludes(bare.next, `pty_send(session_id:"${bare.session_id}"`);
  const s = await c.ok<Receipt>("pty_send", { wait: false, session_id: bare.session_id, text: "SLOW guided" });
  assertEquals(s.mode, "agent_dispatch");
  assertStringIncludes(s.next, "start wait_process");
  assertStringIncludes(s.next, `cursor:${s.event_cursor}`);
  assertEquals(s.warning, undefined);
  await eventually(async () => (await observe(c, bare.session_id)).state === "busy");
  const steer = await c.ok<Receipt>("pty_send", { wait: false, session_id: bare.session_id, text: "and a steer" });
  assertEquals(steer.mode, "agent_steer");
  assertStringIncludes(steer.next, "Nothing new to start");
  // A plain terminal's send has no agent guidance.
  const term = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  const plain = await c.ok<{ next?: string }>("pty_send", { wait: false, session_id: term.session_id, text: "true" });
  assertEquals(plain.next, undefined);
});

Deno.test(
  "a Codex parent without _meta.threadId gets CODEX_PARENT_ID_UNAVAILABLE in the receipt, not a silent waiter",
  opts,
  async () => {
    await using t = await agentEnv();
    await using c = await connect(t.env, "codex-mcp-client");
    const l = await c.ok<Receipt>("agent_launch", {
      harness: "claude-code",
      cwd: `${t.root}/proj`,
      trust_project: true,
      prompt: "no thread id",
    });
    assertEquals(l.parent_delivery, null);
    assert(l.wait_process, "the waiter is the route then");
    assertEquals(l.warning?.code, "CODEX_PARENT_ID_UNAVAILABLE");
    assertStringIncludes(l.warning!.message, "_meta.threadId");
    assertStringIncludes(l.next, "start wait_process");
    assertEquals((await runWaiter(t.env, l.wait_process, 30)).code, 0);
    const s = await c.ok<Receipt>("pty_send", { wait: false, session_id: l.session_id, text: "again without thread" });
    assertEquals(s.warning?.code, "CODEX_PARENT_ID_UNAVAILABLE");
  },
);
