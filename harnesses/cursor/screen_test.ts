/** Cursor CLI screen rules: states, the trust answer, composer text, follow-ups and residue. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { shortState, TESTDATA } from "../common/test_kit.ts";
import {
  answerCursorStartupDialog,
  classifyCursorScreen,
  cursorComposerHolds,
  cursorComposerText,
  cursorFollowUps,
} from "./screen.ts";

const dir = new URL("cursor/", TESTDATA);
const read = (name: string) => Deno.readTextFileSync(new URL(name, dir));

Deno.test("cursor: screens classify as ready, busy, trust and exited", () => {
  const expected: Record<string, string> = {
    "idle.txt": "ready",
    "trust.txt": "blocked:trust_required",
    "busy.txt": "busy",
    "busy-followups.txt": "busy",
    "composer-residue.txt": "ready",
    "exited.txt": "exited",
  };
  for (const [name, want] of Object.entries(expected)) {
    assertEquals(shortState(classifyCursorScreen(read(name))), want, name);
  }
  assertEquals(classifyCursorScreen(""), { kind: "starting" });
  assertEquals(classifyCursorScreen("  Cursor Agent\n  loading"), { kind: "starting" });
});

Deno.test("cursor: trust is answered with `a` only with trust_project", () => {
  assertEquals(answerCursorStartupDialog(read("trust.txt"), true), [{ key: "a" }]);
  assertEquals(answerCursorStartupDialog(read("trust.txt"), false), null);
  assertEquals(answerCursorStartupDialog(read("idle.txt"), true), null);
});

Deno.test("cursor: composer text, follow-ups and residue", () => {
  assertEquals(cursorComposerText(read("idle.txt")), "");
  assertEquals(cursorComposerText(read("busy.txt")), "");
  assertEquals(cursorComposerText(read("composer-residue.txt")), "second task line one\nline two");
  assertEquals(cursorFollowUps(read("busy-followups.txt")), ["also consider this"]);
  assert(cursorComposerHolds(read("composer-residue.txt"), "second task line one\nline two and more"));
  assert(cursorComposerHolds(read("busy-followups.txt"), "also consider this"), "an unsteered follow-up is residue");
  assert(!cursorComposerHolds(read("busy.txt"), "also consider this"));
  assert(!cursorComposerHolds(read("idle.txt"), "first task"));
});
