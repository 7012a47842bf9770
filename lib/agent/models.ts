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

/** The cache key of a catalog read: harness, binary and the whole environment it runs with. */
function cacheKey(adapter: HarnessAdapter, bin: string, env: Record<string, string>): string {
  const pairs = Object.keys(env).sort().map((k) => [k, env[k]]);
  return JSON.stringify([adapter.id, bin, pairs]);
}

/**
 * The process's model catalog reads (the composition root builds one and hands it down as
 * `AgentDeps.catalogs`): a read is reused for {@link CACHE_MS} by calls with the same binary and
 * environment (launching several agents reads it once); a failed read is not kept.
 */
export class ModelCatalogs {
  readonly #cache = new Map<string, { at: number; catalog: Promise<ModelCatalog> }>();

  /**
   * The harness's live model catalog (no fallback).
   * @throws {AppError} MODEL_CATALOG_UNAVAILABLE
   */
  async read(adapter: HarnessAdapter, bin: string, env: Record<string, string>): Promise<ModelCatalog> {
    const read = adapter.modelCatalog;
    if (!read) throw new AppError("MODEL_CATALOG_UNAVAILABLE", `${adapter.id} has no model catalog command`);
    const key = cacheKey(adapter, bin, env);
    const now = Date.now();
    for (const [k, v] of this.#cache) if (now - v.at > CACHE_MS) this.#cache.delete(k);
    let entry = this.#cache.get(key);
    if (!entry) {
      entry = { at: now, catalog: read(bin, env) };
      this.#cache.set(key, entry);
    }
    try {
      return await entry.catalog;
    } catch (err) {
      this.#cache.delete(key);
      throw new AppError(
        "MODEL_CATALOG_UNAVAILABLE",
        `${adapter.id} could not list its models: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
}

/**
 * The harness's live model catalog, read through `catalogs` (absent: read afresh).
 * @throws {AppError} MODEL_CATALOG_UNAVAILABLE
 */
export function fetchCatalog(
  adapter: HarnessAdapter,
  bin: string,
  env: Record<string, string>,
  catalogs: ModelCatalogs = new ModelCatalogs(),
): Promise<ModelCatalog> {
  return catalogs.read(adapter, bin, env);
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

/** What {@link checkModelChoice} checks: one request's model and effort, for launch or in-place configure. */
export interface ModelChoice {
  /** What is refused in messages ("launch", "configure"). */
  action: string;
  model: string | null;
  effort: string | null;
  /** The model whose catalog entry rules when `model` is null (the agent's current one, or the catalog default). */
  current: (catalog: ModelCatalog) => string | null;
  /** The harness sets reasoning effort only together with a model. */
  effortNeedsModel: boolean;
  /**
   * Where the model's catalog entry lists no efforts (or is not found): "any" accepts the effort (the CLI
   * decides), "catalog" checks it against every effort the catalog lists.
   */
  unlistedEfforts: "any" | "catalog";
  /** Read the catalog even when model and effort do not need it (launch's fast option). */
  needCatalog?: boolean;
  /** The caller's own checks that need no catalog, run after the effort checks (launch's fast option). */
  beforeCatalog?: () => void;
  /** The CLI binary, asked only when the catalog is read. */
  bin: () => string;
  env: Record<string, string>;
  /** The process's catalog reads (absent: read afresh). */
  catalogs?: ModelCatalogs | undefined;
}

/**
 * The one model/effort check of agent_launch and agent_configure: the shape of the model id, the harness's
 * own effort list, effort without a model, then (when needed and the harness has one) the live catalog:
 * the model must be listed and the effort offered for it.
 * @returns the catalog entry of the model in effect, when the catalog was read and lists it
 * @throws {AppError} INVALID_ARGUMENT, EFFORT_UNSUPPORTED, MODEL_UNKNOWN, MODEL_CATALOG_UNAVAILABLE (and what `bin` throws)
 */
export async function checkModelChoice(adapter: HarnessAdapter, choice: ModelChoice): Promise<CatalogModel | null> {
  const { action, model, effort } = choice;
  if (model !== null) checkModelShape(model);
  if (effort !== null && adapter.efforts !== null && !adapter.efforts.includes(effort)) {
    throw new AppError("EFFORT_UNSUPPORTED", `Cannot ${action} ${adapter.id} with reasoning_effort "${effort}"`, {
      suggestion: `use one of ${adapter.efforts.join(", ")}`,
      data: { accepted: [...adapter.efforts] },
    });
  }
  if (choice.effortNeedsModel && effort !== null && model === null) {
    throw new AppError("EFFORT_UNSUPPORTED", `Cannot ${action} ${adapter.id} with reasoning_effort but no model`, {
      suggestion: "pass model together with reasoning_effort (see agent_models)",
    });
  }
  choice.beforeCatalog?.();
  const needCatalog = model !== null || (effort !== null && adapter.efforts === null) || choice.needCatalog === true;
  // A harness without a catalog command gets the checks above only (agent_models: catalog "unavailable").
  if (!needCatalog || !adapter.modelCatalog) return null;
  const catalog = await fetchCatalog(adapter, choice.bin(), choice.env, choice.catalogs);
  const entry = catalogEntry(catalog, model ?? choice.current(catalog));
  if (model !== null && !entry) throw unknownModel(adapter, model, catalog, action);
  if (effort !== null && adapter.efforts === null) {
    const accepted = entry && entry.efforts.length > 0
      ? entry.efforts
      : choice.unlistedEfforts === "any"
      ? null
      : entry
      ? entry.efforts
      : [...new Set(catalog.models.flatMap((m) => m.efforts))];
    if (accepted !== null && !accepted.includes(effort)) {
      throw new AppError(
        "EFFORT_UNSUPPORTED",
        `Cannot ${action} ${entry?.id ?? adapter.id} with reasoning_effort "${effort}"`,
        { suggestion: `use one of ${accepted.join(", ") || "(none)"}`, data: { accepted } },
      );
    }
  }
  return entry;
}
