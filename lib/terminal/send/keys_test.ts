/** resolveKey(): tmux's key names, modifiers and case rules, and the refusals (pure; real tmux: tests/e2e/keys_test.ts). */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { AppError } from "../../../base/errors.ts";
import { acceptedKeyNames, keyNames, resolveKey } from "./keys.ts";

function refusal(input: string): AppError {
  try {
    resolveKey(input);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

Deno.test("resolveKey() accepts Meta, Shift and Ctrl combinations in any order and case of the modifiers", () => {
  assertEquals(resolveKey("M-x"), { name: "M-x", muxKey: "M-x" });
  assertEquals(resolveKey("C-Left"), { name: "C-Left", muxKey: "C-Left" });
  assertEquals(resolveKey("S-Up"), { name: "S-Up", muxKey: "S-Up" });
  assertEquals(resolveKey("s-m-c-up"), { name: "C-M-S-Up", muxKey: "C-M-S-Up" });
  assertEquals(resolveKey("M-Enter").muxKey, "M-Enter");
  assertEquals(resolveKey("C-Space").muxKey, "C-Space");
  assertEquals(resolveKey("ctrl+alt+delete"), { name: "C-M-Delete", muxKey: "C-M-DC" });
  assertEquals(resolveKey("alt-x").name, "M-x");
  assertEquals(resolveKey("shift-Left").name, "S-Left");
  assertEquals(resolveKey("^M-x").name, "C-M-x");
});

Deno.test("resolveKey(): named keys are case-insensitive, single characters are not, C-A is C-a", () => {
  assertEquals(resolveKey("kpenter"), { name: "KPEnter", muxKey: "KPEnter" });
  assertEquals(resolveKey("ENTER").name, "Enter");
  assertEquals(resolveKey("npage"), { name: "PageDown", muxKey: "NPage" });
  assertEquals(resolveKey("PgUp"), { name: "PageUp", muxKey: "PPage" });
  assertEquals(resolveKey("ic").muxKey, "IC");
  assertEquals(resolveKey("M-X").name, "M-X");
  assertEquals(resolveKey("M-x").name, "M-x");
  assertEquals(resolveKey("A").name, "A");
  assertEquals(resolveKey("C-A"), { name: "C-a", muxKey: "C-a" });
  assertEquals(resolveKey("é"), { name: "é", muxKey: "é" });
  assertEquals(resolveKey(" ").name, "Space");
  assertEquals(resolveKey(";").muxKey, ";");
});

Deno.test("resolveKey(): F13…F63 are terminfo's modified F1…F12 (tmux has no name for them)", () => {
  assertEquals(resolveKey("F13"), { name: "F13", muxKey: "S-F1" });
  assertEquals(resolveKey("f20").muxKey, "S-F8");
  assertEquals(resolveKey("F24").muxKey, "S-F12");
  assertEquals(resolveKey("F25").muxKey, "C-F1");
  assertEquals(resolveKey("F37").muxKey, "C-S-F1");
  assertEquals(resolveKey("F49").muxKey, "M-F1");
  assertEquals(resolveKey("F63").muxKey, "M-S-F3");
  assertEquals(refusal("F64").code, "KEY_UNKNOWN");
  assertEquals(refusal("M-F13").code, "KEY_UNSUPPORTED");
});

Deno.test("resolveKey() keeps the friendly aliases", () => {
  const cases: Record<string, string> = {
    "ctrl-c": "C-c",
    "control-c": "C-c",
    "c+c": "C-c",
    "^C": "C-c",
    "^d": "C-d",
    "return": "Enter",
    "cr": "Enter",
    "esc": "Escape",
    "bs": "BSpace",
    "backspace": "BSpace",
    "del": "Delete",
    "pgup": "PageUp",
    "pgdn": "PageDown",
    "shift-tab": "BTab",
    "s-tab": "BTab",
    "S-Tab": "BTab",
    "C-\\": "C-\\",
    "C-]": "C-]",
    "C-@": "C-@",
  };
  for (const [input, name] of Object.entries(cases)) assertEquals(resolveKey(input).name, name, input);
});

Deno.test("resolveKey() refuses unknown names with KEY_UNKNOWN and close matches, never as text", () => {
  for (
    const bad of ["Hyper-Q", "C-cc", "", "echo hi", "None", "Any", "User0", "0x41", "MouseDown1", "\t", "C-", "S-"]
  ) {
    assertEquals(refusal(bad).code, "KEY_UNKNOWN", JSON.stringify(bad));
  }
  const typo = refusal("Entr");
  assertEquals(typo.code, "KEY_UNKNOWN");
  assert(typo.suggestion?.includes("did you mean Enter"), typo.suggestion);
  assertEquals((typo.data as { close_matches: string[] }).close_matches[0], "Enter");
  assert(refusal("C-pgdown2").suggestion?.includes("PageDown"));
  assert(refusal("kpent").suggestion?.includes("KPEnter"));
  assert(refusal("echo hi").suggestion?.includes("pty_send"));
});

Deno.test("resolveKey() refuses known keys with a modifier a terminal has no code for (KEY_UNSUPPORTED)", () => {
  // tmux 3.3a types each of these as its letters or sends nothing (see tests/e2e/keys_test.ts).
  for (
    const bad of ["S-a", "C-S-a", "S-A", "C-Enter", "S-Enter", "C-Tab", "C-Escape", "C-BSpace", "C-BTab", "S-BTab"]
  ) {
    assertEquals(refusal(bad).code, "KEY_UNSUPPORTED", bad);
  }
  for (const bad of ["C-1", "C-|", "C-~", "C-M-2", "S-Space", "C-KP1", "S-KPEnter", "C-é", "S-é"]) {
    assertEquals(refusal(bad).code, "KEY_UNSUPPORTED", bad);
  }
  const shiftA = refusal("S-a");
  assert(shiftA.suggestion?.includes('send "A"'), shiftA.suggestion);
  assert(refusal("C-Enter").suggestion?.includes("M-Enter"));
});

Deno.test("acceptedKeyNames() lists each accepted form once and every entry resolves to itself", () => {
  const all = acceptedKeyNames();
  assertEquals(new Set(all).size, all.length);
  for (const name of all) assertEquals(resolveKey(name).name, name);
  for (
    const want of ["C-Left", "M-x", "S-Up", "C-M-S-Up", "F13", "F20", "KPEnter", "M-Enter", "C-Space", "C-a", "M-A"]
  ) {
    assert(all.includes(want), want);
  }
  for (const name of keyNames()) assert(all.includes(name), name);
});
