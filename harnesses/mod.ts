/** The harness registry. Imports are static so `deno compile` keeps every adapter. */
import { claude, claudeBinary } from "./claude/mod.ts";
import { codex, codexBinary } from "./codex/mod.ts";
import { cursor, cursorBinary } from "./cursor/mod.ts";
import { grok, grokBinary } from "./grok/mod.ts";
import type { BinarySpec, HarnessAdapter, HarnessId } from "./common/mod.ts";

export { HARNESS_IDS, resolveBinary } from "./common/mod.ts";
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
} from "./common/mod.ts";

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
