/** Grok Build's usage-limit card and sandbox refusal. */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { screenIn, TESTDATA } from "../common/test_kit.ts";
import { grok } from "./adapter.ts";
import { dismissGrokRateLimitDialog, grokRateLimitDialog, grokSandboxRefusal } from "./dialogs.ts";
import { classifyGrokScreen } from "./screen.ts";

const dir = new URL("grok/", TESTDATA);
const screen = (name: string) => screenIn(dir, name);
const IDLE_TAIL =
  "\n  ╭────────────────╮\n  │ ❯              │\n  ╰──── Mock ──────╯\n  Shift+Tab:mode  │  Ctrl+x:shortcuts";

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
