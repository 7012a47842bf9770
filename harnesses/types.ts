/** The contract every harness module implements. Core code asks the harness; it never matches a vendor's screen text itself. */

/** Harness ids, the public `harness` enum. */
export const HARNESS_IDS = ["claude-code", "codex-cli", "grok-cli", "cursor-cli"] as const;
/** One of {@link HARNESS_IDS}. */
export type HarnessId = typeof HARNESS_IDS[number];

/** Where a harness's CLI binary is looked for, in order. */
export interface BinarySpec {
  /** Environment variable that overrides everything (e.g. `CLAUDE_BIN`). */
  envOverride: string;
  /** Vendor standard install locations, relative to HOME (`~/…`) or absolute. */
  standardPaths: string[];
  /** Names looked up on PATH. */
  pathNames: string[];
}

/** A harness adapter. Part 1 of the agent work adds launch, screen and transcript rules. */
export interface HarnessAdapter {
  id: HarnessId;
  /** The vendor name used in the legacy `provider` field. */
  provider: "claude" | "codex" | "grok" | "cursor";
  binary: BinarySpec;
}
