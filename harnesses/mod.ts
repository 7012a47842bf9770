/** The harness registry. Imports are static so `deno compile` keeps every adapter. */
import { join } from "node:path";
import { findExecutable } from "../platform/mod.ts";
import { claude, claudeBinary } from "./claude.ts";
import { codex, codexBinary } from "./codex.ts";
import { cursor, cursorBinary } from "./cursor.ts";
import { grok, grokBinary } from "./grok.ts";
import type { BinarySpec, HarnessAdapter, HarnessId } from "./types.ts";

export { HARNESS_IDS } from "./types.ts";
export type {
  ApprovalChoice,
  ApprovalDialog,
  ApprovalKind,
  BinarySpec,
  BlockedReason,
  CatalogModel,
  ConfigureGoal,
  ConfigureRules,
  ConfigureStage,
  ConfigureVerdict,
  HarnessAdapter,
  HarnessId,
  KeyStep,
  LaunchOptions,
  LaunchSpec,
  ModelCatalog,
  ScreenState,
  TranscriptContext,
  TranscriptRules,
  TranscriptTurn,
  TurnParser,
} from "./types.ts";

const BINARIES: Record<HarnessId, BinarySpec> = {
  "claude-code": claudeBinary,
  "codex-cli": codexBinary,
  "grok-cli": grokBinary,
  "cursor-cli": cursorBinary,
};

/** Every harness adapter. */
const ADAPTERS: Partial<Record<HarnessId, HarnessAdapter>> = {
  "claude-code": claude,
  "codex-cli": codex,
  "grok-cli": grok,
  "cursor-cli": cursor,
};

/** The adapter for `id`, or null when this version has none. */
export function getHarness(id: HarnessId): HarnessAdapter | null {
  return ADAPTERS[id] ?? null;
}

/** The binary lookup of any harness id (also those without an adapter yet). */
export function harnessBinary(id: HarnessId): BinarySpec {
  return BINARIES[id];
}

/** Every harness id with its binary lookup, in the public enum order. */
export function listHarnessBinaries(): { id: HarnessId; binary: BinarySpec }[] {
  return (Object.keys(BINARIES) as HarnessId[]).map((id) => ({ id, binary: BINARIES[id] }));
}

/** Resolves a harness binary: env override, then vendor standard paths, then PATH. Null when absent. */
export function resolveBinary(spec: BinarySpec, env: Record<string, string | undefined>): string | null {
  const override = env[spec.envOverride];
  if (override) return findExecutable(override, env.PATH);
  const home = env.HOME ?? "";
  for (const p of spec.standardPaths) {
    if (p.startsWith("~/") && !home) continue;
    const found = findExecutable(p.startsWith("~/") ? join(home, p.slice(2)) : p, undefined);
    if (found) return found;
  }
  for (const name of spec.pathNames) {
    const found = findExecutable(name, env.PATH);
    if (found) return found;
  }
  return null;
}
