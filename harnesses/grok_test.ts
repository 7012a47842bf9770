import { join } from "node:path";
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import {
  answerGrokStartupDialog,
  buildGrokLaunch,
  classifyGrokScreen,
  dismissGrokRateLimitDialog,
  grok,
  grokComposerHolds,
  grokComposerText,
  grokCwdKey,
  grokQueue,
  grokQueueRowShows,
  grokRateLimitDialog,
  grokSandboxRefusal,
  grokSteerPlace,
  locateGrokTranscript,
  parseGrokModelCatalog,
  parseGrokTurns,
} from "./grok.ts";
import type { ConfigureGoal, LaunchOptions, ScreenState } from "./types.ts";

const dir = new URL("./testdata/grok/", import.meta.url);
const screen = (name: string) => Deno.readTextFileSync(new URL(`screens/${name}.txt`, dir));
const sample = (name: string) => Deno.readTextFileSync(new URL(`samples/${name}`, dir));
const short = (s: ScreenState) => s.kind === "blocked" ? `blocked:${s.reason}` : s.kind;

/** Reference screens (lab, 1.0.41) and real captures (`real-*`, this repo's fake server) with their states. */
const EXPECTED: Record<string, string> = {
  "grok-01-first-launch": "ready",
  "grok-02-reply": "ready", // ghost suggestion "Mock title" in the composer
  "grok-03-after-ctrlq": "ready",
  "grok-04-slash-quit-typed": "ready", // a draft with the slash-command menu above the composer
  "grok-05-after-quit": "exited",
  "grok-06-start-with-mcp": "ready",
  "grok-07-busy": "busy",
  "grok-08-after-slow": "ready",
  "grok-09-toolcall": "ready",
  "grok-10-permission": "blocked:approval_required",
  "grok-11-perm-2": "ready", // after the permission was answered
  "grok-12-after-tool": "ready",
  "grok-13-mcp": "blocked:approval_required", // MCP tool permission
  "grok-14-after-mcp": "ready",
  "grok-15-err400": "ready",
  "grok-16-cancelled": "busy", // captured while the SLOW turn still ran
  "grok-17-ctrlc-cancel": "ready",
  "grok-18-after-cancel": "ready",
  "grok-19-cleared": "ready",
  "grok-20-project-hooks-launch": "blocked:trust_required",
  "grok-21-after-trust": "ready",
  "real-01-launch": "ready",
  "real-02-busy-early": "ready",
  "real-04-busy": "busy",
  "real-05-after-slow": "ready",
  "real-06-err": "ready",
  "real-07-quit": "exited",
  "real-08-queued": "busy", // a steer waiting in the queue (`#1 …`, footer `Enter:send now`)
  "real-09-queued-two": "busy",
  "real-10-rate-limit-card": "blocked:rate_limited", // after an HTTP 402 from the fake server
  "real-11-sandbox-refused": "starting", // the CLI printed its refusal and exited (the gate reads the cause)
  // agent_configure captures (real 1.0.41, two custom models `mock` "Mock" and `mock2` "Mock Two").
  "configure-01-bare-model-list": "ready", // `/model` + Enter: the model list over the composer
  "configure-02-model-toast": "ready",
  "configure-03-model-effort-typed-popup": "ready",
  "configure-04-switched-with-effort": "ready",
  "configure-05-effort-switched": "ready",
  "configure-06-effort-unknown-level": "ready",
  "configure-07-effort-not-supported": "ready",
  "configure-08-unknown-model": "ready",
  "configure-09-model-typed-popup": "ready",
  "configure-10-popup-escaped": "ready",
  "configure-11-model-toast-history": "ready",
  "configure-12-switched-history": "ready",
  "configure-13-model-effort-rejected": "ready",
  "configure-14-esc-armed": "ready", // footer `Esc:press again to clear` replaces the key hints: still the composer
  "configure-15-idle-before": "ready",
  "configure-16-switched-after-refusal": "ready",
};

Deno.test("classifyGrokScreen() classifies every reference and real screen", () => {
  const names = [...Deno.readDirSync(new URL("screens/", dir))].map((e) => e.name.replace(/\.txt$/, "")).sort();
  assertEquals(names, Object.keys(EXPECTED).sort());
  for (const name of names) assertEquals(short(classifyGrokScreen(screen(name))), EXPECTED[name], name);
  assertEquals(classifyGrokScreen(screen("grok-05-after-quit")), {
    kind: "exited",
    detail: "grok --resume 01a23701-2a3a-76a0-9654-f54a7b824d20",
  });
  assertEquals(classifyGrokScreen(screen("real-07-quit")), {
    kind: "exited",
    detail: "grok --resume 9fe30d32-7091-4dad-9989-d16a2767de11",
  });
  assertEquals(classifyGrokScreen(screen("grok-13-mcp")), {
    kind: "blocked",
    reason: "approval_required",
    detail: "Allow (Probe) Echo?",
  });
});

const IDLE_TAIL =
  "\n  ╭────────────────╮\n  │ ❯              │\n  ╰──── Mock ──────╯\n  Shift+Tab:mode  │  Ctrl+x:shortcuts";

Deno.test("classifyGrokScreen() lets only the bottom decide", () => {
  // The trust dialog in scrollback, an idle composer below: ready.
  assertEquals(classifyGrokScreen(screen("grok-20-project-hooks-launch") + IDLE_TAIL).kind, "ready");
  // An old shell prompt in scrollback above the launch is never "ready" or "exited" once the TUI drew.
  assertEquals(classifyGrokScreen("user@h:~/p$ ls\nfoo\nuser@h:~/p$ grok --trust -s x" + IDLE_TAIL).kind, "ready");
  // Only the shell line that launched grok: nothing drawn yet.
  assertEquals(classifyGrokScreen("old text\nuser@h:~/p$ /opt/grok --trust -s x").kind, "starting");
  assertEquals(classifyGrokScreen("user@h:~/p$ ").kind, "exited");
  // An earlier run's exit text above this launch's command line: this launch has drawn nothing yet.
  assertEquals(
    classifyGrokScreen("Resume this session with:\n  grok --resume abc\nuser@h:~/p$ grok --trust").kind,
    "starting",
  );
  // A busy screen above, an idle composer at the bottom.
  assertEquals(classifyGrokScreen(screen("grok-07-busy") + "\n" + IDLE_TAIL).kind, "ready");
  // The trust dialog is never input-ready.
  assertEquals(short(classifyGrokScreen(screen("grok-20-project-hooks-launch"))), "blocked:trust_required");
});

Deno.test("classifyGrokScreen() decides busy only from the in-progress display", () => {
  const hooksLine = "     Worked for 0.3s\n  [hooks: stop ✓]\n" + IDLE_TAIL;
  assertEquals(classifyGrokScreen(hooksLine).kind, "ready");
  const spinner = "     ❯ SLOW\n    ⠧ Waiting for response… 2.9s          3.0s ⇣2.26k [stop]\n" + IDLE_TAIL;
  assertEquals(classifyGrokScreen(spinner).kind, "busy");
});

Deno.test("answerGrokStartupDialog() answers trust with y only when asked to", () => {
  assertEquals(answerGrokStartupDialog(screen("grok-20-project-hooks-launch"), true), [{ text: "y" }]);
  assertEquals(answerGrokStartupDialog(screen("grok-20-project-hooks-launch"), false), null);
  assertEquals(answerGrokStartupDialog(screen("grok-10-permission"), true), null);
  assertEquals(answerGrokStartupDialog(screen("grok-06-start-with-mcp"), true), null);
});

Deno.test("grokComposerText() reads drafts and ignores ghost suggestions", () => {
  assertEquals(grokComposerText(screen("grok-04-slash-quit-typed")), "/quit");
  assertEquals(grokComposerText(screen("grok-17-ctrlc-cancel")), "SLOW cancel via ctrl-c");
  assertEquals(grokComposerText(screen("grok-02-reply")), ""); // "Mock title" is a suggestion
  assertEquals(grokComposerText(screen("real-05-after-slow")), "");
  assertEquals(grokComposerText(screen("grok-06-start-with-mcp")), "");
  assert(grokComposerHolds(screen("grok-17-ctrlc-cancel"), "SLOW cancel via ctrl-c"));
  assert(!grokComposerHolds(screen("grok-02-reply"), "Mock title"));
  assertEquals(grokComposerText(screen("grok-10-permission")), null);
});

const opts: LaunchOptions = {
  bin: "/b/grok",
  cwd: "/w",
  model: null,
  reasoningEffort: null,
  writeScope: null,
  fast: null,
  images: [],
  sessionUuid: "11111111-2222-4333-8444-555555555555",
  notice: null,
};

Deno.test("buildGrokLaunch() passes --trust, pins -s, and maps model, effort, notice and read-only", () => {
  assertEquals(buildGrokLaunch(opts), {
    argv: ["/b/grok", "--trust", "-s", opts.sessionUuid],
    env: {},
    writeScopeEnforcement: null,
    pinnedSessionId: opts.sessionUuid,
    noticeChannel: null,
    fastBy: null,
  });
  // The sub-agent notice is appended to the system prompt with --rules; fast mode does not exist.
  const told = buildGrokLaunch({ ...opts, notice: "[aiterm] You are a sub-agent", fast: true });
  assertEquals(told.argv.slice(4), ["--rules", "[aiterm] You are a sub-agent"]);
  assertEquals([told.noticeChannel, told.fastBy], ["rules", null]);
  const full = buildGrokLaunch({ ...opts, model: "mock", reasoningEffort: "high", writeScope: "read-only" });
  assertEquals(full.argv, [
    "/b/grok",
    "--trust",
    "-s",
    opts.sessionUuid,
    "-m",
    "mock",
    "--reasoning-effort",
    "high",
    "--sandbox",
    "read-only",
  ]);
  assertEquals(full.writeScopeEnforcement, "enforced_read_only");
  assertEquals(
    buildGrokLaunch({ ...opts, writeScope: "only src/" }).writeScopeEnforcement,
    "declaration_only_unsupported",
  );
  assertEquals(grok.id, "grok-cli");
});

Deno.test("grokCwdKey() percent-encodes like the CLI (real 1.0.41 folder name)", () => {
  assertEquals(grokCwdKey("/home/user/work/proj-c"), "%2Fhome%2Fuser%2Fwork%2Fproj-c");
  assertEquals(
    grokCwdKey("/tmp/gprobe/run-38fc1074b6c4698f/proj a+b~c(d)é"),
    "%2Ftmp%2Fgprobe%2Frun-38fc1074b6c4698f%2Fproj%20a%2Bb~c%28d%29%C3%A9",
  );
});

Deno.test("locateGrokTranscript() finds updates.jsonl of the pinned session under the realpath cwd", async () => {
  const base = await Deno.makeTempDir({ prefix: "grok-loc-" });
  try {
    const cwd = join(base, "proj (x)");
    await Deno.mkdir(cwd);
    await Deno.symlink(cwd, join(base, "link"));
    const sid = "22222222-3333-4444-8555-666666666666";
    const env = { HOME: join(base, "home") };
    const ctx = { cwd: join(base, "link"), env, since: 0, pinnedSessionId: sid };
    assertEquals(await locateGrokTranscript(ctx), []);
    const sdir = join(base, "home", ".grok", "sessions", grokCwdKey(await Deno.realPath(cwd)), sid);
    await Deno.mkdir(sdir, { recursive: true });
    await Deno.writeTextFile(join(sdir, "updates.jsonl"), "");
    assertEquals(await locateGrokTranscript(ctx), [join(sdir, "updates.jsonl")]);
    assertEquals(await locateGrokTranscript({ ...ctx, pinnedSessionId: null }), []);
    const gh = join(base, "gh");
    const sdir2 = join(gh, "sessions", grokCwdKey(await Deno.realPath(cwd)), sid);
    await Deno.mkdir(sdir2, { recursive: true });
    await Deno.writeTextFile(join(sdir2, "updates.jsonl"), "");
    assertEquals(await locateGrokTranscript({ ...ctx, env: { ...env, GROK_HOME: gh } }), [
      join(await Deno.realPath(gh), "sessions", grokCwdKey(await Deno.realPath(cwd)), sid, "updates.jsonl"),
    ]);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("parseGrokTurns() reads the lab sample: answers, tool turns, the 400 error, the cancelled turn", () => {
  const turns = parseGrokTurns(sample("grok-updates.jsonl"));
  assertEquals(turns.map((t) => [t.turnId, t.prompt, t.status]), [
    ["0", "SLOW answer", "done"],
    ["1", "TOOLCALL now", "done"],
    ["2", "TOOLCALL again", "done"],
    ["3", "MCPCALL now", "done"],
    ["4", "ERR400 now", "error"],
    ["5", "SLOW then cancel", "done"],
    ["6", "SLOW cancel via ctrl-c", "running"],
  ]);
  assertEquals(turns[0]!.answer, "MOCK_REPLY line one.\nSecond line for: <user_query> SLOW answer </user_query>");
  assertEquals(turns[2]!.answer, "MOCK_AFTER_TOOL done.");
  assertEquals(turns[4]!.error, "API error (status 400 Bad Request): invalid_request_error: Mock 400 error");
  assertEquals(turns[4]!.answer, null);
});

Deno.test("parseGrokTurns() reads the real capture and survives a torn last line", () => {
  const text = sample("real-updates.jsonl");
  const turns = parseGrokTurns(text);
  assertEquals(turns.map((t) => [t.index, t.status]), [[0, "done"], [1, "done"], [2, "error"]]);
  assertEquals(turns[0]!.answer, "MOCK_REPLY <user_query>");
  const lines = text.trimEnd().split("\n");
  const torn = lines.slice(0, -1).join("\n") + "\n" + lines[lines.length - 1]!.slice(0, 40);
  assertEquals(parseGrokTurns(torn).map((t) => t.status), ["done", "done", "running"]);
});

Deno.test("parseGrokTurns() ends the right turn when the next turn's records come first", () => {
  const sid = "s";
  const u = (seq: number, update: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
    JSON.stringify({
      method: "session/update",
      params: { sessionId: sid, update, _meta: { eventId: `${sid}-${seq}`, ...meta } },
    });
  const text = [
    u(1, { sessionUpdate: "user_message_chunk", content: { type: "text", text: "one" }, _meta: { promptIndex: 0 } }),
    u(2, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ans " } }, { promptId: "p0" }),
    u(3, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "one" } }, { promptId: "p0" }),
    u(4, { sessionUpdate: "user_message_chunk", content: { type: "text", text: "two" }, _meta: { promptIndex: 1 } }),
    u(5, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ans two" } }, { promptId: "p1" }),
    u(6, { sessionUpdate: "turn_completed", prompt_id: "p0", stop_reason: "end_turn" }),
  ].join("\n");
  const turns = parseGrokTurns(text);
  assertEquals(turns.map((t) => [t.turnId, t.status, t.answer]), [["0", "done", "ans one"], ["1", "running", null]]);
});

Deno.test("parseGrokModelCatalog() reads `grok models` (real 1.0.41 output with a custom model)", () => {
  const out = "Model 'mock' is using its own API key.\n\nDefault model: mock\n\nAvailable models:\n" +
    "  - grok-4.6\n  - grok-4.5\n  * mock (default)\n";
  const cat = parseGrokModelCatalog(out);
  assertEquals(cat.defaultModel, "mock");
  assertEquals(cat.models.map((m) => m.id), ["grok-4.6", "grok-4.5", "mock"]);
});

Deno.test("grokQueue() reads the queued rows and the send-now footer (real 1.0.41)", () => {
  assertEquals(grokQueue(screen("real-08-queued")), { rows: ["steer text here"], sendNow: true });
  const two = grokQueue(screen("real-09-queued-two"));
  assertEquals(two.rows.length, 2);
  assertEquals(two.rows[0], "a multi line steer (+2 lines)");
  assert(two.rows[1]!.endsWith("word…"), two.rows[1]);
  assertEquals(grokQueue(screen("real-04-busy")), { rows: [], sendNow: false });
  assertEquals(grokQueue(screen("real-05-after-slow")), { rows: [], sendNow: false });
  // A `#1 …` line of the conversation far above the in-progress line is not a queue row.
  const convo = "     ❯ list\n    #1 first item of an answer\n     more answer\n     Worked for 1s\n" +
    "    ⠧ Waiting for response… 2.9s\n" + IDLE_TAIL;
  assertEquals(grokQueue(convo).rows, []);
});

Deno.test("grokQueueRowShows() matches the first line, a cut-off row and the (+N lines) suffix", () => {
  assert(grokQueueRowShows("steer text here", "steer text here"));
  assert(grokQueueRowShows("a multi line steer (+2 lines)", "a multi line steer\nsecond\nthird"));
  assert(grokQueueRowShows("another queued item: word word…", "another queued item: word word word END"));
  assert(!grokQueueRowShows("steer text here", "steer text"));
  assert(!grokQueueRowShows("other text…", "steer text here"));
  assert(!grokQueueRowShows("…", "anything"));
});

Deno.test("grokSteerPlace() says queued only for the first row with Enter:send now", () => {
  assertEquals(grokSteerPlace(screen("real-08-queued"), "steer text here"), "queued");
  const long = "another queued item that is fairly long: " + "word ".repeat(60) + "END";
  assertEquals(
    grokSteerPlace(screen("real-09-queued-two"), "a multi line steer\nsecond line of it\nthird line"),
    "queued",
  );
  assertEquals(grokSteerPlace(screen("real-09-queued-two"), long), "queued_behind");
  assertEquals(grokSteerPlace(screen("real-08-queued"), "something else"), "unseen");
  assertEquals(grokSteerPlace(screen("real-04-busy"), "steer text here"), "unseen");
  assertEquals(grokSteerPlace(screen("grok-17-ctrlc-cancel"), "SLOW cancel via ctrl-c"), "composer");
  // Without the send-now footer (text typed in the composer) Enter would not send the row now.
  const typed = screen("real-08-queued").replace("Enter:send now", "Enter:queue");
  assertEquals(grokSteerPlace(typed, "steer text here"), "queued_behind");
});

Deno.test("grokComposerHolds() counts a collapsed paste placeholder as residue", () => {
  const big = "  ╭────────────────╮\n  │ ❯ [Pasted: 80 lines] │\n  ╰──── Mock ──────╯\n" +
    "  Enter:queue  │  Alt+Enter:newline  │  Shift+Tab:mode  │  Ctrl+c:cancel  │  Ctrl+x:shortcuts";
  assert(grokComposerHolds(big, "line 1\nline 2"));
  assertEquals(grokSteerPlace(big, "line 1\nline 2"), "composer");
});

Deno.test("grokRateLimitDialog() owns the heading + footer pair of the current card only", () => {
  const card = screen("real-10-rate-limit-card");
  assertEquals(grokRateLimitDialog(card), "You hit your weekly limit.");
  assertEquals(classifyGrokScreen(card), {
    kind: "blocked",
    reason: "rate_limited",
    detail: "You hit your weekly limit.",
  });
  assertEquals(dismissGrokRateLimitDialog(card), [{ key: "X" }]);
  // A card with later UI under it (scrollback) is not the current one.
  assertEquals(grokRateLimitDialog(card + "\n" + IDLE_TAIL), null);
  assertEquals(classifyGrokScreen(card + "\n" + IDLE_TAIL).kind, "ready");
  assertEquals(dismissGrokRateLimitDialog(card + "\n" + IDLE_TAIL), null);
  // The same footer under another question is not the usage-limit card.
  assertEquals(grokRateLimitDialog(card.replace("You hit your weekly limit.", "Which file should I edit?")), null);
  // The heading without the card footer (e.g. quoted in an answer) is not the card.
  assertEquals(grokRateLimitDialog("  ┃  You hit your weekly limit.\n" + IDLE_TAIL), null);
  assertEquals(grokRateLimitDialog(screen("real-06-err")), null);
});

Deno.test("grokSandboxRefusal() returns the CLI's cause from its refusal lines (real 1.0.41)", () => {
  assertEquals(
    grokSandboxRefusal(screen("real-11-sandbox-refused")),
    "sandbox profile resolve failed: symlinked GROK_HOME is not allowed under sandbox write-deny: /tmp/gx/ghlink / " +
      "this sandbox could not enforce its deny list on Linux: the required bwrap plan could not be prepared; see the " +
      "error above for the specific cause. Refusing to start with denied paths unprotected.",
  );
  const noBwrap = "Error: this sandbox could not enforce its deny list on Linux: bwrap exec failed: No such file or " +
    "directory (os error 2). Install bubblewrap with `apt install -y bubblewrap`. Refusing to start with denied paths " +
    "unprotected.";
  assertEquals(grokSandboxRefusal(noBwrap.replace(/^Error/, "error")), noBwrap.slice("Error: ".length));
  // An error line that is not a sandbox refusal, or a warning that goes on, is not one.
  assertEquals(grokSandboxRefusal("error: failed to read config.toml"), null);
  assertEquals(grokSandboxRefusal("error: Sandbox could not be applied, continuing without sandbox"), null);
  assertEquals(grokSandboxRefusal(screen("real-01-launch")), null);
  assertEquals(grok.sandboxRefusal?.code, "GROK_SANDBOX_STARTUP_FAILED");
});

Deno.test("parseGrokTurns() keeps a send-now seam inside one turn (real 1.0.41 capture)", () => {
  const text = sample("real-send-now-updates.jsonl");
  const turns = parseGrokTurns(text);
  assertEquals(turns.map((t) => [t.index, t.turnId, t.prompt, t.status, t.steers]), [
    [0, "0", "SLOW first task", "done", 1],
  ]);
  assertEquals(turns[0]!.answer, "MOCK_REPLY The user sent a message while you were w");
  // Cut after the cancelled record, and after the queued prompt began: still one running turn, not an end.
  const lines = text.trimEnd().split("\n");
  for (const n of [2, 3, 4]) {
    assertEquals(parseGrokTurns(lines.slice(0, n).join("\n")).map((t) => [t.status, t.steers]), [["running", 1]]);
  }
});

Deno.test("parseGrokTurns() merges chained seams, in any record order, and leaves other cancels alone", () => {
  const u = (seq: number, update: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
    JSON.stringify({
      method: "session/update",
      params: { sessionId: "s", update, _meta: { eventId: `s-${seq}`, ...meta } },
    });
  const user = (seq: number, i: number, text: string) =>
    u(seq, { sessionUpdate: "user_message_chunk", content: { type: "text", text }, _meta: { promptIndex: i } });
  const say = (seq: number, p: string, text: string) =>
    u(seq, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } }, { promptId: p });
  const end = (seq: number, p: string, stop: string, meta: Record<string, unknown> = {}) =>
    u(seq, { sessionUpdate: "turn_completed", prompt_id: p, stop_reason: stop }, meta);
  const sendNow = { cancelTrigger: "send_now", cancellationCategory: "MidTurnAbort" };
  const chained = [
    user(1, 0, "task"),
    say(2, "p0", "partial"),
    end(3, "p0", "cancelled", sendNow),
    user(4, 1, "steer one"),
    end(5, "p1", "cancelled", sendNow),
    user(6, 2, "steer two"),
    say(7, "p2", "final"),
    end(8, "p2", "end_turn"),
    user(9, 3, "next task"),
    end(10, "p3", "error"),
  ];
  const turns = parseGrokTurns(chained.join("\n"));
  assertEquals(turns.map((t) => [t.index, t.turnId, t.prompt, t.status, t.answer, t.steers]), [
    [0, "0", "task", "done", "final", 2],
    [1, "3", "next task", "error", null, 0],
  ]);
  // Written out of order (the queued prompt before the cancel record): same result.
  const shuffled = [chained[0], chained[1], chained[3], chained[2], ...chained.slice(4)].join("\n");
  assertEquals(parseGrokTurns(shuffled).map((t) => [t.status, t.steers]), [["done", 2], ["error", 0]]);
  // A cancel without the send_now trigger is an interrupt, and the next prompt is a turn of its own.
  const plain = [user(1, 0, "task"), end(2, "p0", "cancelled"), user(3, 1, "again"), end(4, "p1", "end_turn")];
  assertEquals(parseGrokTurns(plain.join("\n")).map((t) => [t.turnId, t.status]), [["0", "interrupted"], [
    "1",
    "done",
  ]]);
});

Deno.test("parseGrokTurns() reads the real 402 turn as an error with the CLI's text", () => {
  const turns = parseGrokTurns(sample("real-402-updates.jsonl"));
  assertEquals(turns.map((t) => [t.turnId, t.status, t.error]), [
    ["5", "error", "API error (status 402 Payment Required): insufficient_quota: Mock payment required"],
  ]);
});

// ── agent_configure: `/model <id> [effort]` and `/effort <level>` (real 1.0.41 captures) ──

const cgoal = (g: Partial<ConfigureGoal>): ConfigureGoal => ({
  model: null,
  modelLabel: null,
  effort: null,
  currentEffort: null,
  ...g,
});

Deno.test("grok configure: every configure capture is an idle or ready screen the classifier reads", () => {
  for (const name of ["configure-02-model-toast", "configure-04-switched-with-effort", "configure-08-unknown-model"]) {
    assertEquals(short(classifyGrokScreen(screen(name))), "ready", name);
  }
  assertEquals(grok.configure?.model, true);
  assertEquals(grok.configure?.effort, "supported");
});

Deno.test("grok configure: a model with an effort is one `/model <id> <effort>`, an effort alone is `/effort`", () => {
  const [both, ...rest] = grok.configure!.stages(cgoal({ model: "mock2", effort: "low" }));
  assertEquals(rest.length, 0);
  assertEquals(both!.name, "model_command");
  assertEquals(both!.keys(screen("grok-01-first-launch")), [{ text: "/model mock2 low" }, { pauseMs: 400 }]);
  const [eff] = grok.configure!.stages(cgoal({ effort: "high" }));
  assertEquals(eff!.name, "effort_command");
  assertEquals(eff!.keys(screen("configure-15-idle-before")), [{ text: "/effort high" }, { pauseMs: 400 }]);
  // A composer with typed text, a busy screen or a dialog offers nothing to this stage.
  assertEquals(eff!.keys(screen("configure-09-model-typed-popup")), null);
  assertEquals(eff!.keys(screen("grok-07-busy")), null);
  assertEquals(eff!.keys(screen("grok-10-permission")), null);
});

Deno.test("grok configure: the completion list is closed with Escape before Enter submits the typed command", () => {
  const [stage] = grok.configure!.stages(cgoal({ model: "mock" }));
  const typed = screen("configure-09-model-typed-popup"); // `/model mock` with the Mock / Mock Two list open
  assertEquals(stage!.check(typed, screen("configure-15-idle-before")), { kind: "again" });
  assertEquals(stage!.keys(typed), [{ key: "Escape" }, { pauseMs: 300 }]);
  assertEquals(stage!.keys(screen("configure-10-popup-escaped")), [{ key: "Enter" }, { pauseMs: 400 }]);
  // Another command in the composer is not this stage's.
  const [other] = grok.configure!.stages(cgoal({ model: "mock2" }));
  assertEquals(other!.keys(typed), null);
});

Deno.test("grok configure: the `Default model` toast confirms a bare /model, with the label's effort", () => {
  const [stage] = grok.configure!.stages(cgoal({ model: "mock2" }));
  assertEquals(stage!.check(screen("configure-02-model-toast"), screen("grok-01-first-launch")), {
    kind: "done",
    model: "mock2",
    effort: null,
    persistedDefault: true,
    message: "Default model: Mock Two",
  });
  const [back] = grok.configure!.stages(cgoal({ model: "mock" }));
  const v = back!.check(screen("configure-11-model-toast-history"), screen("configure-10-popup-escaped"));
  assertEquals(v.kind === "done" ? [v.model, v.effort, v.message] : v, ["mock", null, "Default model: Mock"]);
  // The same toast already on screen before the command, with the same label, is not this command's answer.
  const toast = screen("configure-11-model-toast-history");
  assertEquals(back!.check(toast, toast), { kind: "wait" });
});

Deno.test("grok configure: `Switched to <name> (<effort> effort)` confirms a model with effort and /effort", () => {
  const [both] = grok.configure!.stages(cgoal({ model: "mock2", effort: "low" }));
  assertEquals(both!.check(screen("configure-04-switched-with-effort"), screen("grok-01-first-launch")), {
    kind: "done",
    model: "mock2",
    effort: "low",
    persistedDefault: true,
    message: "Switched to Mock Two (low effort)",
  });
  const [eff] = grok.configure!.stages(cgoal({ effort: "high" }));
  const done = eff!.check(screen("configure-05-effort-switched"), screen("configure-04-switched-with-effort"));
  assertEquals(done, {
    kind: "done",
    effort: "high",
    persistedDefault: true,
    message: "Switched to Mock Two (high effort)",
  });
  // An older notice that is still the newest line (nothing changed since `before`) is not an answer.
  const old = screen("configure-04-switched-with-effort");
  assertEquals(both!.check(old, old), { kind: "wait" });
  // A different effort than asked is a refusal.
  const [wrong] = grok.configure!.stages(cgoal({ model: "mock2", effort: "high" }));
  assertEquals(wrong!.check(old, screen("grok-01-first-launch")).kind, "failed");
});

Deno.test("grok configure: the CLI's refusals fail the stage with its own words", () => {
  const cases: [string, string, Partial<ConfigureGoal>, string][] = [
    [
      "configure-13-model-effort-rejected",
      "configure-15-idle-before",
      { model: "mock2", effort: "max" },
      "unknown effort level 'max'; use one of: low, high",
    ],
    [
      "configure-06-effort-unknown-level",
      "configure-05-effort-switched",
      { effort: "xhigh" },
      "unknown effort level 'xhigh'; use one of: low, high",
    ],
    [
      "configure-07-effort-not-supported",
      "grok-02-reply",
      { effort: "high" },
      "current model does not support reasoning effort",
    ],
    ["configure-08-unknown-model", "configure-15-idle-before", { model: "nosuch" }, "Unknown model: nosuch"],
  ];
  for (const [after, before, g, message] of cases) {
    const [stage] = grok.configure!.stages(cgoal(g));
    assertEquals(stage!.check(screen(after), screen(before)), { kind: "failed", message }, after);
  }
  // A confirmation drawn after an earlier refusal is read as the newest line.
  const [ok] = grok.configure!.stages(cgoal({ model: "mock2", effort: "low" }));
  assertEquals(
    ok!.check(screen("configure-16-switched-after-refusal"), screen("configure-08-unknown-model")).kind,
    "done",
  );
});

Deno.test("grok configure: leave presses Escape for an open list or a left command, nothing on a clean composer", () => {
  const leave = grok.configure!.leave;
  assertEquals(leave(screen("configure-09-model-typed-popup")), [{ key: "Escape" }]);
  assertEquals(leave(screen("configure-10-popup-escaped")), [{ key: "Escape" }]);
  assertEquals(leave(screen("configure-14-esc-armed")), [{ key: "Escape" }]);
  assertEquals(leave(screen("configure-13-model-effort-rejected")), null);
  assertEquals(leave(screen("configure-15-idle-before")), null);
  assertEquals(leave(screen("grok-07-busy")), null);
  // The composer text is read, ghost suggestions are not typed text.
  assertEquals(grok.composerText?.(screen("configure-15-idle-before")), "");
  assertEquals(grok.composerText?.(screen("configure-10-popup-escaped")), "/model mock");
});
