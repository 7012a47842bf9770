/** The Cursor CLI adapter as registered: ids, effort rule, submit keys. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { getHarness } from "../mod.ts";
import { cursor } from "./adapter.ts";
import { CSI_U_ENTER } from "./screen.ts";

Deno.test("cursor: registered as cursor-cli; effort needs a model; submit ends with the CSI u Enter", () => {
  assertEquals(getHarness("cursor-cli"), cursor);
  assertEquals([cursor.efforts, cursor.effortRequiresModel, cursor.readOnlyMode], [null, true, true]);
  const texts = cursor.submitSteps.filter((s) => "text" in s);
  assertEquals(texts, [{ text: "\x1b[13u" }, { text: "\x1b[13u" }]);
  assertEquals(CSI_U_ENTER, "\x1b[13u");
  assert(!cursor.submitSteps.some((s) => "key" in s), "a tmux Enter key would send a plain CR");
});
