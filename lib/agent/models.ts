/**
 * Model ids against the harness's live catalog (agent_launch, agent_configure, agent_models). The
 * catalog is what the CLI itself lists (Claude Code's `initialize` answer, `codex debug models`,
 * `grok models`, `cursor-agent --list-models`); there is no built-in fallback list. An id that cannot
 * be a model id at all is refused before any CLI runs.
 */
import { AppError } from "../../base/errors.ts";
import type { CatalogModel, HarnessAdapter, ModelCatalog } from "../../harnesses/mod.ts";

/** How long a catalog read is reused by later calls with the same binary and environment. */
const CACHE_MS = 30_000;
const cache = new Map<string, { at: number; catalog: Promise<ModelCatalog> }>();

/** The cache key of a catalog read: harness, binary and the whole environment it runs with. */
function cacheKey(adapter: HarnessAdapter, bin: string, env: Record<string, string>): string {
  const pairs = Object.keys(env).sort().map((k) => [k, env[k]]);
  return JSON.stringify([adapter.id, bin, pairs]);
}

/**
 * The harness's live model catalog (no fallback). A read is reused for {@link CACHE_MS} by calls with
 * the same binary and environment (launching several agents reads it once); a failed read is not kept.
 * @throws {AppError} MODEL_CATALOG_UNAVAILABLE
 */
export async function fetchCatalog(
  adapter: HarnessAdapter,
  bin: string,
  env: Record<string, string>,
): Promise<ModelCatalog> {
  const read = adapter.modelCatalog;
  if (!read) throw new AppError("MODEL_CATALOG_UNAVAILABLE", `${adapter.id} has no model catalog command`);
  const key = cacheKey(adapter, bin, env);
  const now = Date.now();
  for (const [k, v] of cache) if (now - v.at > CACHE_MS) cache.delete(k);
  let entry = cache.get(key);
  if (!entry) {
    entry = { at: now, catalog: read(bin, env) };
    cache.set(key, entry);
  }
  try {
    return await entry.catalog;
  } catch (err) {
    cache.delete(key);
    throw new AppError(
      "MODEL_CATALOG_UNAVAILABLE",
      `${adapter.id} could not list its models: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

/** The catalog entry `id` names: its own id, or the full model id an alias resolves to. */
export function catalogEntry(catalog: ModelCatalog, id: string | null): CatalogModel | null {
  if (id === null) return null;
  return catalog.models.find((m) => m.id === id) ?? catalog.models.find((m) => m.resolvedModel === id) ?? null;
}

/** The ids a caller may pass (listed ones, with the full id each alias stands for). */
export function catalogChoices(catalog: ModelCatalog): string[] {
  const out: string[] = [];
  for (const m of catalog.models.filter((m) => !m.hidden)) {
    out.push(m.resolvedModel && m.resolvedModel !== m.id ? `${m.id} (${m.resolvedModel})` : m.id);
  }
  return out;
}

/**
 * MODEL_UNKNOWN for `model`, naming what the live catalog offers.
 * @param action what was refused ("launch", "configure")
 */
export function unknownModel(adapter: HarnessAdapter, model: string, catalog: ModelCatalog, action: string): AppError {
  const ids = [...new Set(catalog.models.flatMap((m) => [m.id, ...(m.resolvedModel ? [m.resolvedModel] : [])]))];
  return new AppError(
    "MODEL_UNKNOWN",
    `Cannot ${action} ${adapter.id} with model "${model}": it is not in the live catalog (${catalog.source})`,
    {
      suggestion: `use one of ${catalogChoices(catalog).join(", ")} (agent_models lists them)`,
      data: { available: ids, source: catalog.source },
    },
  );
}

/** Longest model id accepted (the longest listed by any CLI here is under 60 characters). */
const MAX_MODEL_ID = 200;

/**
 * Refuses a model id that no CLI could take: empty, too long, with whitespace or control characters,
 * or starting with `-` (it would be read as an option on the command line). Runs before any catalog
 * read, so it also guards a harness without one.
 * @throws {AppError} INVALID_ARGUMENT
 */
export function checkModelShape(model: string): void {
  let why: string | null = null;
  if (model.trim() === "") why = "is empty";
  else if (model.length > MAX_MODEL_ID) why = `is over ${MAX_MODEL_ID} characters`;
  // deno-lint-ignore no-control-regex
  else if (/[\s\u0000-\u001f\u007f]/.test(model)) why = "contains whitespace or control characters";
  else if (model.startsWith("-")) why = "starts with '-' (it would be read as a command-line option)";
  if (why) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `Cannot use model "${model.slice(0, 80)}": it ${why}, so it cannot be a model id`,
      {
        suggestion: "pass a model id from agent_models",
        data: { field: "model" },
      },
    );
  }
}
