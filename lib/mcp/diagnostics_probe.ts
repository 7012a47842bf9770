/** Harness resolution for diagnostics: only whether each CLI resolves, never where. */
import { listHarnesses, resolveHarnessBinary } from "../../harnesses/mod.ts";

/** One row per harness. */
export function getHarnessStatuses(env: Record<string, string>): { harness: string; resolvable: boolean }[] {
  return listHarnesses().map((h) => ({ harness: h.id, resolvable: resolveHarnessBinary(h, env) !== null }));
}
