/** Claude Code screen rules: the reference and real screens, start-up answers, composer, fast mark. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { screenIn, shortState, TESTDATA } from "../common/test_kit.ts";
import { claude } from "./adapter.ts";
import {
  answerClaudeStartupDialog,
  classifyClaudeScreen,
  claudeComposerHolds,
  claudeComposerText,
  claudeFastShown,
} from "./screen.ts";

const dir = TESTDATA;
const screen = (name: string) => screenIn(dir, name);

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
  for (const name of names) assertEquals(shortState(classifyClaudeScreen(screen(name))), EXPECTED[name], name);
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
  assertEquals(shortState(classifyClaudeScreen(theme)), "blocked:theme_picker");
  assertEquals(
    shortState(classifyClaudeScreen(" ❯ 1. Dark mode ✔\n   2. Light mode\n   3. Dark mode (colorblind)")),
    "blocked:theme_picker",
  );
  const login = " Select login method:\n ❯ 1. Claude account with subscription\n   2. Anthropic Console account";
  assertEquals(shortState(classifyClaudeScreen(login)), "blocked:vendor_onboarding_required");
  const key = " Detected a custom API key in your environment\n Do you want to use this API key?\n ❯ 1. Yes\n   2. No";
  assertEquals(shortState(classifyClaudeScreen(key)), "blocked:api_key_approval");
  const other = " Pick something\n ❯ 1. A\n   2. B\n Enter to confirm · Esc to cancel";
  assertEquals(shortState(classifyClaudeScreen(other)), "blocked:unknown_dialog");
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
  for (const name of names) assertEquals(shortState(classifyClaudeScreen(screen(name))), REAL[name], name);
  assertEquals(classifyClaudeScreen(screen("real-2.1.328-09-offline")), {
    kind: "blocked",
    reason: "service_unreachable",
    detail: "Unable to connect to Anthropic services / Failed to connect to api.anthropic.com: ENOTFOUND",
  });
  // Exited (the shell or the lab marker under it) still says why.
  assertEquals(
    shortState(classifyClaudeScreen(`${screen("real-2.1.328-09-offline")}\nEXITED rc=1`)),
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
