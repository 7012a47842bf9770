/** Grok Build's `/model` and `/effort` flow (agent_configure), on real 1.0.41 captures. */
import { assertEquals } from "../../tests/helpers/assert.ts";
import type { ConfigureGoal } from "../common/mod.ts";
import { configureGoal, screenIn, shortState, TESTDATA } from "../common/test_kit.ts";
import { grok } from "./adapter.ts";
import { classifyGrokScreen } from "./screen.ts";

const dir = new URL("grok/", TESTDATA);
const screen = (name: string) => screenIn(dir, name);

Deno.test("grok configure: every configure capture is an idle or ready screen the classifier reads", () => {
  for (const name of ["configure-02-model-toast", "configure-04-switched-with-effort", "configure-08-unknown-model"]) {
    assertEquals(shortState(classifyGrokScreen(screen(name))), "ready", name);
  }
  assertEquals(grok.configure?.model, true);
  assertEquals(grok.configure?.effort, "supported");
});

Deno.test("grok configure: a model with an effort is one `/model <id> <effort>`, an effort alone is `/effort`", () => {
  const [both, ...rest] = grok.configure!.stages(configureGoal({ model: "mock2", effort: "low" }));
  assertEquals(rest.length, 0);
  assertEquals(both!.name, "model_command");
  assertEquals(both!.keys(screen("grok-01-first-launch")), [{ text: "/model mock2 low" }]);
  const [eff] = grok.configure!.stages(configureGoal({ effort: "high" }));
  assertEquals(eff!.name, "effort_command");
  assertEquals(eff!.keys(screen("configure-15-idle-before")), [{ text: "/effort high" }]);
  // A composer with typed text, a busy screen or a dialog offers nothing to this stage.
  assertEquals(eff!.keys(screen("configure-09-model-typed-popup")), null);
  assertEquals(eff!.keys(screen("grok-07-busy")), null);
  assertEquals(eff!.keys(screen("grok-10-permission")), null);
});

Deno.test("grok configure: the completion list is closed with Escape before Enter submits the typed command", () => {
  const [stage] = grok.configure!.stages(configureGoal({ model: "mock" }));
  const typed = screen("configure-09-model-typed-popup"); // `/model mock` with the Mock / Mock Two list open
  assertEquals(stage!.check(typed, screen("configure-15-idle-before")), { kind: "again" });
  assertEquals(stage!.keys(typed), [{ key: "Escape" }]);
  assertEquals(stage!.keys(screen("configure-10-popup-escaped")), [{ key: "Enter" }]);
  // Another command in the composer is not this stage's.
  const [other] = grok.configure!.stages(configureGoal({ model: "mock2" }));
  assertEquals(other!.keys(typed), null);
});

Deno.test("grok configure: the `Default model` toast confirms a bare /model, with the label's effort", () => {
  const [stage] = grok.configure!.stages(configureGoal({ model: "mock2" }));
  assertEquals(stage!.check(screen("configure-02-model-toast"), screen("grok-01-first-launch")), {
    kind: "done",
    model: "mock2",
    effort: null,
    persistedDefault: true,
    message: "Default model: Mock Two",
  });
  const [back] = grok.configure!.stages(configureGoal({ model: "mock" }));
  const v = back!.check(screen("configure-11-model-toast-history"), screen("configure-10-popup-escaped"));
  assertEquals(v.kind === "done" ? [v.model, v.effort, v.message] : v, ["mock", null, "Default model: Mock"]);
  // The same toast already on screen before the command, with the same label, is not this command's answer.
  const toast = screen("configure-11-model-toast-history");
  assertEquals(back!.check(toast, toast), { kind: "wait" });
});

Deno.test("grok configure: `Switched to <name> (<effort> effort)` confirms a model with effort and /effort", () => {
  const [both] = grok.configure!.stages(configureGoal({ model: "mock2", effort: "low" }));
  assertEquals(both!.check(screen("configure-04-switched-with-effort"), screen("grok-01-first-launch")), {
    kind: "done",
    model: "mock2",
    effort: "low",
    persistedDefault: true,
    message: "Switched to Mock Two (low effort)",
  });
  const [eff] = grok.configure!.stages(configureGoal({ effort: "high" }));
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
  const [wrong] = grok.configure!.stages(configureGoal({ model: "mock2", effort: "high" }));
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
    const [stage] = grok.configure!.stages(configureGoal(g));
    assertEquals(stage!.check(screen(after), screen(before)), { kind: "failed", message }, after);
  }
  // A confirmation drawn after an earlier refusal is read as the newest line.
  const [ok] = grok.configure!.stages(configureGoal({ model: "mock2", effort: "low" }));
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
