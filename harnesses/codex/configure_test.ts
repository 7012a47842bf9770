/** The Codex CLI's `/model` picker flow (agent_configure). */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { SHOWN_MS } from "../common/mod.ts";
import { configureGoal, screenIn, TESTDATA } from "../common/test_kit.ts";
import { codex } from "./adapter.ts";

const dir = TESTDATA;
const screen = (name: string) => screenIn(dir, name);

Deno.test("codex configure stages walk the real /model views: move, select once on the row, effort with s", () => {
  const [open, model, effort] = codex.configure!.stages(
    configureGoal({ model: "gpt-6-luna", modelLabel: "GPT-6-Luna", effort: "max" }),
  );
  const idle = screen("real-0.169.0-09-after-approval");
  assertEquals(open!.keys(idle), [{ text: "/model" }, { shownMs: SHOWN_MS }, { key: "Enter" }]);
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
  const [, , other] = codex.configure!.stages(
    configureGoal({ model: "gpt-5.5", modelLabel: "GPT-5.5", effort: "low" }),
  );
  assertEquals(other!.check(screen("real-0.169.0-14-model-changed-session"), idle).kind, "failed");
});

Deno.test("codex configure stages scroll to rows out of view and pick the (current) model for an effort alone", () => {
  const [, model] = codex.configure!.stages(configureGoal({ model: "gpt-5.5", modelLabel: "GPT-5.5" }));
  // GPT-5.5 is below the eight rows shown ("↓"): move past the last one so the list scrolls.
  assertEquals(model!.keys(screen("real-0.169.0-10-model-picker")), [
    ...Array.from({ length: 8 }, () => ({ key: "Down" })),
  ]);
  assertEquals(model!.keys(screen("real-0.169.0-15-model-picker-scrolled-current")), [{ key: "Enter" }]);
  const [, current] = codex.configure!.stages(configureGoal({ effort: "high" }));
  assertEquals(current!.keys(screen("real-0.169.0-15-model-picker-scrolled-current")), [
    ...Array.from({ length: 5 }, () => ({ key: "Up" })),
    { pauseMs: 250 },
  ]);
  // No "(current)" row and nothing more to scroll: not offered.
  assertEquals(current!.keys(screen("real-0.169.0-11-model-picker-moved").replace("\n↓", "")), null);
  // Without an effort asked for, the one in use stays when the model lists it; otherwise the view's own.
  const [, , keep] = codex.configure!.stages(
    configureGoal({ model: "gpt-6-luna", modelLabel: "GPT-6-Luna", currentEffort: "low" }),
  );
  assertEquals(keep!.keys(screen("real-0.169.0-12-reasoning-picker")), [{ key: "Up" }, { pauseMs: 250 }]);
  const [, , fresh] = codex.configure!.stages(
    configureGoal({ model: "gpt-6-luna", modelLabel: "GPT-6-Luna", currentEffort: "minimal" }),
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
