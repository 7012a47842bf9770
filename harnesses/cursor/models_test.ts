/** The Cursor CLI's model catalog (`--list-models`). */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { parseCursorModelCatalog } from "./models.ts";

Deno.test("cursor: --list-models folds effort variants and marks fast siblings", () => {
  const catalog = parseCursorModelCatalog(
    [
      "Available models",
      "",
      "auto - Auto",
      "composer-2.5 - Composer 2.5 (default)",
      "composer-2.5-fast - Composer 2.5 Fast",
      "claude-opus-4-8 - Claude Opus 4.8",
      "claude-opus-4-8[effort=low] - Claude Opus 4.8 (low effort)",
      "claude-opus-4-8[effort=high] - Claude Opus 4.8 (high effort) (current)",
      "",
      "Tip: use --model <id> to switch.",
    ].join("\n"),
  );
  assertEquals(catalog.models.map((m) => m.id), ["auto", "composer-2.5", "composer-2.5-fast", "claude-opus-4-8"]);
  const opus = catalog.models.find((m) => m.id === "claude-opus-4-8")!;
  assertEquals([opus.displayName, opus.efforts, opus.defaultEffort], ["Claude Opus 4.8", ["low", "high"], "high"]);
  const composer = catalog.models.find((m) => m.id === "composer-2.5")!;
  assertEquals([composer.fast, composer.displayName], [true, "Composer 2.5"]);
  assertEquals(catalog.defaultModel, "claude-opus-4-8");
});
