/**
 * `aiterm-mcp setup --codex-steer enable|disable|status`: aiterm's two synchronous Codex hooks
 * (`PostToolUse` → `aiterm-mcp hook codex-post-tool-use`, `Stop` → `aiterm-mcp hook codex-stop`) in
 * `$CODEX_HOME/hooks.json`, and their approval through Codex's own app-server.
 *
 * - hooks.json: only aiterm's groups are added, replaced in place or removed; other hooks, their
 *   order and bytes stay. A second enable with nothing changed writes nothing.
 * - Approval: `hooks/list` gives each hook's key and currentHash; `config/batchWrite` upserts
 *   `hooks.state."<key>".trusted_hash` for exactly aiterm's two keys (never another hook's, never a
 *   trust-bypass flag). A fresh app-server then lists them again: both must be enabled and trusted.
 * - Codex processes that were running before enabling loaded their hooks earlier: until they end the
 *   state is `restart_required`, then `ready`.
 * - Linux: steer is `unsupported` and enable is refused; the queue delivery works everywhere.
 */
import { currentOs, SetupFailure } from "../../common/client/mod.ts";
import { codexHooksPath } from "./steer_edit.ts";
import { codexHomeOf, codexHookStateDir } from "./steer_state.ts";
import { type CodexSteerOptions, type CodexSteerResult, disable, enable, status, type SteerCtx } from "./steer_ops.ts";

export * from "./steer_edit.ts";
export * from "./steer_api.ts";
export type { CodexSteerDetails, CodexSteerOptions, CodexSteerResult, CodexSteerState } from "./steer_ops.ts";
export { codexProcesses } from "./steer_processes.ts";

function failure(err: unknown): { reason_code: string; detail: string } {
  if (err instanceof SetupFailure) return { reason_code: err.reasonCode, detail: err.message };
  return { reason_code: "internal", detail: `unexpected failure: ${err instanceof Error ? err.message : String(err)}` };
}

/**
 * Runs `--codex-steer <request>` for the Codex home of `options.env` (`$CODEX_HOME`, else
 * `~/.codex`). Never throws: a failure is a `failed` result with a reason code.
 */
export async function runCodexSteer(
  request: "status" | "enable" | "disable",
  options: CodexSteerOptions,
): Promise<CodexSteerResult> {
  const os = options.os ?? currentOs();
  const base = { action: "codex_steer" as const, request };
  if (os === "linux") {
    const detail = "Codex steer is not supported on Linux; answers reach Codex through its queue";
    if (request === "enable") {
      return { ...base, status: "failed", state: "unsupported", reason_code: "codex_steer_unsupported", detail };
    }
    return {
      ...base,
      status: "ok",
      state: "unsupported",
      reason_code: "codex_steer_unsupported",
      detail: request === "disable" ? `nothing to disable: ${detail}` : detail,
    };
  }
  if (!options.env.CODEX_HOME && !options.env.HOME && !options.env.USERPROFILE) {
    return {
      ...base,
      status: "failed",
      state: "setup_required",
      reason_code: "home_unknown",
      detail: "HOME is not set",
    };
  }
  const codexHome = codexHomeOf(options.env);
  const ctx: SteerCtx = {
    request,
    os,
    codexHome,
    hooksJson: codexHooksPath(codexHome),
    stateDir: codexHookStateDir(options.env),
    options,
  };
  try {
    if (request === "enable") return await enable(ctx);
    if (request === "disable") return await disable(ctx);
    return await status(ctx);
  } catch (err) {
    const state = request === "disable" ? "not_enabled" : "setup_required";
    return { ...base, status: "failed", state, ...failure(err) };
  }
}
