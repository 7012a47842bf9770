/** The harness registry. Imports are static so `deno compile` keeps every adapter. */
import { join } from "node:path";
import { findExecutable } from "../platform/mod.ts";
import { claude } from "./claude.ts";
import { codex } from "./codex.ts";
import { cursor } from "./cursor.ts";
import { grok } from "./grok.ts";
import type { HarnessAdapter, HarnessId } from "./types.ts";

export { HARNESS_IDS } from "./types.ts";
export type { BinarySpec, HarnessAdapter, HarnessId } from "./types.ts";

const ADAPTERS: Record<HarnessId, HarnessAdapter> = {
  "claude-code": claude,
  "codex-cli": codex,
  "grok-cli": grok,
  "cursor-cli": cursor,
};

/** Every adapter, in the public enum order. */
export function listHarnesses(): HarnessAdapter[] {
  return Object.values(ADAPTERS);
}

/** The adapter for `id`. */
export function getHarness(id: HarnessId): HarnessAdapter {
  return ADAPTERS[id];
}

/** Resolves a harness binary: env override, then vendor standard paths, then PATH. Null when absent. */
export function resolveHarnessBinary(adapter: HarnessAdapter, env: Record<string, string | undefined>): string | null {
  const override = env[adapter.binary.envOverride];
  if (override) return findExecutable(override, env.PATH);
  const home = env.HOME ?? "";
  for (const p of adapter.binary.standardPaths) {
    const abs = p.startsWith("~/") ? join(home, p.slice(2)) : p;
    if (home || !p.startsWith("~/")) {
      const found = findExecutable(abs, undefined);
      if (found) return found;
    }
  }
  for (const name of adapter.binary.pathNames) {
    const found = findExecutable(name, env.PATH);
    if (found) return found;
  }
  return null;
}
