/**
 * The fake CLIs in tests/fixtures/bin/ run in a real PTY (tmux on a private socket) and must draw
 * the screens and write the transcripts the way the real Claude Code 2.1.328 / Codex 0.169.0 do.
 * The record key sets come from tests/helpers/vendor.ts, which real_cli_smoke_test.ts checks
 * against the real CLIs.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { hasTmux } from "../helpers/env.ts";
import {
  CLAUDE_RECORD_KEYS,
  claudeSlug,
  CODEX_RECORD_KEYS,
  findFiles,
  missingKeys,
  PrivateTmux,
  readJsonl,
} from "../helpers/vendor.ts";

const BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const hasNode = (() => {
  try {
    return new Deno.Command("node", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
})();
const ignore = !hasTmux || !hasNode;
const why = ignore ? " [ignored: needs tmux and node]" : "";

type Rec = Record<string, unknown>;
const payload = (r: Rec) => (r.payload ?? {}) as Rec;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Sandbox extends AsyncDisposable {
  root: string;
  home: string;
  proj: string;
  env: Record<string, string>;
}

async function sandbox(git: boolean, extra: Record<string, string> = {}): Promise<Sandbox> {
  const root = await Deno.realPath(await Deno.makeTempDir({ dir: "/tmp", prefix: "aitf-" }));
  const home = `${root}/home`;
  const proj = `${root}/proj`;
  await Deno.mkdir(home);
  await Deno.mkdir(proj);
  if (git) await Deno.mkdir(`${proj}/.git`);
  const env: Record<string, string> = {
    HOME: home,
    PATH: `${BIN}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    FAKE_ARGV_LOG: `${root}/argv.jsonl`,
    ...extra,
  };
  return {
    root,
    home,
    proj,
    env,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }).catch(() => {}),
  };
}

async function waitRecords(path: () => Promise<string | null>, pred: (recs: Rec[]) => boolean, label: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const p = await path();
    const recs = p ? await readJsonl(p) : [];
    if (pred(recs)) return recs;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${label}; ${JSON.stringify(recs).slice(0, 3000)}`);
    }
    await sleep(50);
  }
}

const claudeIdle = (s: string) => /^❯\s*$/m.test(s) && !s.includes("esc to interrupt") && s.includes("────");

Deno.test({
  name: `fake claude: trust, turns (plain, SLOW+steer, TOOL, PERM, APIERR), transcript, exit${why}`,
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sb = await sandbox(true);
    const sid = crypto.randomUUID();
    await using t = await PrivateTmux.start({
      env: sb.env,
      cwd: sb.proj,
      argv: ["claude", "--session-id", sid, "--model", "opus", "--effort", "high", "--permission-mode", "default"],
    });
    // Same dialog as the real 2.1.328: "No, exit" first.
    await t.waitFor("❯ No, exit", 10_000, "trust dialog");
    assert((await t.screen()).includes("Quick safety check"));
    await t.keys("Down");
    await t.waitFor("❯ Yes, I trust this folder", 5_000);
    await t.keys("Enter");
    await t.waitFor(claudeIdle, 5_000, "idle");
    const idle = await t.screen();
    assert(idle.includes("? for shortcuts") && idle.includes("◐ high · /effort"), idle);
    const state = JSON.parse(await Deno.readTextFile(`${sb.home}/.claude.json`));
    assertEquals(state.projects[sb.proj].hasTrustDialogAccepted, true);
    const argv = (await Deno.readTextFile(`${sb.root}/argv.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
    assertEquals(argv[0], ["--session-id", sid, "--model", "opus", "--effort", "high", "--permission-mode", "default"]);

    const transcript = `${sb.home}/.claude/projects/${claudeSlug(sb.proj)}/${sid}.jsonl`;
    const tp = () => Promise.resolve(transcript);
    const durations = (rs: Rec[]) => rs.filter((r) => r.type === "system" && r.subtype === "turn_duration");

    // plain turn
    await t.submit("hello fake");
    await t.waitFor("● ANSWER(hello fake)", 5_000);
    let recs = await waitRecords(tp, (rs) => durations(rs).length === 1, "turn_duration");
    const user = recs.find((r) => r.type === "user")!;
    assertEquals(missingKeys(user, CLAUDE_RECORD_KEYS.user), []);
    assertEquals(user.message, { role: "user", content: "hello fake" });
    assertEquals((user.origin as Rec).kind, "human");
    const asst = recs.find((r) => r.type === "assistant")!;
    assertEquals(missingKeys(asst, CLAUDE_RECORD_KEYS.assistant), []);
    assertEquals(missingKeys(durations(recs)[0], CLAUDE_RECORD_KEYS.turnDuration), []);
    assertEquals(recs.slice(0, 2).map((r) => r.type), ["mode", "permission-mode"]);
    await t.waitFor(claudeIdle, 5_000);

    // SLOW + steer: the second text joins the running turn.
    await t.submit("SLOW first");
    await t.waitFor("esc to interrupt", 3_000, "busy footer");
    await t.submit("steer second");
    await t.waitFor("● ANSWER(SLOW first)", 8_000);
    recs = await waitRecords(tp, (rs) => durations(rs).length === 2, "second turn_duration");
    const slowUsers = recs.filter((r) =>
      r.type === "user" && ["SLOW first", "steer second"].includes(String((r.message as Rec).content))
    );
    assertEquals(slowUsers.length, 2);
    assertEquals(slowUsers[0]!.promptId, slowUsers[1]!.promptId);
    await t.waitFor(claudeIdle, 5_000);

    // TOOL: tool_use then tool_result within the turn, busy hint hidden while the tool runs.
    await t.submit("TOOL please");
    await t.waitFor("● ANSWER(TOOL please)", 5_000);
    recs = await waitRecords(tp, (rs) => durations(rs).length === 3, "third turn_duration");
    const blocks = recs.flatMap((r) => {
      const c = (r.message as Rec | undefined)?.content;
      return Array.isArray(c) ? c.map((b) => (b as Rec).type) : [];
    });
    assert(blocks.includes("tool_use") && blocks.includes("tool_result"), JSON.stringify(blocks));
    assert((await t.screen()).includes("Ran 1 shell command"));
    await t.waitFor(claudeIdle, 5_000);

    // PERM: permission dialog, then 1.
    await t.submit("PERM please");
    await t.waitFor("Do you want to proceed?", 5_000);
    assert((await t.screen()).includes("❯ 1. Yes"));
    await t.type("1");
    await t.waitFor("● ANSWER(PERM please)", 5_000);
    await waitRecords(tp, (rs) => durations(rs).length === 4, "fourth turn_duration");
    await t.waitFor(claudeIdle, 5_000);

    // APIERR: synthetic error record, no turn_duration (as 2.1.328).
    await t.submit("APIERR please");
    await t.waitFor("● API Error: 400 Mock 400 error", 5_000);
    recs = await waitRecords(tp, (rs) => rs.some((r) => r.isApiErrorMessage === true), "api error record");
    const err = recs.find((r) => r.isApiErrorMessage === true)!;
    assertEquals(missingKeys(err, CLAUDE_RECORD_KEYS.apiError), []);
    assertEquals(err.apiErrorStatus, 400);
    await t.waitFor(claudeIdle, 5_000);
    await sleep(300);
    assertEquals(durations(await readJsonl(transcript)).length, 4);

    // Ctrl-C twice exits.
    await t.keys("C-c");
    await t.waitFor("Press Ctrl-C again to exit", 3_000);
    await t.keys("C-c");
    await t.waitFor(`claude --resume ${sid}`, 3_000);
  },
});

Deno.test({
  name: `fake claude: offline, login and theme-picker modes${why}`,
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    {
      await using sb = await sandbox(false, { FAKE_MODE: "offline" });
      await using t = await PrivateTmux.start({
        env: sb.env,
        cwd: sb.proj,
        argv: ["sh", "-c", 'claude; echo "EXIT_STATUS=$?"'],
      });
      await t.waitFor("Unable to connect to Anthropic services", 5_000);
      await t.waitFor("EXIT_STATUS=1", 5_000);
    }
    {
      await using sb = await sandbox(false, { FAKE_MODE: "login" });
      await using t = await PrivateTmux.start({ env: sb.env, cwd: sb.proj, argv: ["claude"] });
      await t.waitFor("Select login method:", 5_000);
    }
    {
      await using sb = await sandbox(false, { FAKE_THEME_PICKER: "1" });
      await Deno.writeTextFile(`${sb.home}/.claude.json`, JSON.stringify({ hasCompletedOnboarding: false }));
      await using t = await PrivateTmux.start({ env: sb.env, cwd: sb.proj, argv: ["claude"] });
      await t.waitFor("Choose the text style that looks best with your terminal", 5_000);
      await t.keys("Enter");
      await t.waitFor("Accessing workspace:", 5_000);
      const state = JSON.parse(await Deno.readTextFile(`${sb.home}/.claude.json`));
      assertEquals(state.hasCompletedOnboarding, true);
    }
  },
});

const codexIdle = (s: string) =>
  s.includes("› Ask Codex to do anything") && s.includes("? for shortcuts") && !s.includes("esc to interrupt");

Deno.test({
  name: `fake codex: trust, turns (plain, SLOW+steer, TOOL, APIERR), rollout, paste burst, exit${why}`,
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sb = await sandbox(true, { FAKE_PASTE_BURST: "1" });
    const codexHome = `${sb.home}/.codex`;
    await Deno.mkdir(codexHome);
    await Deno.writeTextFile(`${codexHome}/config.toml`, `model = "mock-model"\nmodel_provider = "mock"\n`);
    await using t = await PrivateTmux.start({
      env: sb.env,
      cwd: sb.proj,
      argv: ["codex", "-c", 'model_reasoning_effort="high"', "-s", "workspace-write", "--no-alt-screen"],
    });
    await t.waitFor("Trust this folder?", 5_000);
    assert((await t.screen()).includes("› 1. Trust and continue"));
    await t.keys("Enter");
    await t.waitFor(codexIdle, 5_000, "idle");
    assert((await t.screen()).includes(">_ OpenAI Codex (v0.169.0)"));
    assert(
      (await Deno.readTextFile(`${codexHome}/config.toml`)).includes(
        `[projects."${sb.proj}"]\ntrust_level = "trusted"`,
      ),
    );
    const sessions = `${codexHome}/sessions`;
    assertEquals(await findFiles(sessions, /^rollout-/), [], "rollout is lazy");

    // paste burst: Enter right after the paste inserts a newline; a later Enter submits.
    await t.paste("hello codex");
    await t.keys("Enter");
    await sleep(500);
    assert(!(await t.screen()).includes("ANSWER("), "Enter within 300 ms of a paste must not submit");
    await t.keys("Enter");
    await t.waitFor("• ANSWER(hello codex", 5_000);
    await t.waitFor("Worked for", 5_000);
    const rollout = async () => (await findFiles(sessions, /^rollout-.*\.jsonl$/))[0] ?? null;
    const completes = (rs: Rec[]) => rs.filter((r) => r.type === "event_msg" && payload(r).type === "task_complete");
    let recs = await waitRecords(rollout, (rs) => completes(rs).length === 1, "task_complete");
    assert(
      /\/sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-f-]{36}\.jsonl$/.test(
        (await rollout())!,
      ),
    );
    for (const r of recs) assertEquals(missingKeys(r, CODEX_RECORD_KEYS.envelope), []);
    assertEquals(recs[0]!.type, "session_meta");
    assertEquals(missingKeys(payload(recs[0]!), CODEX_RECORD_KEYS.sessionMeta), []);
    assertEquals(payload(recs[0]!).cwd, sb.proj);
    const started = recs.find((r) => payload(r).type === "task_started")!;
    assertEquals(missingKeys(payload(started), CODEX_RECORD_KEYS.taskStarted), []);
    const um = recs.find((r) => (payload(r).item as Rec | undefined)?.type === "UserMessage")!;
    assertEquals(missingKeys(payload(um), CODEX_RECORD_KEYS.itemCompleted), []);
    const am = recs.find((r) => r.type === "response_item" && payload(r).role === "assistant")!;
    assertEquals(missingKeys(payload(am), CODEX_RECORD_KEYS.message), []);
    const done = completes(recs)[0]!;
    assertEquals(missingKeys(payload(done), CODEX_RECORD_KEYS.taskComplete), []);
    assertEquals(payload(done).turn_id, payload(started).turn_id);
    assert(String(payload(done).last_agent_message).startsWith("ANSWER(hello codex"));
    await t.waitFor(codexIdle, 5_000);

    // SLOW + steer
    await t.submit("SLOW first");
    await t.waitFor("• Working (", 3_000);
    await t.submit("steer second");
    await t.waitFor("• ANSWER(SLOW first)", 8_000);
    recs = await waitRecords(rollout, (rs) => completes(rs).length === 2, "second task_complete");
    assertEquals(recs.filter((r) => payload(r).type === "task_started").length, 2);
    const steered = recs.filter((r) => (payload(r).item as Rec | undefined)?.type === "UserMessage").slice(-2);
    assertEquals(steered.length, 2);
    assertEquals(payload(steered[0]!).turn_id, payload(steered[1]!).turn_id);
    await t.waitFor(codexIdle, 5_000);

    // TOOL
    await t.submit("TOOL now");
    await t.waitFor("• Ran echo TOOL_OK", 5_000);
    recs = await waitRecords(rollout, (rs) => completes(rs).length === 3, "third task_complete");
    assert(recs.some((r) => payload(r).type === "function_call" && payload(r).name === "exec_command"));
    assert(recs.some((r) => payload(r).type === "function_call_output"));
    await t.waitFor(codexIdle, 5_000);

    // APIERR
    await t.submit("APIERR now");
    await t.waitFor(/■ \{"error"/, 5_000);
    recs = await waitRecords(rollout, (rs) => completes(rs).length === 4, "error task_complete");
    const failed = completes(recs)[3]!;
    assertEquals(missingKeys(payload(failed), CODEX_RECORD_KEYS.taskCompleteError), []);
    assertEquals(payload(failed).last_agent_message, null);

    await t.keys("C-c");
    await t.waitFor("codex resume ", 3_000);
  },
});

Deno.test({
  name: `fake codex: login mode; no trust dialog outside git${why}`,
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    {
      await using sb = await sandbox(false, { FAKE_MODE: "login" });
      await using t = await PrivateTmux.start({ env: sb.env, cwd: sb.proj, argv: ["codex"] });
      await t.waitFor("Sign in with ChatGPT", 5_000);
    }
    {
      await using sb = await sandbox(false);
      await using t = await PrivateTmux.start({ env: sb.env, cwd: sb.proj, argv: ["codex", "hi there"] });
      await t.waitFor("• ANSWER(hi there)", 5_000);
      const argv = (await Deno.readTextFile(`${sb.root}/argv.jsonl`)).trim();
      assertEquals(JSON.parse(argv), ["hi there"]);
    }
  },
});
