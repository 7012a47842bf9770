/** Grok Build screen rules: reference and real screens, the trust answer, composer text and residue. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { screenIn, shortState, TESTDATA } from "../common/test_kit.ts";
import { grokSteerPlace } from "./queue.ts";
import { answerGrokStartupDialog, classifyGrokScreen, grokComposerHolds, grokComposerText } from "./screen.ts";

const dir = new URL("grok/", TESTDATA);
const screen = (name: string) => screenIn(dir, name);

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
  for (const name of names) assertEquals(shortState(classifyGrokScreen(screen(name))), EXPECTED[name], name);
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
  assertEquals(shortState(classifyGrokScreen(screen("grok-20-project-hooks-launch"))), "blocked:trust_required");
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

Deno.test("grokComposerHolds() counts a collapsed paste placeholder as residue", () => {
  const big = "  ╭────────────────╮\n  │ ❯ [Pasted: 80 lines] │\n  ╰──── Mock ──────╯\n" +
    "  Enter:queue  │  Alt+Enter:newline  │  Shift+Tab:mode  │  Ctrl+c:cancel  │  Ctrl+x:shortcuts";
  assert(grokComposerHolds(big, "line 1\nline 2"));
  assertEquals(grokSteerPlace(big, "line 1\nline 2"), "composer");
});
