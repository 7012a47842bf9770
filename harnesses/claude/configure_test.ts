/** Claude Code's in-place `/model` and `/effort` (agent_configure). */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { SHOWN_MS } from "../common/mod.ts";
import { configureGoal, screenIn, TESTDATA } from "../common/test_kit.ts";
import { claude } from "./adapter.ts";
import { claudeComposerText } from "./screen.ts";

const dir = TESTDATA;
const screen = (name: string) => screenIn(dir, name);

Deno.test("claude configure stages type /model and /effort into the empty composer and read the CLI's answers", () => {
  const [model, effort] = claude.configure!.stages(configureGoal({ model: "sonnet", effort: "high" }));
  const idle = screen("real-2.1.328-12-after-permission");
  assertEquals(claudeComposerText(idle), "");
  assertEquals(model!.keys(idle), [{ text: "/model sonnet" }, { shownMs: SHOWN_MS }, { key: "Enter" }]);
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
  const [bogus] = claude.configure!.stages(configureGoal({ effort: "bogus" }));
  assertEquals(bogus!.check(screen("real-2.1.328-17-effort-unknown"), before), {
    kind: "failed",
    message: "Unknown option: bogus. Options: low, medium, high, xhigh, max, auto, ultracode [on|off]",
  });
  const [model] = claude.configure!.stages(configureGoal({ model: "sonnet" }));
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
