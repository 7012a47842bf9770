/** The text a parent receives. */
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { deliveryRecord } from "../harnesses/common/client/parent_test_kit.ts";
import { envelope } from "./delivery_record.ts";

Deno.test("the envelope names the child, the turn and the outcome, and keeps the body byte for byte", () => {
  const rec = deliveryRecord("claude", { child_outcome: "error", child_error: "API Error: 400" });
  assertEquals(
    envelope(rec, ""),
    '[aiterm] answer from child agent session "child" (claude-code), turn 2: error (API Error: 400)',
  );
  assert(envelope({ ...rec, child_outcome: "done", child_error: null }, "a\n\nb ").endsWith("\n\na\n\nb "));
});
