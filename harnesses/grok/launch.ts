/** Grok Build's binary lookup and launch command line. */
import { applyWriteScope } from "../common/mod.ts";
import type { BinarySpec, LaunchOptions, LaunchSpec } from "../common/mod.ts";

export const grokBinary: BinarySpec = {
  envOverride: "GROK_BIN",
  standardPaths: ["~/.grok/bin/grok"],
  pathNames: ["grok"],
};

/** Reasoning efforts `--reasoning-effort` documents (the catalog lists none per model). */
export const GROK_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;

/**
 * Builds the interactive launch: `--trust` (the CLI's own folder-trust bypass), `-s <uuid>` to pin a
 * new session id, `-m`, `--reasoning-effort`, and `--sandbox read-only` for write_scope "read-only".
 * Images are not passed on the command line (Grok Build has no image flag).
 */
export function buildGrokLaunch(o: LaunchOptions): LaunchSpec {
  const argv = [o.bin, "--trust", "-s", o.sessionUuid];
  if (o.model) argv.push("-m", o.model);
  if (o.reasoningEffort) argv.push("--reasoning-effort", o.reasoningEffort);
  // `--rules`: "extra rules to append to the system prompt" (1.0.41); the sub-agent notice goes there.
  if (o.notice) argv.push("--rules", o.notice);
  const writeScopeEnforcement = applyWriteScope(argv, o.writeScope, ["--sandbox", "read-only"]);
  // Grok Build has no fast mode (every model of its catalog says so; fast:true is refused before launch).
  return {
    argv,
    env: {},
    writeScopeEnforcement,
    pinnedSessionId: o.sessionUuid,
    noticeChannel: o.notice ? "rules" : null,
    fastBy: null,
  };
}
