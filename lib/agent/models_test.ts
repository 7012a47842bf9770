import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../tests/helpers/assert.ts";
import { AppError } from "../../base/errors.ts";
import type { HarnessAdapter, ModelCatalog } from "../../harnesses/mod.ts";
import { claude } from "../../harnesses/claude/mod.ts";
import { catalogChoices, catalogEntry, checkModelShape, fetchCatalog, unknownModel } from "./models.ts";

const CATALOG: ModelCatalog = {
  source: "claude-code-initialize",
  defaultModel: "default",
  models: [
    {
      id: "default",
      displayName: null,
      efforts: [],
      defaultEffort: null,
      hidden: false,
      fast: true,
      resolvedModel: "claude-opus-5-5",
    },
    {
      id: "opus",
      displayName: "Opus",
      efforts: [],
      defaultEffort: null,
      hidden: false,
      fast: true,
      resolvedModel: "claude-opus-5-5",
    },
    {
      id: "sonnet",
      displayName: null,
      efforts: [],
      defaultEffort: null,
      hidden: false,
      fast: false,
      resolvedModel: "claude-sonnet-5-5",
    },
    { id: "secret", displayName: null, efforts: [], defaultEffort: null, hidden: true, fast: false },
  ],
};

function codeOf(fn: () => void): string | null {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.code : String(e);
  }
  return null;
}

Deno.test("catalogEntry() finds a model by its id or by the full id an alias resolves to", () => {
  assertEquals(catalogEntry(CATALOG, "sonnet")?.id, "sonnet");
  // The first entry that resolves to it (the default alias, then opus: both are the same model).
  assertEquals(catalogEntry(CATALOG, "claude-opus-5-5")?.fast, true);
  assertEquals(catalogEntry(CATALOG, "claude-sonnet-5-5")?.id, "sonnet");
  assertEquals(catalogEntry(CATALOG, "gpt-9"), null);
  assertEquals(catalogEntry(CATALOG, "opus[1m]"), null);
  assertEquals(catalogEntry(CATALOG, null), null);
});

Deno.test("unknownModel() is MODEL_UNKNOWN naming the listed choices with their full ids", () => {
  const e = unknownModel(claude, "gpt-9", CATALOG, "launch");
  assertEquals(e.code, "MODEL_UNKNOWN");
  assertStringIncludes(e.message, 'model "gpt-9"');
  assertStringIncludes(e.message, "claude-code-initialize");
  assertEquals(catalogChoices(CATALOG), [
    "default (claude-opus-5-5)",
    "opus (claude-opus-5-5)",
    "sonnet (claude-sonnet-5-5)",
  ]);
  assertStringIncludes(String(e.suggestion), "sonnet (claude-sonnet-5-5)");
  assert(!String(e.suggestion).includes("secret"), "hidden models are not suggested");
  assertEquals((e.data as { available: string[] }).available.includes("claude-opus-5-5"), true);
});

Deno.test("checkModelShape() refuses ids no CLI could take, before any catalog is read", () => {
  for (const bad of ["", "  ", "-p", "--dangerously-skip-permissions", "gpt 9", "a\nb", "x\u0007", "m".repeat(201)]) {
    assertEquals(codeOf(() => checkModelShape(bad)), "INVALID_ARGUMENT", JSON.stringify(bad));
  }
  for (const ok of ["opus", "claude-opus-5-5", "opus[1m]", "gpt-6.1-sol", "composer-2.5-fast", "org/model:tag"]) {
    assertEquals(codeOf(() => checkModelShape(ok)), null, ok);
  }
});

Deno.test("fetchCatalog() reuses a read for the same binary and env, not a failed one, and codes failures", async () => {
  let reads = 0;
  let fail = true;
  const adapter = {
    ...claude,
    modelCatalog: () => {
      reads++;
      return fail ? Promise.reject(new Error("no answer")) : Promise.resolve(CATALOG);
    },
  } as HarnessAdapter;
  const err = await assertRejects(() => fetchCatalog(adapter, "/bin/x", { HOME: "/a" }));
  assertEquals((err as AppError).code, "MODEL_CATALOG_UNAVAILABLE");
  assertStringIncludes(err.message, "no answer");
  fail = false;
  assertEquals(await fetchCatalog(adapter, "/bin/x", { HOME: "/a" }), CATALOG);
  assertEquals(await fetchCatalog(adapter, "/bin/x", { HOME: "/a" }), CATALOG);
  assertEquals(reads, 2);
  // Another environment (another HOME, another login) is another read.
  await fetchCatalog(adapter, "/bin/x", { HOME: "/b" });
  assertEquals(reads, 3);
  const { modelCatalog: _drop, ...bare } = claude;
  const none = await assertRejects(() => fetchCatalog(bare as HarnessAdapter, "/bin/x", {}));
  assertEquals((none as AppError).code, "MODEL_CATALOG_UNAVAILABLE");
});
