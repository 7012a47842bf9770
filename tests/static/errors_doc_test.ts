/** docs/errors.md is exactly what base/errors.ts says (scripts/errors_doc.ts regenerates it). */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { ERROR_CODES } from "../../base/errors.ts";
import { parseErrorCodes, renderErrorsDoc } from "../../scripts/errors_doc.ts";

const root = new URL("../../", import.meta.url);

Deno.test("docs/errors.md matches ERROR_CODES in base/errors.ts (regenerate: deno task docs)", async () => {
  const codes = parseErrorCodes(await Deno.readTextFile(new URL("base/errors.ts", root)));
  assertEquals(codes.map((c) => c.code), [...ERROR_CODES]);
  const doc = await Deno.readTextFile(new URL("docs/errors.md", root));
  assertEquals(doc, renderErrorsDoc(codes));
});

Deno.test("parseErrorCodes refuses a code without a comment and a list that differs from ERROR_CODES", () => {
  const source = (lines: string) => `export const ERROR_CODES = [\n${lines}\n] as const;\n`;
  assertEquals(parseErrorCodes(source(`  "A_CODE", // what it means`), ["A_CODE"]), [
    { code: "A_CODE", meaning: "what it means" },
  ]);
  const failure = (f: () => unknown): string => {
    try {
      f();
    } catch (err) {
      return (err as Error).message;
    }
    return "no error";
  };
  assertStringIncludes(failure(() => parseErrorCodes(source(`  "A_CODE",`), ["A_CODE"])), "no comment");
  assertStringIncludes(failure(() => parseErrorCodes(source(`  "A_CODE", // x`), ["A_CODE", "B"])), "do not match");
});
