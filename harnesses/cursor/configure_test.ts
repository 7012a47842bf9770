/** The Cursor CLI's `/model` flow (agent_configure). */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { configureGoal, TESTDATA } from "../common/test_kit.ts";
import { cursor } from "./adapter.ts";
import { CSI_U_ENTER, cursorFooterModel } from "./screen.ts";

const dir = new URL("cursor/", TESTDATA);
const read = (name: string) => Deno.readTextFileSync(new URL(name, dir));

Deno.test("cursor configure opens /model with the exact id, selects that row only, and reads the footer", () => {
  assertEquals(cursor.configure!.effort, "requires_model");
  const [open, pick] = cursor.configure!.stages(configureGoal({ model: "claude-opus-4-8", effort: "high" }));
  const idle = read("idle.txt");
  assertEquals(cursorFooterModel(idle), "composer-2.5");
  assertEquals(open!.keys(idle), [{ text: "/model claude-opus-4-8[effort=high]" }, { pauseMs: 300 }, {
    text: CSI_U_ENTER,
  }]);
  assertEquals(open!.keys(read("busy.txt")), null);
  assertEquals(open!.check(read("model-picker.txt"), idle), { kind: "next" });
  // The first row is the base model: move to the effort variant; select once the marker is on it.
  assertEquals(pick!.keys(read("model-picker.txt")), [{ key: "Down" }, { key: "Down" }, { pauseMs: 250 }]);
  assertEquals(pick!.check(read("model-picker.txt"), idle), { kind: "again" });
  assertEquals(pick!.keys(read("model-picker-moved.txt")), [{ text: CSI_U_ENTER }]);
  assertEquals(pick!.check(read("model-changed.txt"), idle), {
    kind: "done",
    model: "claude-opus-4-8",
    effort: "high",
    persistedDefault: null,
    message: "the footer shows claude-opus-4-8[effort=high]",
  });
  // Another model in the footer is a refusal; a row that is not listed is not offered.
  const [, other] = cursor.configure!.stages(configureGoal({ model: "composer-2.5" }));
  assertEquals(other!.check(read("model-changed.txt"), idle).kind, "failed");
  const [, absent] = cursor.configure!.stages(configureGoal({ model: "claude-opus-4-8", effort: "max" }));
  assertEquals(absent!.keys(read("model-picker.txt")), null);
  assertEquals(cursor.configure!.leave(read("model-picker.txt")), [{ key: "Escape" }]);
  assertEquals(cursor.configure!.leave(idle), null);
  assertEquals(cursor.configure!.stages(configureGoal({ effort: "high" })), []);
});
