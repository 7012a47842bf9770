import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../tests/helpers/assert.ts";
import {
  answerClaudeStartupDialog,
  buildClaudeLaunch,
  classifyClaudeScreen,
  claude,
  claudeComposerHolds,
  claudeComposerText,
  claudeFastShown,
  claudeProjectSlug,
  locateClaudeTranscripts,
  parseClaudeApproval,
  parseClaudeInitialize,
  parseClaudeTurns,
} from "./claude.ts";
import type { ConfigureGoal, LaunchOptions, ScreenState } from "./types.ts";

const dir = new URL("./testdata/", import.meta.url);
const screen = (name: string) => Deno.readTextFileSync(new URL(`screens/${name}.txt`, dir));
const short = (s: ScreenState) => s.kind === "blocked" ? `blocked:${s.reason}` : s.kind;

/** Every Claude reference screen (copied from the lab captures) with the state it must classify as. */
const EXPECTED: Record<string, string> = {
  "claude-01-first-launch": "blocked:service_unreachable",
  "claude-02-trust-dialog": "blocked:trust_required",
  "claude-03-idle": "ready",
  "claude-04-after-ctrlc": "ready",
  "claude-05-ctrlc-once": "ready",
  "claude-06-ctrlc-twice": "exited",
  "claude-07-idle-with-mcp": "ready",
  "claude-08-typed": "ready",
  "claude-09-reply": "ready",
  "claude-10-busy": "busy",
  "claude-11-after-slow": "ready",
  "claude-12-bash-permission": "ready", // the read-only echo was auto-approved: no dialog on screen
  "claude-13-mcp-permission": "blocked:approval_required",
  "claude-14-after-mcp": "ready",
  "claude-15-api-error": "ready",
  "claude-16-slash-exit-typed": "ready", // slash menu under the composer
  "claude-17-after-exit": "exited",
  "claude-18-initial-prompt-busy": "busy", // plan-mode footer with esc to interrupt
  "claude-19-plan-mode-idle": "ready",
  "claude-20-529-retry": "busy",
  "claude-21-interrupted": "ready", // prompt put back into the composer, no footer
  "claude-30-resumed": "ready",
  "claude-31-interrupted": "ready",
  "claude-32-exit": "exited",
};

Deno.test("classifyClaudeScreen() classifies every reference screen", () => {
  const names = [...Deno.readDirSync(new URL("screens/", dir))].map((e) => e.name.replace(/\.txt$/, ""))
    .filter((n) => n.startsWith("claude-")).sort();
  assertEquals(names, Object.keys(EXPECTED).sort());
  for (const name of names) assertEquals(short(classifyClaudeScreen(screen(name))), EXPECTED[name], name);
  assertEquals(classifyClaudeScreen(screen("claude-17-after-exit")), {
    kind: "exited",
    detail: "claude --resume 11111111-2222-4333-8444-555555555555",
  });
  assertEquals(classifyClaudeScreen(""), { kind: "starting" });
});

const RULE = "─".repeat(60);
const IDLE = [RULE, "❯ ", RULE, "  ? for shortcuts · ← for agents"].join("\n");

Deno.test("classifyClaudeScreen() lets only the bottom decide, never old text in scrollback", () => {
  const oldTrust = screen("claude-02-trust-dialog");
  assertEquals(classifyClaudeScreen(`${oldTrust}\n${IDLE}`).kind, "ready");
  const oldPermission = screen("claude-13-mcp-permission");
  assertEquals(classifyClaudeScreen(`${oldPermission}\n● done\n${IDLE}`).kind, "ready");
  // An earlier run's exit hint, then this launch's command line: the new TUI has not drawn yet.
  const relaunch = `${screen("claude-17-after-exit").replace(/EXITED rc=0\s*$/, "")}user@h:~/p$ claude --session-id x`;
  assertEquals(classifyClaudeScreen(relaunch).kind, "starting");
  const oldFailure = `${screen("claude-01-first-launch").replace(/EXITED rc=1\s*$/, "")}user@h:~/p$ claude\n`;
  assertEquals(classifyClaudeScreen(oldFailure).kind, "starting");
  // Once the TUI has exited, a shell prompt under an old dialog means exited.
  assertEquals(classifyClaudeScreen(`${oldTrust}\nuser@h:~/p$`).kind, "exited");
  assertEquals(classifyClaudeScreen(`${IDLE}\nuser@h:~/p$ `).kind, "exited");
});

Deno.test("classifyClaudeScreen() recognises onboarding screens that the lab did not capture", () => {
  const theme = [
    " Let's get started.",
    " Choose the text style that looks best with your terminal",
    " ❯ 1. Dark mode ✔",
    "   2. Light mode",
  ].join("\n");
  assertEquals(short(classifyClaudeScreen(theme)), "blocked:theme_picker");
  assertEquals(
    short(classifyClaudeScreen(" ❯ 1. Dark mode ✔\n   2. Light mode\n   3. Dark mode (colorblind)")),
    "blocked:theme_picker",
  );
  const login = " Select login method:\n ❯ 1. Claude account with subscription\n   2. Anthropic Console account";
  assertEquals(short(classifyClaudeScreen(login)), "blocked:vendor_onboarding_required");
  const key = " Detected a custom API key in your environment\n Do you want to use this API key?\n ❯ 1. Yes\n   2. No";
  assertEquals(short(classifyClaudeScreen(key)), "blocked:api_key_approval");
  const other = " Pick something\n ❯ 1. A\n   2. B\n Enter to confirm · Esc to cancel";
  assertEquals(short(classifyClaudeScreen(other)), "blocked:unknown_dialog");
});

Deno.test("answerClaudeStartupDialog() trusts only when asked, always confirms the theme, else null", () => {
  const trust = screen("claude-02-trust-dialog");
  assertEquals(answerClaudeStartupDialog(trust, true), [{ key: "Enter" }]);
  assertEquals(answerClaudeStartupDialog(trust, false), null);
  const moved = trust.replace("❯ 1. Yes", "  1. Yes").replace("  2. No, exit", "❯ 2. No, exit");
  // Only the move: Enter follows once the screen shows the marker on "Yes, I trust this folder".
  assertEquals(answerClaudeStartupDialog(moved, true), [{ key: "Up" }, { pauseMs: 250 }]);
  const theme = " Choose the text style that looks best with your terminal\n ❯ 1. Dark mode ✔\n   2. Light mode";
  assertEquals(answerClaudeStartupDialog(theme, false), [{ key: "Enter" }]);
  for (const name of ["claude-03-idle", "claude-13-mcp-permission", "claude-01-first-launch", "claude-10-busy"]) {
    assertEquals(answerClaudeStartupDialog(screen(name), true), null, name);
  }
});

/** The real Claude Code 2.1.328 screens (captured by running it against the fake Anthropic server, 200x50). */
const REAL: Record<string, string> = {
  "real-2.1.328-01-trust-dialog": "blocked:trust_required", // un-numbered, "❯ No, exit" first
  "real-2.1.328-02-trust-yes-selected": "blocked:trust_required",
  "real-2.1.328-03-idle-auto-mode": "ready", // "⏵⏵ auto mode on (shift+tab to cycle) · ← for agents"
  "real-2.1.328-04-busy": "busy",
  "real-2.1.328-05-busy-queued-steer": "busy", // "Queued · ctrl+x ctrl+s to send now"
  "real-2.1.328-06-after-turn": "ready", // with the tmux focus-events notice above the composer
  "real-2.1.328-07-api-error": "ready",
  "real-2.1.328-08-toolcall-busy": "busy",
  "real-2.1.328-09-offline": "blocked:service_unreachable", // fresh HOME, no network, exits 1
  // A `permissions.ask` rule for `Bash(echo TOOL_OK)` makes it ask (auto mode would run `echo`).
  "real-2.1.328-10-bash-permission": "blocked:approval_required",
  "real-2.1.328-11-bash-permission-moved": "blocked:approval_required", // Down pressed: "❯ 2. No"
  "real-2.1.328-12-after-permission": "ready",
  "real-2.1.328-13-model-typed": "ready", // "/model sonnet" typed, not submitted
  "real-2.1.328-14-switch-model-confirm": "blocked:unknown_dialog", // "Switch model?" once there is history
  "real-2.1.328-15-model-set": "ready",
  "real-2.1.328-16-effort-set": "ready",
  "real-2.1.328-17-effort-unknown": "ready", // "⎿  Unknown option: bogus. …"
  // `permissions.defaultMode: "default"`: the auto-mode offer at start-up is the user's choice, never input.
  "real-2.1.328-18-auto-mode-offer": "blocked:vendor_onboarding_required",
  // `--settings '{"fastMode":true}'`: the composer's upper rule carries the ↯ mark (none for sonnet).
  "real-2.1.328-40-fast-on-idle": "ready",
  "real-2.1.328-41-sonnet-fast-refused-idle": "ready",
};

Deno.test("the real Claude Code 2.1.328 screens classify as expected", () => {
  const names = [...Deno.readDirSync(new URL("screens/", dir))].map((e) => e.name.replace(/\.txt$/, ""))
    .filter((n) => n.startsWith("real-2.1.328-")).sort();
  assertEquals(names, Object.keys(REAL).sort());
  for (const name of names) assertEquals(short(classifyClaudeScreen(screen(name))), REAL[name], name);
  assertEquals(classifyClaudeScreen(screen("real-2.1.328-09-offline")), {
    kind: "blocked",
    reason: "service_unreachable",
    detail: "Unable to connect to Anthropic services / Failed to connect to api.anthropic.com: ENOTFOUND",
  });
  // Exited (the shell or the lab marker under it) still says why.
  assertEquals(
    short(classifyClaudeScreen(`${screen("real-2.1.328-09-offline")}\nEXITED rc=1`)),
    "blocked:service_unreachable",
  );
  assert(!claudeComposerHolds(screen("real-2.1.328-05-busy-queued-steer"), "steer text here"));
});

Deno.test("answerClaudeStartupDialog() selects the 2.1.328 trust option by its label, then confirms", () => {
  const trust = screen("real-2.1.328-01-trust-dialog");
  // "❯ No, exit" is selected and Enter alone would exit: move down first, no Enter yet.
  assertEquals(answerClaudeStartupDialog(trust, true), [{ key: "Down" }, { pauseMs: 250 }]);
  assertEquals(answerClaudeStartupDialog(trust, false), null);
  assertEquals(answerClaudeStartupDialog(screen("real-2.1.328-02-trust-yes-selected"), true), [{ key: "Enter" }]);
  // A longer list, Yes last: as many moves as options in between.
  const three = trust.replace("   Yes, I trust this folder", "   Maybe later\n   Yes, I trust this folder");
  assertEquals(answerClaudeStartupDialog(three, true), [{ key: "Down" }, { key: "Down" }, { pauseMs: 250 }]);
  for (const name of Object.keys(REAL).filter((n) => !n.includes("trust"))) {
    assertEquals(answerClaudeStartupDialog(screen(name), true), null, name);
  }
});

Deno.test("claudeComposerHolds() reads only the last composer box", () => {
  assert(claudeComposerHolds(screen("claude-08-typed"), "hello there, mock"));
  assert(claudeComposerHolds(screen("claude-08-typed"), "hello there, mock and a long tail that wrapped"));
  assert(!claudeComposerHolds(screen("claude-09-reply"), "hello there, mock")); // only in the history
  assert(claudeComposerHolds(screen("claude-21-interrupted"), "ERR529 overloaded test"));
  assert(!claudeComposerHolds(screen("claude-10-busy"), "SLOW answer please"));
  assert(!claudeComposerHolds(screen("claude-02-trust-dialog"), "1. Yes"));
  assert(claudeComposerHolds([RULE, "❯ [Pasted text #1 +40 lines]", RULE].join("\n"), "long\ntext"));
  assert(
    claudeComposerHolds(
      [RULE, "❯ first line of a", "  multi-line prompt", RULE].join("\n"),
      "first line of a multi-line prompt",
    ),
  );
});

const base: LaunchOptions = {
  bin: "/usr/bin/claude",
  cwd: "/w/p",
  model: null,
  reasoningEffort: null,
  writeScope: null,
  fast: null,
  images: [],
  sessionUuid: "11111111-2222-4333-8444-555555555555",
  notice: null,
};

Deno.test("buildClaudeLaunch() pins the session and maps model, effort, read-only, notice and fast", () => {
  assertEquals(buildClaudeLaunch(base), {
    argv: ["/usr/bin/claude", "--session-id", base.sessionUuid],
    env: {},
    writeScopeEnforcement: null,
    pinnedSessionId: base.sessionUuid,
    noticeChannel: null,
    fastBy: null,
  });
  const full = buildClaudeLaunch({
    ...base,
    model: "opus",
    reasoningEffort: "xhigh",
    writeScope: "read-only",
    fast: true,
    images: ["/tmp/a.png"],
    notice: "[aiterm] You are a sub-agent",
  });
  assertEquals(full.argv, [
    "/usr/bin/claude",
    "--session-id",
    base.sessionUuid,
    "--model",
    "opus",
    "--effort",
    "xhigh",
    "--append-system-prompt",
    "[aiterm] You are a sub-agent",
    "--settings",
    '{"fastMode":true}',
    "--permission-mode",
    "plan",
  ]);
  assertEquals([full.noticeChannel, full.fastBy], ["append_system_prompt", "launch_option"]);
  // fast:false pins normal speed for this session (a user default of fastMode:true is overridden).
  const slow = buildClaudeLaunch({ ...base, fast: false });
  assertEquals([slow.argv.slice(3), slow.fastBy], [["--settings", '{"fastMode":false}'], null]);
  assertEquals(full.writeScopeEnforcement, "enforced_read_only");
  assertEquals(
    buildClaudeLaunch({ ...base, writeScope: "only src/" }).writeScopeEnforcement,
    "declaration_only_unsupported",
  );
  assert(!full.argv.some((a) => a.startsWith("-p") || a.includes("dangerously")));
  assertEquals(claude.efforts, ["low", "medium", "high", "xhigh", "max"]);
  assertEquals(claude.submitSteps, [{ pauseMs: 400 }, { key: "Enter" }]);
});

Deno.test("claudeProjectSlug() replaces non-alphanumerics and hashes paths over 200 characters", () => {
  assertEquals(claudeProjectSlug("/home/user/work/proj-a"), "-home-user-work-proj-a");
  assertEquals(claudeProjectSlug("/tmp/a_b.c"), "-tmp-a-b-c");
  const long = "/home/user/" + Array.from({ length: 9 }, (_, i) => `very-long-directory-name-0${i}`).join("/");
  const slug = claudeProjectSlug(long);
  assertEquals(slug.length, 207);
  assertEquals(slug.slice(200), "-77hztd"); // cross-checked with an independent Java-style hash
});

Deno.test("locateClaudeTranscripts() returns the pinned file, else recent files of the project", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const cwd = join(tmp, "proj.a");
    await Deno.mkdir(cwd);
    const real = await Deno.realPath(cwd);
    const config = join(tmp, "cfg");
    const project = join(config, "projects", claudeProjectSlug(real));
    await Deno.mkdir(project, { recursive: true });
    const env = { CLAUDE_CONFIG_DIR: config, HOME: "/nonexistent" };
    const pinned = await locateClaudeTranscripts({ cwd, env, since: 0, pinnedSessionId: "abc" });
    assertEquals(pinned, [join(project, "abc.jsonl")]);
    const since = Date.now() - 60_000;
    await Deno.writeTextFile(join(project, "old.jsonl"), "{}\n");
    await Deno.utime(join(project, "old.jsonl"), new Date(since - 3_600_000), new Date(since - 3_600_000));
    await Deno.writeTextFile(join(project, "a.jsonl"), "{}\n");
    await Deno.utime(join(project, "a.jsonl"), new Date(since + 1_000), new Date(since + 1_000));
    await Deno.writeTextFile(join(project, "b.jsonl"), "{}\n");
    await Deno.utime(join(project, "b.jsonl"), new Date(since + 2_000), new Date(since + 2_000));
    const found = await locateClaudeTranscripts({ cwd, env, since, pinnedSessionId: null });
    assertEquals(found, [join(project, "b.jsonl"), join(project, "a.jsonl")]);
    const viaHome = await locateClaudeTranscripts({ cwd, env: { HOME: tmp }, since, pinnedSessionId: "x" });
    assertEquals(viaHome, [join(tmp, ".claude", "projects", claudeProjectSlug(real), "x.jsonl")]);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("parseClaudeTurns() reads the reference transcript turn by turn", () => {
  const text = Deno.readTextFileSync(new URL("samples/claude-transcript.jsonl", dir));
  const turns = parseClaudeTurns(text);
  assertEquals(turns.map((t) => [t.index, t.prompt, t.status]), [
    [0, "hello there, mock", "done"],
    [1, "SLOW answer please", "done"],
    [2, "TOOLCALL run it", "done"],
    [3, "MCPCALL now", "done"],
    [4, "ERR400 trigger", "error"],
    [5, "SLOW then interrupt", "running"], // Esc before any output: no end record at all
  ]);
  assertEquals(turns[0]!.turnId, "a55a168a-7fd6-46ab-abb3-8a0d244c0fe9");
  assertEquals(turns[1]!.answer, "MOCK_REPLY line one.\nSecond line for: SLOW answer please");
  assertEquals(turns[2]!.answer, "Calling a tool.\n\nMOCK_AFTER_TOOL done.");
  assertEquals([turns[4]!.answer, turns[4]!.error], [null, "API Error: 400 Mock 400 error"]);
  // A torn last line is ignored; the turn before it is unchanged.
  const torn = parseClaudeTurns(text + '{"type":"system","subtype":"turn_dur');
  assertEquals(torn, turns);
});

Deno.test("parseClaudeTurns() ends a turn at an interrupt marker and skips synthetic records", () => {
  const lines = [
    { type: "user", promptId: "p1", origin: { kind: "human" }, message: { role: "user", content: "go" } },
    { type: "assistant", message: { model: "m", content: [{ type: "text", text: "partial" }] } },
    { type: "user", promptId: "p1", message: { content: [{ type: "text", text: "[Request interrupted by user]" }] } },
    { type: "user", promptId: "p2", message: { content: [{ type: "text", text: "again" }] } },
    {
      type: "assistant",
      message: { model: "<synthetic>", content: [{ type: "text", text: "No response requested." }] },
    },
    { type: "assistant", message: { model: "m", content: [{ type: "text", text: "ok" }] } },
    { type: "system", subtype: "turn_duration", durationMs: 5 },
  ].map((r) => JSON.stringify(r)).join("\n");
  const turns = parseClaudeTurns(lines);
  assertEquals(turns.map((t) => [t.turnId, t.prompt, t.status, t.answer]), [
    ["p1", "go", "interrupted", null],
    ["p2", "again", "done", "ok"],
  ]);
});

Deno.test("parseClaudeTurns() reads a real 2.1.328 transcript: tool call, queued steer, API errors", () => {
  const text = Deno.readTextFileSync(new URL("samples/real-2.1.328-transcript.jsonl", dir));
  const turns = parseClaudeTurns(text);
  assertEquals(turns.map((t) => [t.index, t.prompt, t.status, t.answer, t.error]), [
    [0, "TOOLCALL go", "done", "Calling a tool.\n\nMOCK_AFTER_TOOL done.", null],
    // "steer text here" was submitted during the SLOW turn: queued (enqueue/dequeue), then recorded
    // as a prompt of its own after the turn's turn_duration. It continues the SLOW turn.
    [1, "SLOW second", "done", "MOCK_REPLY SLOW second\n\nMOCK_REPLY steer text here", null],
    // 2.1.328 writes no turn_duration after an API error: the isApiErrorMessage record ends the turn.
    [2, "ERR400 now", "error", null, "API Error: 400 Mock 400 error"],
    [3, "plain after", "error", null, "API Error: 400 Mock 400 error"],
  ]);
  assertEquals(turns[1]!.turnId, "f388d17b-00c2-415a-ba50-304ca1742a8f");
  // Every prefix of the file (a live read): never more turns, and a turn is never done early.
  const lines = text.split("\n");
  for (let n = 0; n <= lines.length; n++) {
    const part = parseClaudeTurns(lines.slice(0, n).join("\n"));
    assert(part.length <= turns.length, `prefix ${n}`);
    for (const t of part) if (t.status !== "running") assertEquals(t, turns[t.index], `prefix ${n}`);
  }
});

Deno.test("parseClaudeTurns() keeps a steer folded into a running tool turn in that turn", () => {
  const text = Deno.readTextFileSync(new URL("samples/real-2.1.328-transcript-midturn-steer.jsonl", dir));
  // enqueue, then remove + a queued_command attachment next to the tool result: one turn.
  assertEquals(parseClaudeTurns(text).map((t) => [t.prompt, t.status, t.answer]), [
    ["SLOW TOOLCALL go", "done", "Calling a tool.\n\nMOCK_AFTER_TOOL done."],
  ]);
});

Deno.test("parseClaudeTurns() ends a queued turn on interrupt and does not hold a turn for a removed prompt", () => {
  const user = (id: string, text: string) => ({
    type: "user",
    promptId: id,
    origin: { kind: "human" },
    message: { role: "user", content: text },
  });
  const said = (text: string) => ({ type: "assistant", message: { model: "m", content: [{ type: "text", text }] } });
  const q = (operation: string) => ({ type: "queue-operation", operation, content: "later" });
  const td = { type: "system", subtype: "turn_duration", durationMs: 5 };
  const jsonl = (rs: unknown[]) => rs.map((r) => JSON.stringify(r)).join("\n");
  const shape = (rs: unknown[]) => parseClaudeTurns(jsonl(rs)).map((t) => [t.prompt, t.status]);
  // Enqueued, not yet taken: the turn is not over at its turn_duration.
  assertEquals(shape([user("p1", "go"), q("enqueue"), said("a"), td]), [["go", "running"]]);
  // Taken back (remove) before the end: the turn ends normally.
  assertEquals(shape([user("p1", "go"), q("enqueue"), q("remove"), said("a"), td]), [["go", "done"]]);
  // An interrupt ends it whatever is queued; the next prompt is a new turn.
  assertEquals(
    shape([
      user("p1", "go"),
      q("enqueue"),
      { type: "user", message: { content: "[Request interrupted by user]" } },
      user("p2", "next"),
      said("b"),
      td,
    ]),
    [["go", "interrupted"], ["next", "done"]],
  );
  // A queued prompt after an API error continues the errored turn; its answer decides.
  assertEquals(
    shape([
      user("p1", "go"),
      q("enqueue"),
      q("dequeue"),
      {
        type: "assistant",
        isApiErrorMessage: true,
        message: { model: "<synthetic>", content: [{ type: "text", text: "API Error: 500" }] },
      },
      user("p2", "later"),
      said("ok"),
      td,
    ]),
    [["go", "done"]],
  );
});

Deno.test("parseClaudeInitialize() reads the real 2.1.328 initialize answer: ids, resolved ids, efforts, fast", () => {
  const text = Deno.readTextFileSync(new URL("samples/real-2.1.328-initialize.jsonl", dir));
  // Other stream-json lines around the answer are skipped.
  const catalog = parseClaudeInitialize(`{"type":"system","subtype":"init"}\n${text}`);
  assertEquals(catalog.source, "claude-code-initialize");
  assertEquals(catalog.defaultModel, "default");
  assertEquals(
    catalog.models.map((m) => [m.id, m.resolvedModel, m.fast]),
    [
      ["default", "claude-opus-5-5", true],
      ["opus", "claude-opus-5-5", true],
      ["fable", "claude-fable-5-2", true],
      ["sonnet", "claude-sonnet-5-5", false],
      ["haiku", "claude-haiku-5-5", false],
    ],
  );
  assert(catalog.models.every((m) => m.efforts.join() === "low,medium,high,xhigh,max" && !m.hidden));
  assertEquals(catalog.models[1]!.displayName, "Opus");
});

Deno.test("parseClaudeInitialize() refuses output without the answer, another request's answer, or an error", () => {
  const answer = (extra: Record<string, unknown>) =>
    JSON.stringify({
      type: "control_response",
      response: { subtype: "success", request_id: "aiterm-models", response: { models: [] }, ...extra },
    });
  const refused = (stdout: string, part: string) => {
    let err: unknown = null;
    try {
      parseClaudeInitialize(stdout);
    } catch (e) {
      err = e;
    }
    assertStringIncludes(String(err), part);
  };
  refused("", "no answer");
  refused(answer({ request_id: "other" }), "no answer");
  refused(answer({ subtype: "error", error: "nope" }), "nope");
  refused(answer({ response: {} }), "no models");
  assertEquals(parseClaudeInitialize(answer({})).models, []);
});

Deno.test("claudeFastShown() reads the ↯ mark on the composer's upper rule of the real 2.1.328 screens", () => {
  assertEquals(claudeFastShown(screen("real-2.1.328-40-fast-on-idle")), true);
  // sonnet has no fast mode: the same launch option leaves no mark.
  assertEquals(claudeFastShown(screen("real-2.1.328-41-sonnet-fast-refused-idle")), false);
  const bare = "─".repeat(60);
  assertEquals(claudeFastShown(`${bare.slice(0, 50)} ↯ ─\n❯ \n${bare}\n  ? for shortcuts`), true);
  // A ↯ in the conversation above the composer is not the mark.
  assertEquals(claudeFastShown(`● ↯ Fast mode ON\n${bare}\n❯ \n${bare}\n  ? for shortcuts`), false);
  assertEquals(claudeFastShown("Welcome to Claude Code"), null);
  assertEquals(claude.fastShown, claudeFastShown);
  // The marked rule is still the composer's border: its text is read as usual.
  assertEquals(claudeComposerText(screen("real-2.1.328-40-fast-on-idle")), "");
});

// ── agent_approval: the permission dialog parser ──

const IDLE_TAIL = "\n\n" + "─".repeat(40) + "\n❯ \n" + "─".repeat(40) + "\n  ? for shortcuts";

Deno.test("parseClaudeApproval() reads the real 2.1.328 Bash permission: kind, text, choices, keys, selection", () => {
  const d = parseClaudeApproval(screen("real-2.1.328-10-bash-permission"));
  assertEquals(d, {
    kind: "command",
    text: [
      "Bash command",
      "Print TOOL_OK",
      "echo TOOL_OK",
      "Rule Bash(echo TOOL_OK) from user settings overrides auto mode.",
      "/permissions to let auto mode decide",
      "Do you want to proceed?",
    ],
    choices: [
      { id: "approve_once", label: "Yes", singleShot: true, key: "1" },
      { id: "deny", label: "No", singleShot: true, key: "2" },
    ],
    selected: 0,
  });
  const moved = parseClaudeApproval(screen("real-2.1.328-11-bash-permission-moved"));
  assertEquals({ ...moved!, selected: 0 }, d);
  assertEquals(moved!.selected, 1);
});

Deno.test("parseClaudeApproval() reads the MCP tool permission; don't-ask-again is never single-shot", () => {
  const d = parseClaudeApproval(screen("claude-13-mcp-permission"))!;
  assertEquals(d.kind, "mcp_tool");
  assertEquals(d.text, [
    "Tool use",
    'probe - echo(text: "hello-from-mock") (MCP)',
    "Echo text back (probe).",
    "Do you want to proceed?",
  ]);
  assertEquals(d.choices.map((c) => [c.id, c.singleShot, c.key]), [
    ["approve_once", true, "1"],
    ["approve_always", false, "2"],
    ["deny", true, "3"],
  ]);
  // A file edit with a session-wide choice and a "(shift+tab)" hint.
  const edit = screen("real-2.1.328-10-bash-permission").replace(" Bash command", " Edit file")
    .replace(" Do you want to proceed?", " Do you want to make this edit to a.txt?")
    .replace(
      "   2. No",
      "   2. Yes, allow all edits during this session (shift+tab)\n   3. No, and tell Claude what to do differently (esc)",
    );
  const e = parseClaudeApproval(edit)!;
  assertEquals(e.kind, "file_edit");
  assertEquals(e.choices.map((c) => [c.id, c.label, c.singleShot]), [
    ["approve_once", "Yes", true],
    ["approve_session", "Yes, allow all edits during this session", false],
    ["deny", "No, and tell Claude what to do differently", true],
  ]);
});

Deno.test("parseClaudeApproval() reads only a dialog at the bottom; other dialogs and unknown titles are not approvals", () => {
  // The dialog with a composer under it (an old dialog in scrollback): not current.
  assertEquals(parseClaudeApproval(screen("real-2.1.328-10-bash-permission") + IDLE_TAIL), null);
  const names = [...Deno.readDirSync(new URL("screens/", dir))].map((e) => e.name.replace(/\.txt$/, ""))
    .filter((n) => n.startsWith("claude-") || n.startsWith("real-2.1.328-"));
  for (const name of names) {
    const s = classifyClaudeScreen(screen(name));
    const expected = s.kind === "blocked" && s.reason === "approval_required";
    assertEquals(parseClaudeApproval(screen(name)) !== null, expected, name);
  }
  // "Switch model?" (Enter to confirm · Esc to cancel) is no approval.
  assertEquals(parseClaudeApproval(screen("real-2.1.328-14-switch-model-confirm")), null);
  // A permission for a tool the adapter does not know: kind unknown (agent_approval never types into it).
  const web = screen("real-2.1.328-10-bash-permission").replace(" Bash command", " Fetch");
  assertEquals(parseClaudeApproval(web)!.kind, "unknown");
});

// ── agent_configure: /model and /effort ──

const goal = (g: Partial<ConfigureGoal>): ConfigureGoal => ({
  model: null,
  modelLabel: null,
  effort: null,
  currentEffort: null,
  ...g,
});

Deno.test("claude configure stages type /model and /effort into the empty composer and read the CLI's answers", () => {
  const [model, effort] = claude.configure!.stages(goal({ model: "sonnet", effort: "high" }));
  const idle = screen("real-2.1.328-12-after-permission");
  assertEquals(claudeComposerText(idle), "");
  assertEquals(model!.keys(idle), [{ text: "/model sonnet" }, { pauseMs: 400 }, { key: "Enter" }]);
  assertEquals(model!.keys(screen("real-2.1.328-13-model-typed")), null); // the composer holds text
  assertEquals(model!.keys(screen("real-2.1.328-04-busy")), null);
  assertEquals(model!.check(screen("real-2.1.328-13-model-typed"), idle), { kind: "wait" });
  // "Switch model?": "Yes, switch to …" is selected, so Enter; moved off it, the move back first.
  const confirm = screen("real-2.1.328-14-switch-model-confirm");
  assertEquals(model!.check(confirm, idle), { kind: "again" });
  assertEquals(model!.keys(confirm), [{ key: "Enter" }]);
  const off = confirm.replace("❯ 1. Yes", "  1. Yes").replace("    2. No, go back", "  ❯ 2. No, go back");
  assertEquals(model!.keys(off), [{ key: "Up" }, { pauseMs: 250 }]);
  assertEquals(model!.check(screen("real-2.1.328-15-model-set"), idle), {
    kind: "done",
    model: "sonnet",
    persistedDefault: true,
    message: "Set model to Sonnet 5.5 and saved as your default for new sessions",
  });
  // Only a new echo counts: the same answer already on screen before the keys is not this one's.
  assertEquals(model!.check(screen("real-2.1.328-15-model-set"), screen("real-2.1.328-15-model-set")), {
    kind: "wait",
  });
  assertEquals(effort!.check(screen("real-2.1.328-16-effort-set"), screen("real-2.1.328-15-model-set")), {
    kind: "done",
    effort: "high",
    persistedDefault: true,
    message:
      "Set effort level to high (saved as your default for new sessions): Comprehensive implementation with extensive testing and documentation",
  });
});

Deno.test("claude configure stages: a refusal fails, a tip shown meanwhile is not an answer, Escape leaves Switch model?", () => {
  const before = screen("real-2.1.328-16-effort-set");
  const [bogus] = claude.configure!.stages(goal({ effort: "bogus" }));
  assertEquals(bogus!.check(screen("real-2.1.328-17-effort-unknown"), before), {
    kind: "failed",
    message: "Unknown option: bogus. Options: low, medium, high, xhigh, max, auto, ultracode [on|off]",
  });
  const [model] = claude.configure!.stages(goal({ model: "sonnet" }));
  const set = screen("real-2.1.328-15-model-set");
  const idle = screen("real-2.1.328-12-after-permission");
  const tip = "  ⎿  Tip: Start small, ask Claude for a plan, and check its edits";
  const tipOnly = set.replace(/ {2}⎿\s+Set model to .*\n/, `${tip}\n`);
  assert(tipOnly.includes("Tip: Start small") && !tipOnly.includes("Set model to"), "the tip replaced the answer");
  assertEquals(model!.check(tipOnly, idle), { kind: "wait" });
  const tipFirst = set.replace(/( {2}⎿\s+Set model to )/, `${tip}\n$1`);
  assertEquals(model!.check(tipFirst, idle).kind, "done");
  assertEquals(model!.check(set.replace(/Set model to .*/, "Kept model as Opus 5.5"), idle).kind, "failed");
  assertEquals(claude.configure!.leave(screen("real-2.1.328-14-switch-model-confirm")), [{ key: "Escape" }]);
  assertEquals(claude.configure!.leave(set), null);
});
