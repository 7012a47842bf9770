/** The Cursor CLI's live model catalog (`cursor-agent --list-models`). */
import { catalogOutput } from "../common/mod.ts";
import type { CatalogModel, ModelCatalog } from "../common/mod.ts";

/**
 * Parses `cursor-agent --list-models`: lines `<id> - <Display name>` with `(default)` or `(current)`
 * marks. Effort variants (`<id>[effort=<e>]`) are folded into their base model's efforts, and a model
 * with a `<id>-fast` sibling has a fast tier.
 */
export function parseCursorModelCatalog(stdout: string): ModelCatalog {
  const byId = new Map<string, CatalogModel>();
  let defaultModel: string | null = null;
  for (const line of stdout.split("\n")) {
    const m = line.trim().match(/^([A-Za-z0-9][\w.:/-]*)(?:\[effort=([\w-]+)\])?\s+-\s+(.+)$/);
    if (!m) continue;
    const [, id, effort, rest] = m as unknown as [string, string, string | undefined, string];
    const isDefault = /\((?:default|current)\)/.test(rest);
    const displayName = rest.replace(/\s*\((?:default|current)\)/g, "").trim() || null;
    let model = byId.get(id);
    if (!model) {
      model = {
        id,
        displayName: effort ? null : displayName,
        efforts: [],
        defaultEffort: null,
        hidden: false,
        fast: false,
      };
      byId.set(id, model);
    }
    if (effort) {
      if (!model.efforts.includes(effort)) model.efforts.push(effort);
      if (isDefault) model.defaultEffort = effort;
    } else if (displayName) model.displayName = displayName;
    if (isDefault) defaultModel = id;
  }
  for (const model of byId.values()) if (byId.has(`${model.id}-fast`)) model.fast = true;
  return { source: "cursor-agent-list-models", defaultModel, models: [...byId.values()] };
}

/** Runs `cursor-agent --list-models` (15 s limit) and parses its catalog. */
export async function readCursorModelCatalog(bin: string, env: Record<string, string>): Promise<ModelCatalog> {
  return parseCursorModelCatalog(
    await catalogOutput(bin, ["--list-models"], env, 15_000, "cursor-agent --list-models"),
  );
}
