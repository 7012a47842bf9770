/** docs/config.md is exactly what base/config.ts declares (scripts/config_doc.ts regenerates it). */
import { assertEquals } from "../helpers/assert.ts";
import { renderConfigDoc } from "../../scripts/config_doc.ts";

Deno.test("docs/config.md matches KNOBS and CHILD_VARS (regenerate: deno run -A scripts/config_doc.ts)", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/config.md", import.meta.url));
  assertEquals(doc, renderConfigDoc());
});
