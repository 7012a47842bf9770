/** The Codex CLI's model catalog (`codex debug models`). */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { TESTDATA } from "../common/test_kit.ts";
import { parseCodexModelCatalog } from "./models.ts";

const dir = TESTDATA;

Deno.test("parseCodexModelCatalog() maps efforts, defaults, visibility and fast tiers", () => {
  const json = Deno.readTextFileSync(new URL("samples/codex-debug-models-trimmed.json", dir));
  const catalog = parseCodexModelCatalog("WARNING: proceeding, even though …\n" + json);
  assertEquals(catalog.source, "codex-debug-models");
  assertEquals(catalog.defaultModel, "gpt-6.2-sol");
  const byId = new Map(catalog.models.map((m) => [m.id, m]));
  assertEquals(byId.get("gpt-6.2-sol"), {
    id: "gpt-6.2-sol",
    displayName: "GPT-6.2-Sol",
    efforts: ["low", "medium", "high", "xhigh", "max", "ultra"],
    defaultEffort: "low",
    hidden: false,
    fast: true,
  });
  assertEquals(byId.get("gpt-5.5")?.efforts, ["low", "medium", "high", "xhigh"]);
  assertEquals([byId.get("gpt-daybreak-red-latest")?.hidden, byId.get("gpt-daybreak-red-latest")?.fast], [true, false]);
  assertEquals(catalog.models.length, 14);
});
