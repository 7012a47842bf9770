/** The Codex CLI's binary lookup and launch command line. */
import { applyWriteScope } from "../common/mod.ts";
import type { BinarySpec, LaunchOptions, LaunchSpec } from "../common/mod.ts";

export const codexBinary: BinarySpec = { envOverride: "CODEX_BIN", standardPaths: [], pathNames: ["codex"] };

/**
 * Builds the interactive launch: `-m`, `-c model_reasoning_effort="…"`, `-s read-only` for read-only, and
 * one `--image=<path>` per image (the `=` form, because `-i` takes several values and would swallow a
 * following positional argument). The sub-agent notice is the session's developer instructions
 * (`-c developer_instructions="…"`, a developer message of its own in every request), and fast mode is
 * `-c service_tier="fast"` (`"default"` for fast:false) for this session only: `/fast` would also write
 * `service_tier` into config.toml. The TUI keeps its default alternate screen (see the facts document).
 */
export function buildCodexLaunch(o: LaunchOptions): LaunchSpec {
  const argv = [o.bin];
  if (o.model) argv.push("-m", o.model);
  if (o.reasoningEffort) argv.push("-c", `model_reasoning_effort="${o.reasoningEffort}"`);
  // A JSON string literal is a TOML basic string (the same escapes), so any notice text survives -c.
  if (o.notice) argv.push("-c", `developer_instructions=${JSON.stringify(o.notice)}`);
  if (o.fast !== null) argv.push("-c", `service_tier="${o.fast ? "fast" : "default"}"`);
  const writeScopeEnforcement = applyWriteScope(argv, o.writeScope, ["-s", "read-only"]);
  for (const image of o.images) argv.push(`--image=${image}`);
  return {
    argv,
    env: {},
    writeScopeEnforcement,
    pinnedSessionId: null,
    noticeChannel: o.notice ? "developer_instructions" : null,
    fastBy: o.fast === true ? "launch_option" : null,
  };
}
