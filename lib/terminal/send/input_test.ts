import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { AppError } from "../../../base/errors.ts";
import { resolveKey } from "./keys.ts";
import { completeUtf8Prefix, leadingContinuationBytes } from "../files/output_log.ts";
import { sanitizeInput } from "./sanitize.ts";

Deno.test("sanitizeInput() removes escapes, bracketed-paste markers and C0/C1 controls but keeps tab and LF", () => {
  const r = sanitizeInput("a\x1b[31mb\x1b[0m\x1b]0;title\x07c\x1b[200~d\x1b[201~\te\r\nf\rg\x00\x7f\u0085h");
  assertEquals(r.text, "abcd\te\nf\ngh");
  assert(r.removed > 0);
  assertEquals(sanitizeInput("plain 漢字 😀").text, "plain 漢字 😀");
});

Deno.test("resolveKey() accepts names and aliases and refuses unknown keys with KEY_UNKNOWN", () => {
  assertEquals(resolveKey("ctrl-c"), { name: "C-c", muxKey: "C-c" });
  assertEquals(resolveKey("^D").name, "C-d");
  assertEquals(resolveKey("ESC").name, "Escape");
  assertEquals(resolveKey("pgdn").muxKey, "NPage");
  assertEquals(resolveKey("Delete").muxKey, "DC");
  for (const bad of ["Hyper-Q", "C-cc", "", "echo hi"]) {
    try {
      resolveKey(bad);
      throw new Error(`accepted ${bad}`);
    } catch (err) {
      assert(err instanceof AppError && err.code === "KEY_UNKNOWN", `wrong error for ${bad}`);
    }
  }
});

Deno.test("a read never ends inside a UTF-8 character and skips leading continuation bytes", () => {
  const bytes = new TextEncoder().encode("ab漢");
  assertEquals(completeUtf8Prefix(bytes), 5);
  assertEquals(completeUtf8Prefix(bytes.subarray(0, 4)), 2);
  assertEquals(completeUtf8Prefix(bytes.subarray(0, 3)), 2);
  assertEquals(leadingContinuationBytes(bytes.subarray(3)), 2);
  assertEquals(leadingContinuationBytes(bytes), 0);
});
