/** The Codex CLI's live model catalog (`codex debug models`). */
import { catalogOutput, isRecord, str } from "../common/mod.ts";
import type { CatalogModel, ModelCatalog } from "../common/mod.ts";

/** Parses `codex debug models` JSON (stdout; leading non-JSON noise is skipped) into a catalog. */
export function parseCodexModelCatalog(stdout: string): ModelCatalog {
  const start = stdout.indexOf("{");
  const data: unknown = JSON.parse(start >= 0 ? stdout.slice(start) : stdout);
  const raw = isRecord(data) && Array.isArray(data.models) ? data.models.filter(isRecord) : [];
  const models: CatalogModel[] = [];
  let best: { slug: string; priority: number } | null = null;
  for (const m of raw) {
    const slug = str(m, "slug");
    if (!slug) continue;
    const levels = Array.isArray(m.supported_reasoning_levels) ? m.supported_reasoning_levels : [];
    const tiers = Array.isArray(m.additional_speed_tiers) ? m.additional_speed_tiers : [];
    const service = Array.isArray(m.service_tiers) ? m.service_tiers.filter(isRecord) : [];
    const hidden = str(m, "visibility") !== "list";
    models.push({
      id: slug,
      displayName: str(m, "display_name"),
      efforts: levels.map((l) => str(l, "effort")).filter((e): e is string => e !== null),
      defaultEffort: str(m, "default_reasoning_level"),
      hidden,
      fast: tiers.includes("fast") || service.some((s) => /^fast$/i.test(str(s, "name") ?? "") || s.id === "fast"),
    });
    const priority = typeof m.priority === "number" ? m.priority : Infinity;
    if (!hidden && (best === null || priority < best.priority)) best = { slug, priority };
  }
  return { source: "codex-debug-models", defaultModel: best?.slug ?? null, models };
}

/** Runs `codex debug models` (15 s limit) and parses its catalog. */
export async function readCodexModelCatalog(bin: string, env: Record<string, string>): Promise<ModelCatalog> {
  return parseCodexModelCatalog(await catalogOutput(bin, ["debug", "models"], env, 15_000, "codex debug models"));
}
