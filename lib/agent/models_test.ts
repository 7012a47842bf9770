import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../tests/helpers/assert.ts";
import { AppError } from "../../base/errors.ts";
import type { HarnessAdapter, ModelCatalog } from "../../harnesses/mod.ts";
import { claude } from "../../harnesses/claude/mod.ts";
import {
  catalogChoices,
  catalogEntry,
  checkModelChoice,
  checkModelShape,
  fetchCatalog,
  ModelCatalogs,
  unknownModel,
} from "./models.ts";

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

Deno.test("ModelCatalogs reuses a read for the same binary and env, not a failed one; fetchCatalog() without one reads afresh", async () => {
  const catalogs = new ModelCatalogs();
  let reads = 0;
  let fail = true;
  const adapter = {
    ...claude,
    modelCatalog: () => {
      reads++;
      return fail ? Promise.reject(new Error("no answer")) : Promise.resolve(CATALOG);
    },
  } as HarnessAdapter;
  const err = await assertRejects(() => catalogs.read(adapter, "/bin/x", { HOME: "/a" }));
  assertEquals((err as AppError).code, "MODEL_CATALOG_UNAVAILABLE");
  assertStringIncludes(err.message, "no answer");
  fail = false;
  assertEquals(await catalogs.read(adapter, "/bin/x", { HOME: "/a" }), CATALOG);
  assertEquals(await catalogs.read(adapter, "/bin/x", { HOME: "/a" }), CATALOG);
  assertEquals(reads, 2);
  // Another environment (another HOME, another login) is another read.
  await catalogs.read(adapter, "/bin/x", { HOME: "/b" });
  assertEquals(reads, 3);
  await fetchCatalog(adapter, "/bin/x", { HOME: "/b" });
  assertEquals(reads, 4, "no shared cache without a ModelCatalogs");
  const { modelCatalog: _drop, ...bare } = claude;
  const none = await assertRejects(() => fetchCatalog(bare as HarnessAdapter, "/bin/x", {}));
  assertEquals((none as AppError).code, "MODEL_CATALOG_UNAVAILABLE");
});

Deno.test("checkModelChoice(): one check for launch and configure, with each one's policy", async () => {
  const catalog: ModelCatalog = {
    source: "test",
    defaultModel: "a",
    models: [
      { id: "a", displayName: null, efforts: ["low", "high"], defaultEffort: null, hidden: false, fast: false },
      { id: "b", displayName: null, efforts: [], defaultEffort: null, hidden: false, fast: false },
    ],
  };
  let reads = 0;
  const open = {
    ...claude,
    efforts: null,
    modelCatalog: () => (reads++, Promise.resolve(catalog)),
  } as HarnessAdapter;
  const base = { current: () => null, effortNeedsModel: false, bin: () => "/bin/x", env: {} };
  const code = async (p: Promise<unknown>) => {
    try {
      await p;
      return null;
    } catch (err) {
      return (err as AppError).code;
    }
  };
  const launch = { ...base, action: "launch", unlistedEfforts: "any" as const };
  const configure = { ...base, action: "configure", unlistedEfforts: "catalog" as const };
  // Neither model nor a catalog-bound effort: no read.
  assertEquals(await checkModelChoice(open, { ...launch, model: null, effort: null }), null);
  assertEquals(reads, 0);
  assertEquals((await checkModelChoice(open, { ...launch, model: "a", effort: "high" }))?.id, "a");
  assertEquals(await code(checkModelChoice(open, { ...launch, model: "a", effort: "max" })), "EFFORT_UNSUPPORTED");
  assertEquals(await code(checkModelChoice(open, { ...launch, model: "zzz", effort: null })), "MODEL_UNKNOWN");
  assertEquals(await code(checkModelChoice(open, { ...launch, model: "-x", effort: null })), "INVALID_ARGUMENT");
  // A model listing no efforts: launch leaves the effort to the CLI, configure checks the catalog's.
  assertEquals(await code(checkModelChoice(open, { ...launch, model: "b", effort: "max" })), null);
  assertEquals(await code(checkModelChoice(open, { ...configure, model: "b", effort: "max" })), "EFFORT_UNSUPPORTED");
  assertEquals(
    await code(checkModelChoice(open, { ...configure, effortNeedsModel: true, model: null, effort: "low" })),
    "EFFORT_UNSUPPORTED",
  );
  // A harness with its own effort list refuses others before any catalog read.
  const listed = {
    ...claude,
    efforts: ["low"],
    modelCatalog: () => Promise.reject(new Error("unused")),
  } as HarnessAdapter;
  assertEquals(await code(checkModelChoice(listed, { ...launch, model: null, effort: "high" })), "EFFORT_UNSUPPORTED");
  // The caller's own check runs before the catalog; a shared ModelCatalogs reads once.
  let checked = false;
  await checkModelChoice(open, {
    ...launch,
    model: null,
    effort: null,
    needCatalog: true,
    beforeCatalog: () => void (checked = true),
  });
  assert(checked);
  const catalogs = new ModelCatalogs();
  reads = 0;
  await checkModelChoice(open, { ...launch, model: "a", effort: null, catalogs });
  await checkModelChoice(open, { ...configure, model: "a", effort: null, catalogs });
  assertEquals(reads, 1);
});
