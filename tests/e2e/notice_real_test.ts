/**
 * Notices with the REAL pinned CLIs: a real Claude Code 2.1.328 child whose (fake) model asks for
 * `Bash(echo TOOL_OK)` under a `permissions.ask` rule, dispatched by (a) a real Claude Code parent
 * (aiterm's hooks written by the function `aiterm-mcp setup` uses, run by Claude Code itself) and (b) a
 * real Codex 0.169.0 parent (its app-server queue). Nothing is typed into the parent after the first
 * prompt: the parent must get the notice by itself, within the target, call agent_approval (its fake
 * model does that when it reads the notice's `Answer with agent_approval {…}` line), the command must
 * run, and the child's final answer must reach the parent by itself, once.
 *
 * The parents' own turns: a Claude Code parent is woken by the dispatch's PostToolUse (asyncRewake,
 * exit 2) with the notice; the answer then comes through the PostToolUse of its agent_approval call
 * or its Stop hook, whichever Claude Code runs first. A Codex parent gets both as queued user messages.
 */
import { gitProject } from "../helpers/agent.ts";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { findVendorClis, PrivateTmux, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";
import type { RecordedRequest } from "../fixtures/fake_api/mod.ts";
import { installClaudeParentHooks } from "../../harnesses/clients/mod.ts";
import { registeredServerCommand } from "../helpers/mcp.ts";

const clis = findVendorClis();
const why = (need: (string | null)[]) =>
  !hasTmux
    ? " [ignored: tmux missing]"
    : need.every(Boolean)
    ? ""
    : " [ignored: the real CLIs are not installed; run scripts/install_vendor_clis.sh]";

const HEADER = "[aiterm] answer from child agent session";
const NOTICE = "blocked (approval_required)";
const TARGET_MS = 10_000;

interface Notice {
  state: string;
  received_by: string | null;
  handed_at_ms: number | null;
  seen_at_ms: number;
}

const bodyOf = (r: RecordedRequest): Record<string, unknown> =>
  r.body && typeof r.body === "object" ? r.body as Record<string, unknown> : {};

/** Every text of a request's messages / input items (tool results and outputs included). */
function textsOf(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(textsOf).join("\n");
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return ["text", "content", "output"].map((k) => textsOf(o[k])).join("\n");
  }
  return "";
}

/** All text of a request's conversation. */
const allText = (r: RecordedRequest): string => {
  const b = bodyOf(r);
  return textsOf(b.messages ?? b.input);
};

/**
 * The user-role message a request was made for: the newest item of `messages` / `input` when it is one
 * (only `role:"system"` items may follow it, as Claude Code adds); "" for a request made for a tool result.
 */
function lastUser(r: RecordedRequest): string {
  const b = bodyOf(r);
  const list = (b.messages ?? b.input ?? []) as { role?: string }[];
  const at = list.findLastIndex((m) => m.role !== "system");
  return list[at]?.role === "user" ? textsOf(list[at]) : "";
}

/** The cache this test runs with, so hook and server processes start warm under the throwaway HOME. */
async function denoDir(): Promise<string | null> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped", stderr: "null" })
    .output();
  try {
    return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir ?? null;
  } catch {
    return null;
  }
}

/** When the child's approval dialog is first on its screen in aiterm's tmux server (polled every ~50 ms). */
function dialogShown(t: TestEnv): Promise<number> {
  return eventually(
    async () => {
      const panes = (await t.tmux("list-panes", "-a", "-F", "#{pane_id}")).stdout.split("\n").filter(Boolean);
      for (const p of panes) {
        const s = (await t.tmux("capture-pane", "-p", "-t", p)).stdout;
        if (s.includes("echo TOOL_OK") && s.includes("Do you want to proceed?")) return Date.now();
      }
      return null;
    },
    180_000,
    "the child's approval dialog",
  );
}

/** The one delivery record under `dir` (the parent dispatched once). */
async function theRecord(t: TestEnv, dir: string): Promise<Record<string, unknown>> {
  return await eventually(
    async () => {
      for await (const e of Deno.readDir(`${t.stateDir}/${dir}`)) {
        if (/^[0-9a-f-]{36}\.json$/.test(e.name)) {
          return JSON.parse(await Deno.readTextFile(`${t.stateDir}/${dir}/${e.name}`)) as Record<string, unknown>;
        }
      }
      return null;
    },
    180_000,
    `a delivery record in ${dir}`,
  );
}

/** Requests of the parent's own conversation (its first prompt is the MCPCALL line). */
const parentRequests = (reqs: RecordedRequest[]) =>
  reqs.filter((r) => ((bodyOf(r).tools ?? []) as unknown[]).length > 0 && allText(r).includes("MCPCALL "));

/** Requests of the child's conversation (its prompt is TOOLCALL, no MCPCALL anywhere). */
const childRequests = (reqs: RecordedRequest[]) =>
  reqs.filter((r) =>
    ((bodyOf(r).tools ?? []) as unknown[]).length > 0 && allText(r).includes("TOOLCALL please") &&
    !allText(r).includes("MCPCALL ")
  );

/** The common end of both cases: notice timing, the approval, the command's result, the answer once. */
async function followThrough(
  t: TestEnv,
  parentApi: { requests: RecordedRequest[] },
  childApi: { requests: RecordedRequest[] },
  dir: string,
  shownAt: Promise<number>,
  screen: () => Promise<string>,
): Promise<void> {
  const fail = async (e: Error) => {
    throw new Error(`${e.message}\n--- parent screen ---\n${await screen()}`);
  };
  const shown = await shownAt.catch(fail);
  // (1) The notice is handed to the parent by itself, within the target.
  const handed = await eventually(
    async () => {
      const rec = await theRecord(t, dir);
      const n = (rec.notices as Notice[] | undefined)?.[0];
      return n?.state === "submitted" && n;
    },
    60_000,
    "the notice handed over",
  ).catch(fail);
  const handedMs = handed.handed_at_ms! - shown;
  assert(handedMs <= TARGET_MS, `notice handed ${handedMs} ms after the dialog appeared`);
  // (2) The parent's model gets it as a new request, and calls agent_approval with its digest.
  const woken = await eventually(
    () => Promise.resolve(parentRequests(parentApi.requests).find((r) => lastUser(r).includes(NOTICE))),
    120_000,
    "the parent's request carrying the notice",
  ).catch(fail);
  const notice = lastUser(woken);
  assertStringIncludes(notice, "echo TOOL_OK");
  assertMatch(notice, /Answer with agent_approval \{.*"observed_prompt_digest":"sha256:[0-9a-f]{64}"\}/);
  // (3) The command ran: the child's model got exactly one tool result.
  await eventually(
    () =>
      Promise.resolve(
        childRequests(childApi.requests).some((r) => lastUserHasResult(r)),
      ),
    120_000,
    "the child's tool result",
  ).catch(fail);
  // (4) The child's answer reaches the parent by itself, once.
  const answered = await eventually(
    () => Promise.resolve(parentRequests(parentApi.requests).find((r) => lastUser(r).includes(HEADER))),
    120_000,
    "the parent's request carrying the answer",
  ).catch(fail);
  assertStringIncludes(lastUser(answered), "turn 0: done");
  assertStringIncludes(lastUser(answered), "MOCK_AFTER_TOOL done.");
  await new Promise((r) => setTimeout(r, 4000));
  const carrying = parentRequests(parentApi.requests).filter((r) => lastUser(r).includes(HEADER));
  assertEquals(carrying.length, 1);
  const notices = parentRequests(parentApi.requests).filter((r) => lastUser(r).includes(NOTICE));
  assertEquals(notices.length, 1, "one notice for one dialog");
  const rec = await theRecord(t, dir);
  assertEquals([rec.state, rec.child_outcome], ["submitted", "done"]);
  assertEquals((rec.notices as Notice[]).length, 1);
  // deno-lint-ignore no-console
  console.log(JSON.stringify({
    dir,
    dialog_to_notice_handed_ms: handedMs,
    dialog_to_parent_request_ms: woken.at - shown,
    answer_received_by: rec.received_by,
    notice_received_by: handed.received_by,
  }));
}

function lastUserHasResult(r: RecordedRequest): boolean {
  const b = bodyOf(r);
  const msgs = b.messages as { role?: string; content?: unknown }[] | undefined;
  const last = msgs?.findLast((m) => m.role === "user")?.content;
  return Array.isArray(last) && last.some((x) => (x as { type?: string }).type === "tool_result");
}

/** A real Claude Code parent (hooks from setup, aiterm at user scope) and a real Claude Code child, one HOME. */
async function claudeParent(
  t: TestEnv,
  api: { url: string },
  run: (parent: PrivateTmux, parentProj: string, childProj: string, home: string) => Promise<void>,
): Promise<void> {
  const parentProj = await gitProject(t, "parent");
  const childProj = await gitProject(t, "child");
  // One HOME for both (as on one machine): the child asks about the command, the parent has the hooks.
  await using vh = await vendorHome("claude", { apiUrl: api.url, cwd: parentProj, trusted: true });
  await Deno.writeTextFile(
    `${vh.configDir}/settings.json`,
    JSON.stringify({ permissions: { ask: ["Bash(echo TOOL_OK)"] } }, null, 2),
  );
  const cache = await denoDir();
  const env = { ...vh.env, AITERM_STATE_DIR: t.stateDir, ...(cache ? { DENO_DIR: cache } : {}) };
  const server = registeredServerCommand();
  const hooks = await installClaudeParentHooks(server, { env, home: vh.home, dryRun: false });
  assertEquals(hooks.outcome, "written");
  const settings = JSON.parse(await Deno.readTextFile(`${vh.configDir}/settings.json`));
  assertEquals(settings.permissions, { ask: ["Bash(echo TOOL_OK)"] });
  const add = await new Deno.Command(clis.claude!, {
    args: [
      "mcp",
      "add",
      "-e",
      `CLAUDE_BIN=${clis.claude}`,
      "-s",
      "user",
      "aiterm",
      "--",
      server.command,
      ...server.args,
    ],
    env,
    clearEnv: true,
    cwd: parentProj,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(add.code, 0, new TextDecoder().decode(add.stderr));
  const parent = await PrivateTmux.start({
    env,
    cwd: parentProj,
    argv: [
      clis.claude!,
      "--session-id",
      crypto.randomUUID(),
      "--allowedTools",
      "mcp__aiterm__agent_launch,mcp__aiterm__agent_approval",
    ],
  });
  try {
    await parent.waitFor(claudeIdle, 60_000, "idle composer");
    await run(parent, parentProj, childProj, vh.home);
  } finally {
    await parent.close();
  }
}

const claudeIdle = (s: string) => /^❯\s*$/m.test(s) && !s.includes("esc to interrupt") && s.includes("────");

Deno.test({
  name:
    `real claude-code parent + real claude-code child on a permissions.ask dialog: notice by the hook wake-up, agent_approval, the answer once${
      why([clis.claude])
    }`,
  ignore: !!why([clis.claude]),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    await using api = startFakeAnthropic();
    await claudeParent(t, api, async (parent, _parentProj, childProj) => {
      const shown = dialogShown(t);
      const input = { harness: "claude-code", cwd: childProj, trust_project: true, prompt: "TOOLCALL please" };
      await parent.submit(`MCPCALL mcp__aiterm__agent_launch ${JSON.stringify(input)}`);
      await followThrough(t, api, api, "claude-parent-deliveries", shown, () => parent.screen(120));
    });
  },
});

Deno.test({
  name:
    `real claude-code parent, idle: woken for the notice; it ends its turn, a person answers in the terminal, the Stop hook brings the answer once${
      why([clis.claude])
    }`,
  ignore: !!why([clis.claude]),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    // The parent's model answers the notice in words (no agent_approval): a person answers the dialog.
    await using api = startFakeAnthropic({ noticeCalls: false });
    await claudeParent(t, api, async (parent, _parentProj, childProj) => {
      const fail = async (e: Error) => {
        throw new Error(`${e.message}\n--- parent screen ---\n${await parent.screen(150)}`);
      };
      // SLOW: the fake model answers the child after 3 s, so the parent has ended its turn before the dialog.
      const input = { harness: "claude-code", cwd: childProj, trust_project: true, prompt: "SLOW TOOLCALL please" };
      const shown = dialogShown(t);
      await parent.submit(`MCPCALL mcp__aiterm__agent_launch ${JSON.stringify(input)}`);
      await parent.waitFor((s) => claudeIdle(s) && s.includes("MOCK_AFTER_TOOL done."), 60_000, "parent idle")
        .catch(fail);
      const before = await theRecord(t, "claude-parent-deliveries");
      assertEquals(((before.notices as Notice[] | undefined) ?? []).length, 0, "the parent was idle before the dialog");
      const shownAt = await shown.catch(fail);
      // The idle parent is woken with the notice (the dispatch's PostToolUse).
      const woken = await eventually(
        () => Promise.resolve(parentRequests(api.requests).find((r) => lastUser(r).includes(NOTICE))),
        60_000,
        "the parent's request carrying the notice",
      ).catch(fail);
      assert(woken.at - shownAt <= TARGET_MS, `notice reached the parent's model ${woken.at - shownAt} ms after`);
      // Its reply ends that turn; its Stop hook now waits. A person answers in the child's terminal.
      await parent.waitFor((s) => claudeIdle(s) && s.includes("Stop hook feedback"), 60_000, "parent idle again")
        .catch(fail);
      await new Promise((r) => setTimeout(r, 1000));
      const panes = (await t.tmux("list-panes", "-a", "-F", "#{pane_id}")).stdout.split("\n").filter(Boolean);
      assertEquals(panes.length, 1);
      await t.tmux("send-keys", "-t", panes[0]!, "1");
      // The answer arrives by itself, once, through the Stop hook.
      const answered = await eventually(
        () => Promise.resolve(parentRequests(api.requests).find((r) => lastUser(r).includes(HEADER))),
        120_000,
        "the parent's request carrying the answer",
      ).catch(fail);
      assertStringIncludes(lastUser(answered), "MOCK_AFTER_TOOL done.");
      await new Promise((r) => setTimeout(r, 4000));
      assertEquals(parentRequests(api.requests).filter((r) => lastUser(r).includes(HEADER)).length, 1);
      assertEquals(parentRequests(api.requests).filter((r) => lastUser(r).includes(NOTICE)).length, 1);
      const rec = await theRecord(t, "claude-parent-deliveries");
      const n = rec.notices as Notice[];
      assertEquals([rec.state, rec.child_outcome, rec.received_by], ["submitted", "done", "claude_stop"]);
      assertEquals(n.map((x) => [x.state, x.received_by]), [["submitted", "claude_post_tool_use"]]);
      // deno-lint-ignore no-console
      console.log(JSON.stringify({
        dialog_to_notice_handed_ms: n[0]!.handed_at_ms! - shownAt,
        dialog_to_parent_request_ms: woken.at - shownAt,
        answer_received_by: rec.received_by,
      }));
    });
  },
});

Deno.test({
  name:
    `real codex parent + real claude-code child on a permissions.ask dialog: notice through the thread queue, agent_approval, the answer once${
      why([clis.claude, clis.codex])
    }`,
  ignore: !!why([clis.claude, clis.codex]),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    const parentProj = await gitProject(t, "parent");
    const childProj = await gitProject(t, "child");
    await using openai = startFakeOpenAI();
    await using anthropic = startFakeAnthropic();
    await using vh = await vendorHome("codex", { apiUrl: openai.url, cwd: parentProj, trusted: true });
    // The child runs with the parent's HOME (Codex gives its MCP servers only HOME, PATH, …): seed Claude there.
    await using ch = await vendorHome("claude", { apiUrl: anthropic.url, cwd: childProj, trusted: true });
    await Deno.copyFile(`${ch.home}/.claude.json`, `${vh.home}/.claude.json`);
    await Deno.mkdir(`${vh.home}/.claude`, { recursive: true });
    await Deno.writeTextFile(
      `${vh.home}/.claude/settings.json`,
      JSON.stringify({ permissions: { ask: ["Bash(echo TOOL_OK)"] } }),
    );
    const cache = await denoDir();
    const server = registeredServerCommand();
    const pick = ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"];
    const mcpEnv: Record<string, string> = {
      AITERM_STATE_DIR: t.stateDir,
      CLAUDE_BIN: clis.claude!,
      CODEX_BIN: clis.codex!,
      CODEX_HOME: vh.configDir,
      DISABLE_AUTOUPDATER: "1",
      ...Object.fromEntries(pick.map((k) => [k, ch.env[k]!])),
      ...(cache ? { DENO_DIR: cache } : {}),
    };
    const add = await new Deno.Command(clis.codex!, {
      args: [
        "mcp",
        "add",
        "aiterm",
        ...Object.entries(mcpEnv).flatMap(([k, v]) => ["--env", `${k}=${v}`]),
        "--",
        server.command,
        ...server.args,
      ],
      env: vh.env,
      clearEnv: true,
      cwd: parentProj,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(add.code, 0, new TextDecoder().decode(add.stderr));
    const parent = await PrivateTmux.start({
      env: vh.env,
      cwd: parentProj,
      argv: [
        clis.codex!,
        "--no-alt-screen",
        "-c",
        'mcp_servers.aiterm.default_tools_approval_mode="approve"',
        "-c",
        "mcp_servers.aiterm.startup_timeout_sec=120",
      ],
    });
    try {
      const idle = (s: string) => s.includes("? for shortcuts") && !s.includes("esc to interrupt");
      await parent.waitFor(idle, 120_000, "idle composer");
      const shown = dialogShown(t);
      const input = { harness: "claude-code", cwd: childProj, trust_project: true, prompt: "TOOLCALL please" };
      await parent.submit(`MCPCALL mcp__aiterm__agent_launch ${JSON.stringify(input)}`);
      await followThrough(t, openai, anthropic, "parent-deliveries", shown, () => parent.screen(200));
    } finally {
      await parent.close();
    }
  },
});
