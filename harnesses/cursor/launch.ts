/** The Cursor CLI's binary lookup and launch command line. */
import { applyWriteScope } from "../common/mod.ts";
import type { BinarySpec, LaunchOptions, LaunchSpec } from "../common/mod.ts";

export const cursorBinary: BinarySpec = {
  envOverride: "CURSOR_AGENT_BIN",
  standardPaths: ["~/.local/bin/cursor-agent"],
  pathNames: ["cursor-agent"],
};

/**
 * Builds the interactive launch. Effort rides on the model id in brackets (`<model>[effort=<e>]`); fast
 * picks the model's `-fast` sibling (composer-2.5 → composer-2.5-fast); read-only is `--mode ask`.
 * Workspace trust is not bypassed with `--trust`: the dialog is answered only with trust_project.
 */
export function buildCursorLaunch(o: LaunchOptions): LaunchSpec {
  const argv = [o.bin];
  let model = o.model;
  if (model && o.fast === true && !/-fast$/.test(model)) model = `${model}-fast`;
  if (model && o.reasoningEffort) model = `${model}[effort=${o.reasoningEffort}]`;
  if (model) argv.push("--model", model);
  const writeScopeEnforcement = applyWriteScope(argv, o.writeScope, ["--mode", "ask"]);
  // No system-prompt option is documented for the CLI: the sub-agent notice is typed before the first prompt.
  return {
    argv,
    env: {},
    writeScopeEnforcement,
    pinnedSessionId: null,
    noticeChannel: null,
    fastBy: o.fast === true && model ? "model_variant" : null,
  };
}
