import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import {
  answerCodexStartupDialog,
  buildCodexLaunch,
  classifyCodexScreen,
  codex,
  codexComposerHolds,
  codexComposerText,
  codexFastShown,
  locateCodexRollouts,
  parseCodexApproval,
  parseCodexModelCatalog,
  parseCodexTurns,
} from "./codex.ts";
import type { ConfigureGoal, LaunchOptions, ScreenState } from "./types.ts";

const dir = new URL("./testdata/", import.meta.url);
const screen = (name: string) => Deno.readTextFileSync(new URL(`screens/${name}.txt`, dir));
const short = (s: ScreenState) => s.kind === "blocked" ? `blocked:${s.reason}` : s.kind;

/** Every Codex reference screen (copied from the lab captures) with the state it must classify as. */
const EXPECTED: Record<string, string> = {
  "codex-01-first-launch": "blocked:vendor_onboarding_required",
  "codex-02-after-ctrlc": "exited", // the lab's exit marker only (the alternate screen was left)
  "codex-03-trust-dialog": "blocked:trust_required",
  "codex-04-after-trust": "blocked:hooks_review_required",
  "codex-05-idle": "ready",
  "codex-06-warning": "blocked:unknown_dialog", // the F2 warnings overlay
  "codex-07-idle2": "ready",
  "codex-08-reply": "ready",
  "codex-09-busy": "busy", // footer still says "? for shortcuts"; the status line above the composer decides
  "codex-10-after-slow": "ready",
  "codex-11-toolcall": "ready",
  "codex-12-mcp": "ready",
  "codex-13-resumed": "ready",
  "codex-14-mcp": "busy", // "Reconnecting... (4s • esc to interrupt)"
  "codex-15-mcp-after-reconnect": "blocked:approval_required",
  "codex-16-mcp-done": "ready",
  "codex-17-err400": "ready",
  "codex-18-after-queue": "ready",
  "codex-19-ctrlc-once": "exited",
  "codex-20-exit": "starting", // an empty capture says nothing
  "codex-30-resumed": "ready",
  "codex-31-interrupted": "ready",
};

Deno.test("classifyCodexScreen() classifies every reference screen", () => {
  const names = [...Deno.readDirSync(new URL("screens/", dir))].map((e) => e.name.replace(/\.txt$/, ""))
    .filter((n) => n.startsWith("codex-")).sort();
  assertEquals(names, Object.keys(EXPECTED).sort());
  for (const name of names) assertEquals(short(classifyCodexScreen(screen(name))), EXPECTED[name], name);
  assertEquals(classifyCodexScreen(screen("codex-19-ctrlc-once")), {
    kind: "exited",
    detail: "codex resume 01a236fb-e6a4-7df3-b2d1-29440d1021f8",
  });
});

const IDLE_TAIL = "\n› Ask Codex to do anything\n\n  m default · /w/p\n  ← for agents · ? for shortcuts";

Deno.test("classifyCodexScreen() lets only the bottom decide, never old text in scrollback", () => {
  assertEquals(classifyCodexScreen(screen("codex-03-trust-dialog") + IDLE_TAIL).kind, "ready");
  assertEquals(classifyCodexScreen(screen("codex-15-mcp-after-reconnect") + IDLE_TAIL).kind, "ready");
  // An old "Working" line far above the composer is history, not the current state.
  assertEquals(
    classifyCodexScreen(`• Working (2s • esc to interrupt)\n› hi\n• answer\n  Worked for 1s${IDLE_TAIL}`).kind,
    "ready",
  );
  // An earlier run's exit block, then this launch's command line: the TUI has not drawn yet.
  assertEquals(classifyCodexScreen(`${screen("codex-19-ctrlc-once")}\nuser@h:~/p$ codex -m x`).kind, "starting");
  assertEquals(classifyCodexScreen(`${screen("codex-19-ctrlc-once")}\nuser@h:~/p$`).kind, "exited");
  // A history prompt with something unrecognised under it is not a live composer.
  assertEquals(short(classifyCodexScreen("› do it\n\n◦ Something new\n  choose wisely")), "blocked:unknown_dialog");
});

Deno.test("answerCodexStartupDialog() answers trust and hooks review only with trustProject", () => {
  assertEquals(answerCodexStartupDialog(screen("codex-03-trust-dialog"), true), [{ key: "Enter" }]);
  assertEquals(answerCodexStartupDialog(screen("codex-03-trust-dialog"), false), null);
  // Only the move: Enter follows once the screen shows the marker on "Trust all and continue".
  assertEquals(answerCodexStartupDialog(screen("codex-04-after-trust"), true), [{ key: "Down" }, { pauseMs: 250 }]);
  assertEquals(answerCodexStartupDialog(screen("codex-04-after-trust"), false), null);
  const onTwo = screen("codex-04-after-trust").replace("› 1. Review", "  1. Review").replace(
    "  2. Trust all",
    "› 2. Trust all",
  );
  assertEquals(answerCodexStartupDialog(onTwo, true), [{ key: "Enter" }]);
  for (const name of ["codex-01-first-launch", "codex-05-idle", "codex-15-mcp-after-reconnect", "codex-06-warning"]) {
    assertEquals(answerCodexStartupDialog(screen(name), true), null, name);
  }
});

/** The real Codex CLI 0.169.0 screens (captured by running it against the fake OpenAI server, 200x50). */
const REAL: Record<string, string> = {
  // Drawn for ~0.5 s before the session is configured and the trust dialog appears: not ready yet.
  "real-0.169.0-00a-provisional-loading": "starting",
  "real-0.169.0-00b-provisional-before-trust": "starting",
  "real-0.169.0-01-trust-dialog": "blocked:trust_required", // only inside a git repository
  "real-0.169.0-02-idle": "ready", // with "⚠ 1 warning · f2 to view" in the footer
  "real-0.169.0-03-busy": "busy",
  "real-0.169.0-04-after-steer": "ready", // the steer joined the SLOW turn: one "Worked for"
  "real-0.169.0-05-api-error": "ready", // "■ {raw error body}", no "Worked for"
  "real-0.169.0-06-toolcall-done": "ready",
  // An exec-policy rule (`prefix_rule(pattern=["echo"], decision="prompt")`) makes it ask about `echo`.
  "real-0.169.0-07-command-approval": "blocked:approval_required",
  "real-0.169.0-08-command-approval-moved": "blocked:approval_required", // Down pressed: "› 2. No, …"
  "real-0.169.0-09-after-approval": "ready",
  // The /model views (agent_configure drives them; anything else must not type into them).
  "real-0.169.0-10-model-picker": "blocked:unknown_dialog",
  "real-0.169.0-11-model-picker-moved": "blocked:unknown_dialog",
  "real-0.169.0-12-reasoning-picker": "blocked:unknown_dialog",
  "real-0.169.0-13-advanced-reasoning": "blocked:unknown_dialog",
  "real-0.169.0-14-model-changed-session": "ready", // "• Model changed to gpt-6-luna max for this session only"
  "real-0.169.0-15-model-picker-scrolled-current": "blocked:unknown_dialog", // End pressed: "↑", "(current)"
  "real-0.169.0-16-model-picker-closed": "ready",
  // `-c service_tier="fast"` (and without it): the status line says `… default Fast · <cwd>` (`… default · <cwd>`).
  "real-0.169.0-40-fast-on-idle": "ready",
  "real-0.169.0-41-normal-idle": "ready",
};

Deno.test("codexFastShown() reads `Fast` in the status line of the real 0.169.0 screens", () => {
  assertEquals(codexFastShown(screen("real-0.169.0-40-fast-on-idle")), true);
  assertEquals(codexFastShown(screen("real-0.169.0-41-normal-idle")), false);
  assertEquals(codexFastShown(screen("real-0.169.0-02-idle")), false);
  // A cwd containing " Fast · " does not count: only the part before the first " · " does.
  assertEquals(codexFastShown("› Ask Codex to do anything\n\n  gpt-5.5 high · /w/Fast · x\n  ← for agents"), false);
  assertEquals(codexFastShown(screen("real-0.169.0-01-trust-dialog")), null);
  assertEquals(codex.fastShown, codexFastShown);
});

Deno.test("the real Codex CLI 0.169.0 screens classify and the trust dialog is answered by its label", () => {
  const names = [...Deno.readDirSync(new URL("screens/", dir))].map((e) => e.name.replace(/\.txt$/, ""))
    .filter((n) => n.startsWith("real-0.169.0-")).sort();
  assertEquals(names, Object.keys(REAL).sort());
  for (const name of names) assertEquals(short(classifyCodexScreen(screen(name))), REAL[name], name);
  const trust = screen("real-0.169.0-01-trust-dialog");
  assertEquals(answerCodexStartupDialog(trust, true), [{ key: "Enter" }]);
  assertEquals(answerCodexStartupDialog(trust, false), null);
  // The order does not matter: the label decides.
  const reordered = trust.replace("› 1. Trust and continue", "› 1. Back to Agent Command Center")
    .replace("  2. Back to Agent Command Center", "  2. Trust and continue");
  assertEquals(answerCodexStartupDialog(reordered, true), [{ key: "Down" }, { pauseMs: 250 }]);
  const onIt = reordered.replace("› 1. Back", "  1. Back").replace("  2. Trust and", "› 2. Trust and");
  assertEquals(answerCodexStartupDialog(onIt, true), [{ key: "Enter" }]);
  for (const name of names.filter((n) => !n.includes("trust"))) {
    assertEquals(answerCodexStartupDialog(screen(name), true), null, name);
  }
});

Deno.test("codexComposerHolds() reads only the live composer", () => {
  const typed = screen("codex-05-idle").replace("› Ask Codex to do anything", "› hello there\n  second line");
  assert(codexComposerHolds(typed, "hello there\nsecond line"));
  assert(codexComposerHolds(typed, "hello there second line and more"));
  assert(!codexComposerHolds(screen("codex-09-busy"), "SLOW please")); // only in the history
  assert(!codexComposerHolds(screen("codex-03-trust-dialog"), "1. Trust and continue"));
  assert(
    codexComposerHolds(screen("codex-05-idle").replace("Ask Codex to do anything", "[Pasted Content 2048 chars]"), "x"),
  );
});

const base: LaunchOptions = {
  bin: "/usr/bin/codex",
  cwd: "/w/p",
  model: null,
  reasoningEffort: null,
  writeScope: null,
  fast: null,
  images: [],
  sessionUuid: "11111111-2222-4333-8444-555555555555",
  notice: null,
};

Deno.test("buildCodexLaunch() maps model, effort, notice, fast, read-only sandbox and images", () => {
  assertEquals(buildCodexLaunch(base), {
    argv: ["/usr/bin/codex"],
    env: {},
    writeScopeEnforcement: null,
    pinnedSessionId: null,
    noticeChannel: null,
    fastBy: null,
  });
  const notice = '[aiterm] You are a sub-agent in "kid" \\ (a > b)\nsecond line';
  const full = buildCodexLaunch({
    ...base,
    model: "gpt-6.2-sol",
    reasoningEffort: "high",
    writeScope: "read-only",
    fast: true,
    images: ["/tmp/a.png", "/tmp/b c.jpg"],
    notice,
  });
  assertEquals(full.argv, [
    "/usr/bin/codex",
    "-m",
    "gpt-6.2-sol",
    "-c",
    'model_reasoning_effort="high"',
    "-c",
    `developer_instructions=${JSON.stringify(notice)}`,
    "-c",
    'service_tier="fast"',
    "-s",
    "read-only",
    "--image=/tmp/a.png",
    "--image=/tmp/b c.jpg",
  ]);
  assertEquals(full.writeScopeEnforcement, "enforced_read_only");
  assertEquals([full.noticeChannel, full.fastBy], ["developer_instructions", "launch_option"]);
  // The -c value is TOML: the JSON string literal parses back to the notice exactly.
  assertEquals(parseToml(full.argv[6]!).developer_instructions, notice);
  const slow = buildCodexLaunch({ ...base, fast: false });
  assertEquals([slow.argv, slow.fastBy], [["/usr/bin/codex", "-c", 'service_tier="default"'], null]);
  assertEquals(
    buildCodexLaunch({ ...base, writeScope: "docs only" }).writeScopeEnforcement,
    "declaration_only_unsupported",
  );
  assert(!full.argv.some((a) => a === "exec" || a.includes("dangerously") || a === "--no-alt-screen"));
  assertEquals(codex.efforts, null);
  assertEquals(codex.submitSteps, [{ pauseMs: 700 }, { key: "Enter" }]);
});

const meta = (cwd: string) =>
  JSON.stringify({ timestamp: "t", ordinal: 0, type: "session_meta", payload: { id: "x", cwd } });

Deno.test("locateCodexRollouts() finds this cwd's rollouts written since launch, newest first", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const cwd = await Deno.realPath(tmp);
    const now = Date.UTC(2026, 11, 2, 0, 30);
    const since = now - 600_000;
    const today = join(tmp, "ch", "sessions", "2026", "12", "02");
    const yesterday = join(tmp, "ch", "sessions", "2026", "12", "01");
    await Deno.mkdir(today, { recursive: true });
    await Deno.mkdir(yesterday, { recursive: true });
    const write = async (path: string, body: string, mtime: number) => {
      await Deno.writeTextFile(path, body);
      await Deno.utime(path, new Date(mtime), new Date(mtime));
    };
    await write(join(yesterday, "rollout-a.jsonl"), meta(cwd) + "\n{}\n", since + 1_000);
    await write(join(today, "rollout-b.jsonl"), meta(cwd) + "\n", since + 5_000);
    await write(join(today, "rollout-other.jsonl"), meta("/elsewhere") + "\n", since + 6_000);
    await write(join(today, "rollout-old.jsonl"), meta(cwd) + "\n", since - 60_000);
    await write(join(today, "notes.jsonl"), meta(cwd) + "\n", since + 7_000);
    await write(join(today, "rollout-torn.jsonl"), '{"type":"session_me', since + 8_000);
    const env = { CODEX_HOME: join(tmp, "ch"), HOME: "/nonexistent" };
    const found = await locateCodexRollouts({ cwd, env, since, pinnedSessionId: null }, now);
    assertEquals(found, [join(today, "rollout-b.jsonl"), join(yesterday, "rollout-a.jsonl")]);
    const none = await locateCodexRollouts({ cwd, env: { HOME: tmp }, since, pinnedSessionId: null }, now);
    assertEquals(none, []);
    // A session that began before the launch (another launch in this cwd, still writing) is never a candidate.
    const began = (ms: number) =>
      JSON.stringify({ type: "session_meta", payload: { id: "y", cwd, timestamp: new Date(ms).toISOString() } });
    await write(join(today, "rollout-earlier-launch.jsonl"), began(since - 30_000) + "\n", since + 9_000);
    await write(join(today, "rollout-this-launch.jsonl"), began(since + 1_500) + "\n", since + 9_500);
    const mine = await locateCodexRollouts({ cwd, env, since, pinnedSessionId: null }, now);
    assertEquals(mine.slice(0, 1), [join(today, "rollout-this-launch.jsonl")]);
    assert(!mine.includes(join(today, "rollout-earlier-launch.jsonl")), JSON.stringify(mine));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("parseCodexTurns() reads the 0.171 reference rollout", () => {
  const text = Deno.readTextFileSync(new URL("samples/codex-rollout.jsonl", dir));
  const turns = parseCodexTurns(text);
  assertEquals(turns.map((t) => [t.index, t.prompt, t.status]), [
    [0, "hello codex mock", "done"],
    [1, "SLOW please", "done"],
    [2, "TOOLCALL now", "done"],
    [3, "MCPCALL now", "done"],
    [4, "MCPCALL again", "done"],
    [5, "MCPCALL third", "done"],
    [6, "ERR400 now", "error"],
    [7, "queued hello", "done"],
    [8, "SLOW then interrupt", "interrupted"],
  ]);
  assertEquals(turns[0]!.turnId, "01a236fc-282b-7391-b55e-43c080e5cd3d");
  assertEquals(turns[0]!.answer, "MOCK_REPLY line one.\nSecond line for: hello codex mock");
  assertEquals(
    turns[6]!.error,
    '{"error":{"type":"invalid_request_error","code":"mock_error","message":"Mock 400 error"}}',
  );
  const cut = text.slice(0, text.indexOf('"type":"task_complete","root_turn_id":"01a236fc-bd61') + 30);
  const torn = parseCodexTurns(cut);
  assertEquals(torn.map((t) => t.status), ["done", "running"]);
});

Deno.test("parseCodexTurns() reads a real 0.169.0 rollout: a steered turn, an API error, a tool call", () => {
  const text = Deno.readTextFileSync(new URL("samples/real-0.169.0-rollout.jsonl", dir));
  const turns = parseCodexTurns(text);
  assertEquals(turns.map((t) => [t.index, t.prompt, t.status, t.answer]), [
    [0, "SLOW first", "done", "MOCK_REPLY steer text here"], // the steer joined the running turn
    [1, "ERR400 now", "error", null],
    [2, "TOOLCALL go", "done", "MOCK_AFTER_TOOL done."],
  ]);
  assertEquals(turns[0]!.turnId, "01a23792-b25d-7573-b056-9bbd5ecf901a");
  assertEquals(
    turns[1]!.error,
    '{"error":{"message":"Mock 400 error","type":"invalid_request_error","param":null,"code":"mock_error"}}',
  );
  // Every prefix of the file (a live read): never more turns, and a turn is never done early.
  const lines = text.split("\n");
  for (let n = 0; n <= lines.length; n++) {
    const part = parseCodexTurns(lines.slice(0, n).join("\n"));
    assert(part.length <= turns.length, `prefix ${n}`);
    for (const t of part) if (t.status !== "running") assertEquals(t, turns[t.index], `prefix ${n}`);
  }
});

Deno.test("parseCodexTurns() accepts the older user_message / agent_message layout", () => {
  const ev = (payload: Record<string, unknown>) => JSON.stringify({ timestamp: "t", type: "event_msg", payload });
  const text = [
    ev({ type: "user_message", message: "first" }),
    ev({ type: "task_started", model_context_window: 1 }),
    ev({ type: "agent_message", message: "one" }),
    ev({ type: "task_complete", last_agent_message: null }),
    ev({ type: "task_started" }),
    ev({ type: "user_message", message: "second" }),
    ev({ type: "turn_aborted", reason: "interrupted" }),
    ev({ type: "task_started", turn_id: "t3" }),
    ev({ type: "user_message", message: "third" }),
    ev({ type: "agent_message", message: "three" }),
    ev({ type: "task_complete", turn_id: "t3", last_agent_message: "three!" }),
  ].join("\n");
  assertEquals(parseCodexTurns(text).map((t) => [t.turnId, t.prompt, t.status, t.answer]), [
    ["turn-0", "first", "done", "one"],
    ["turn-1", "second", "interrupted", null],
    ["t3", "third", "done", "three!"],
  ]);
});

Deno.test("parseCodexModelCatalog() maps efforts, defaults, visibility and fast tiers", () => {
  const json = Deno.readTextFileSync(new URL("samples/codex-debug-models-trimmed.json", dir));
  const catalog = parseCodexModelCatalog("WARNING: proceeding, even though …\n" + json);
  assertEquals(catalog.source, "codex-debug-models");
  assertEquals(catalog.defaultModel, "gpt-6.2-sol");
  const byId = new Map(catalog.models.map((m) => [m.id, m]));
  assertEquals(byId.get("gpt-6.2-sol"), {
    id: "gpt-6.2-sol",
    displayName: "GPT-6.2-Sol",
    efforts: ["low", "medium", "high", "xhigh", "max", "ultra"],
    defaultEffort: "low",
    hidden: false,
    fast: true,
  });
  assertEquals(byId.get("gpt-5.5")?.efforts, ["low", "medium", "high", "xhigh"]);
  assertEquals([byId.get("gpt-daybreak-red-latest")?.hidden, byId.get("gpt-daybreak-red-latest")?.fast], [true, false]);
  assertEquals(catalog.models.length, 14);
});

// ── agent_approval: the approval dialog parser ──

Deno.test("parseCodexApproval() reads the real 0.169.0 command approval: kind, text, choices, keys, selection", () => {
  const d = parseCodexApproval(screen("real-0.169.0-07-command-approval"));
  assertEquals(d, {
    kind: "command",
    text: [
      "Would you like to run the following command?",
      "Environment: local",
      "Reason: `/bin/bash -lc 'echo TOOL_OK'` requires approval by policy",
      "$ echo TOOL_OK",
    ],
    choices: [
      { id: "approve_once", label: "Yes, proceed", singleShot: true, key: "1" },
      { id: "deny", label: "No, and tell Codex what to do differently", singleShot: true, key: "2" },
    ],
    selected: 0,
  });
  // The marker moved (Down): the same dialog, another selection.
  const moved = parseCodexApproval(screen("real-0.169.0-08-command-approval-moved"));
  assertEquals({ ...moved!, selected: 0 }, d);
  assertEquals(moved!.selected, 1);
});

Deno.test("parseCodexApproval() reads the MCP tool approval; remembered choices are never single-shot", () => {
  const d = parseCodexApproval(screen("codex-15-mcp-after-reconnect"))!;
  assertEquals([d.kind, d.text], ["mcp_tool", [
    'Allow the probe MCP server to run tool "echo"?',
    "text: hello-from-mock",
  ]]);
  assertEquals(d.choices.map((c) => [c.id, c.label, c.singleShot, c.key]), [
    ["approve_once", "Allow", true, "1"],
    ["approve_session", "Allow for this session", false, "2"],
    ["approve_always", "Always allow", false, "3"],
    ["deny", "Cancel", true, "4"],
  ]);
  // A command approval that offers a prefix rule ("don't ask again") keeps it out of the single-shot choices.
  const three = screen("real-0.169.0-07-command-approval").replace(
    "  2. No, and tell Codex",
    "  2. Yes, and don't ask again for commands that start with `echo` (p)\n  3. No, and tell Codex",
  );
  assertEquals(parseCodexApproval(three)!.choices.map((c) => [c.id, c.singleShot, c.key]), [
    ["approve_once", true, "1"],
    ["approve_always", false, "2"],
    ["deny", true, "3"],
  ]);
});

Deno.test("parseCodexApproval() reads only a dialog at the bottom, and an unknown title as kind unknown", () => {
  // The same dialog with the live composer under it (scrollback): not current.
  assertEquals(parseCodexApproval(screen("real-0.169.0-07-command-approval") + IDLE_TAIL), null);
  // Every screen that is not an approval has none: idle, busy, trust, pickers, onboarding.
  const names = [...Deno.readDirSync(new URL("screens/", dir))].map((e) => e.name.replace(/\.txt$/, ""))
    .filter((n) => n.startsWith("codex-") || n.startsWith("real-0.169.0-"));
  for (const name of names) {
    const approval = classifyCodexScreen(screen(name));
    const expected = approval.kind === "blocked" && approval.reason === "approval_required";
    assertEquals(parseCodexApproval(screen(name)) !== null, expected, name);
  }
  // Options and an approval footer under a title the adapter does not know: kind unknown, text kept.
  const other = screen("real-0.169.0-07-command-approval").replace(
    "Would you like to run the following command?",
    "Do you want to allow network access to example.com?",
  );
  const d = parseCodexApproval(other)!;
  assertEquals(d.kind, "unknown");
  assertEquals(d.text[0], "Do you want to allow network access to example.com?");
  // Options numbered out of order are not a dialog aiterm reads.
  assertEquals(parseCodexApproval(screen("real-0.169.0-07-command-approval").replace("  2. No,", "  3. No,")), null);
});

Deno.test("codexComposerText() is empty for the placeholder and the text once typed", () => {
  assertEquals(codexComposerText(screen("real-0.169.0-02-idle")), "");
  assertEquals(codexComposerText(screen("real-0.169.0-07-command-approval")), null);
  assertEquals(codexComposerText(screen("codex-05-idle").replace("Ask Codex to do anything", "/model")), "/model");
});

// ── agent_configure: the /model picker ──

const goal = (g: Partial<ConfigureGoal>): ConfigureGoal => ({
  model: null,
  modelLabel: null,
  effort: null,
  currentEffort: null,
  ...g,
});

Deno.test("codex configure stages walk the real /model views: move, select once on the row, effort with s", () => {
  const [open, model, effort] = codex.configure!.stages(
    goal({ model: "gpt-6-luna", modelLabel: "GPT-6-Luna", effort: "max" }),
  );
  const idle = screen("real-0.169.0-09-after-approval");
  assertEquals(open!.keys(idle), [{ text: "/model" }, { pauseMs: 500 }, { key: "Enter" }]);
  assertEquals(open!.check(idle, idle), { kind: "wait" });
  assertEquals(open!.check(screen("real-0.169.0-10-model-picker"), idle), { kind: "next" });
  assertEquals(open!.keys(screen("real-0.169.0-03-busy")), null); // never typed into a running turn
  // The row is found by its display name; Enter only once the marker is on it.
  const picker = screen("real-0.169.0-10-model-picker");
  assertEquals(model!.keys(picker), [{ key: "Down" }, { key: "Down" }, { key: "Down" }, { pauseMs: 250 }]);
  assertEquals(model!.check(picker, idle), { kind: "again" });
  assertEquals(model!.keys(screen("real-0.169.0-11-model-picker-moved")), [{ key: "Enter" }]);
  assertEquals(model!.check(screen("real-0.169.0-12-reasoning-picker"), idle), { kind: "next" });
  // max is behind "More reasoning…"; the session-only key applies it, never Enter (the saved default).
  const levels = screen("real-0.169.0-12-reasoning-picker");
  assertEquals(effort!.keys(levels), [{ key: "Down" }, { key: "Down" }, { key: "Down" }, { pauseMs: 250 }]);
  assertEquals(effort!.keys(levels.replace("› 2. Medium", "  2. Medium").replace("  5. More", "› 5. More")), [
    { key: "Enter" },
  ]);
  assertEquals(effort!.keys(screen("real-0.169.0-13-advanced-reasoning")), [{ key: "s" }]);
  assertEquals(effort!.check(screen("real-0.169.0-13-advanced-reasoning"), idle), { kind: "again" });
  assertEquals(effort!.check(screen("real-0.169.0-14-model-changed-session"), idle), {
    kind: "done",
    model: "gpt-6-luna",
    effort: "max",
    persistedDefault: false,
    message: "Model changed to gpt-6-luna max for this session only",
  });
  // A confirmation of something else is a refusal, not a success.
  const [, , other] = codex.configure!.stages(goal({ model: "gpt-5.5", modelLabel: "GPT-5.5", effort: "low" }));
  assertEquals(other!.check(screen("real-0.169.0-14-model-changed-session"), idle).kind, "failed");
});

Deno.test("codex configure stages scroll to rows out of view and pick the (current) model for an effort alone", () => {
  const [, model] = codex.configure!.stages(goal({ model: "gpt-5.5", modelLabel: "GPT-5.5" }));
  // GPT-5.5 is below the eight rows shown ("↓"): move past the last one so the list scrolls.
  assertEquals(model!.keys(screen("real-0.169.0-10-model-picker")), [
    ...Array.from({ length: 8 }, () => ({ key: "Down" })),
    { pauseMs: 200 },
  ]);
  assertEquals(model!.keys(screen("real-0.169.0-15-model-picker-scrolled-current")), [{ key: "Enter" }]);
  const [, current] = codex.configure!.stages(goal({ effort: "high" }));
  assertEquals(current!.keys(screen("real-0.169.0-15-model-picker-scrolled-current")), [
    ...Array.from({ length: 5 }, () => ({ key: "Up" })),
    { pauseMs: 250 },
  ]);
  // No "(current)" row and nothing more to scroll: not offered.
  assertEquals(current!.keys(screen("real-0.169.0-11-model-picker-moved").replace("\n↓", "")), null);
  // Without an effort asked for, the one in use stays when the model lists it; otherwise the view's own.
  const [, , keep] = codex.configure!.stages(
    goal({ model: "gpt-6-luna", modelLabel: "GPT-6-Luna", currentEffort: "low" }),
  );
  assertEquals(keep!.keys(screen("real-0.169.0-12-reasoning-picker")), [{ key: "Up" }, { pauseMs: 250 }]);
  const [, , fresh] = codex.configure!.stages(
    goal({ model: "gpt-6-luna", modelLabel: "GPT-6-Luna", currentEffort: "minimal" }),
  );
  assertEquals(fresh!.keys(screen("real-0.169.0-12-reasoning-picker")), [{ key: "s" }]);
});

Deno.test("codex configure leaves an open /model view with Escape and nothing else", () => {
  for (
    const n of ["10-model-picker", "12-reasoning-picker", "13-advanced-reasoning", "15-model-picker-scrolled-current"]
  ) {
    assertEquals(codex.configure!.leave(screen(`real-0.169.0-${n}`)), [{ key: "Escape" }], n);
  }
  for (const n of ["02-idle", "07-command-approval", "14-model-changed-session", "16-model-picker-closed"]) {
    assertEquals(codex.configure!.leave(screen(`real-0.169.0-${n}`)), null, n);
  }
});
