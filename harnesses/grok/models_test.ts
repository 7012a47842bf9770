/** Grok Build's model catalog (`grok models`). */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { parseGrokModelCatalog } from "./models.ts";

Deno.test("parseGrokModelCatalog() reads `grok models` (real 1.0.41 output with a custom model)", () => {
  const out = "Model 'mock' is using its own API key.\n\nDefault model: mock\n\nAvailable models:\n" +
    "  - grok-4.6\n  - grok-4.5\n  * mock (default)\n";
  const cat = parseGrokModelCatalog(out);
  assertEquals(cat.defaultModel, "mock");
  assertEquals(cat.models.map((m) => m.id), ["grok-4.6", "grok-4.5", "mock"]);
});
