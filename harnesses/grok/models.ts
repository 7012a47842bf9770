/** Grok Build's live model catalog (`grok models`). */
import { catalogOutput } from "../common/mod.ts";
import type { CatalogModel, ModelCatalog } from "../common/mod.ts";

/** Parses `grok models` (`Default model: X` / `Available models:` / `  - id` / `  * id (default)`). */
export function parseGrokModelCatalog(stdout: string): ModelCatalog {
  let defaultModel: string | null = null;
  const models: CatalogModel[] = [];
  let inList = false;
  for (const raw of stdout.split("\n")) {
    const line = raw.trimEnd();
    const d = line.match(/^Default model:\s*(\S+)/);
    if (d) defaultModel = d[1]!;
    if (/^Available models:/.test(line)) {
      inList = true;
      continue;
    }
    if (!inList) continue;
    const m = line.match(/^\s+[-*]\s+(\S+)(\s+\(default\))?\s*$/);
    if (!m) continue;
    models.push({ id: m[1]!, displayName: null, efforts: [], defaultEffort: null, hidden: false, fast: false });
    if (m[2] && defaultModel === null) defaultModel = m[1]!;
  }
  return { source: "grok-models", defaultModel, models };
}

/** Runs `grok models` (20 s limit) and parses its catalog. */
export async function readGrokModelCatalog(bin: string, env: Record<string, string>): Promise<ModelCatalog> {
  return parseGrokModelCatalog(await catalogOutput(bin, ["models"], env, 20_000, "grok models"));
}
