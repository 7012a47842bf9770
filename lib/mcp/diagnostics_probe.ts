/** Harness resolution for diagnostics: only whether each CLI resolves, never where. */
import { listHarnessBinaries, resolveBinary } from "../../harnesses/mod.ts";

/** One row per harness. */
export function getHarnessStatuses(env: Record<string, string>): { harness: string; resolvable: boolean }[] {
  return listHarnessBinaries().map((h) => ({ harness: h.id, resolvable: resolveBinary(h.binary, env) !== null }));
}
