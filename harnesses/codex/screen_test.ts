/** Codex CLI screen rules: the reference and real screens, start-up answers, composer, fast status. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { screenIn, shortState, TESTDATA } from "../common/test_kit.ts";
import { codex } from "./adapter.ts";
import {
  answerCodexStartupDialog,
  classifyCodexScreen,
  codexComposerHolds,
  codexComposerText,
  codexFastShown,
} from "./screen.ts";

const dir = TESTDATA;
const screen = (name: string) => screenIn(dir, name);

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
  for (const name of names) assertEquals(shortState(classifyCodexScreen(screen(name))), EXPECTED[name], name);
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
  assertEquals(
    shortState(classifyCodexScreen("› do it\n\n◦ Something new\n  choose wisely")),
    "blocked:unknown_dialog",
  );
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
  for (const name of names) assertEquals(shortState(classifyCodexScreen(screen(name))), REAL[name], name);
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

Deno.test("codexComposerText() is empty for the placeholder and the text once typed", () => {
  assertEquals(codexComposerText(screen("real-0.169.0-02-idle")), "");
  assertEquals(codexComposerText(screen("real-0.169.0-07-command-approval")), null);
  assertEquals(codexComposerText(screen("codex-05-idle").replace("Ask Codex to do anything", "/model")), "/model");
});
