/**
 * Parent hooks in the setup flow (install after registration, then read back) and the stand-alone
 * hook commands of `aiterm-mcp setup`: `--remove-claude-parent-hooks`, `--remove-cursor-parent-hooks`
 * and `--codex-steer status|enable|disable`.
 */
import { VERSION } from "../base/version.ts";
import {
  type ClientContext,
  CLIENTS,
  type CodexSteerDetails,
  type CodexSteerState,
  type Detection,
  HOOK_CLIENT_IDS,
  type HookClientId,
  type HookFileChange,
  PARENT_HOOK_FILES,
  runCodexSteer,
  SetupFailure,
} from "../harnesses/clients/mod.ts";
import { currentOs, homeDir, type SetupOs } from "./platform_deps.ts";
import type { ParentHooksResult } from "./result.ts";
import { serverCommand } from "./server_command.ts";

function failure(err: unknown): { reason_code: string; detail: string } {
  if (err instanceof SetupFailure) return { reason_code: err.reasonCode, detail: err.message };
  return { reason_code: "internal", detail: `unexpected failure: ${err instanceof Error ? err.message : String(err)}` };
}

function where(change: HookFileChange): Pick<ParentHooksResult, "config_path" | "config_path_kind" | "backup_path"> {
  return {
    config_path: change.config_path,
    config_path_kind: change.config_path_kind === "missing" ? "created" : change.config_path_kind,
    ...(change.backup_path ? { backup_path: change.backup_path } : {}),
  };
}

/**
 * Installs one client's parent hooks (Claude Code: after checking its version) and reads them back.
 * Never throws: a failure is a `failed` result with a reason code.
 */
export async function setupParentHooks(
  id: HookClientId,
  ctx: ClientContext,
  det: Detection,
): Promise<ParentHooksResult> {
  let version: string | undefined;
  let change: HookFileChange;
  const files = PARENT_HOOK_FILES[id];
  try {
    if (files.checkVersion) version = await files.checkVersion(det.bin, ctx.env);
    change = await files.install(ctx.server, { env: ctx.env, home: ctx.home, dryRun: ctx.dryRun });
  } catch (err) {
    return { status: "failed", ready: false, ...failure(err), ...(version ? { client_version: version } : {}) };
  }
  const status = change.outcome === "written"
    ? "installed"
    : change.outcome === "would_write"
    ? "would_install"
    : "already_installed";
  const common = { ...where(change), ...(version ? { client_version: version } : {}) };
  const kept = change.backup_path ? ` (previous content kept in ${change.backup_path})` : "";
  if (status === "would_install") {
    return {
      status,
      ready: false,
      detail: `would add aiterm's ${CLIENTS[id].label} hooks to ${change.target}${kept}`,
      ...common,
    };
  }
  const did = status === "installed"
    ? `added aiterm's hooks to ${change.target}${kept}`
    : `${change.target} already holds aiterm's hooks`;
  const back = files.status(ctx.home, ctx.env);
  if (back.ready) return { status, ready: true, detail: `${did}; read back: every entry present`, ...common };
  if (back.reason_code === "claude_hooks_disabled") {
    return { status, ready: false, reason_code: back.reason_code, detail: `${did}; but ${back.reason}`, ...common };
  }
  return {
    status: "failed",
    ready: false,
    reason_code: "parent_hooks_readback_failed",
    detail: `${did}; read back: ${back.reason ?? "not ready"}`,
    ...common,
  };
}

// ---------------------------------------------------------------------------------------------
// Stand-alone hook commands

/** Schema id of the JSON the hook commands print. */
export const HOOKS_RESULT_SCHEMA = "aiterm.setup-hooks-result.v1";

/** What the hook flags asked for. */
export interface HookActionsRequest {
  removeClaude: boolean;
  removeCursor: boolean;
  codexSteer?: "status" | "enable" | "disable";
}

/** One hook command's outcome. */
export interface HookActionResult {
  action: "remove_claude_parent_hooks" | "remove_cursor_parent_hooks" | "codex_steer";
  /** removed / would_remove / not_installed (removals), ok (codex status, disable), failed. */
  status: "removed" | "would_remove" | "not_installed" | "ok" | "failed";
  reason_code?: string;
  detail: string;
  config_path?: string;
  config_path_kind?: "file" | "symlink" | "missing";
  backup_path?: string;
  /** Removals: aiterm entries removed (or that would be). */
  removed_entries?: number;
  /** --codex-steer: what was asked and the state after it. */
  request?: "status" | "enable" | "disable";
  state?: CodexSteerState;
  /** --codex-steer: the Codex home, aiterm's hooks as Codex lists them, processes to restart. */
  codex_steer?: CodexSteerDetails;
}

/** The whole result of the hook commands. */
export interface HookActionsResult {
  schema: typeof HOOKS_RESULT_SCHEMA;
  version: string;
  status: "ok" | "failed";
  reason_code?: string;
  dry_run: boolean;
  actions: HookActionResult[];
}

/** The action name of a hook client's removal (`remove_claude_parent_hooks`). */
function removeAction(id: HookClientId): HookActionResult["action"] {
  return `remove_${id}_parent_hooks` as const;
}

async function removeFor(
  id: HookClientId,
  env: Record<string, string>,
  home: string,
  dryRun: boolean,
): Promise<HookActionResult> {
  const action = removeAction(id);
  let change: HookFileChange;
  try {
    change = await PARENT_HOOK_FILES[id].uninstall({ env, home, dryRun });
  } catch (err) {
    return { action, status: "failed", ...failure(err) };
  }
  const common = {
    config_path: change.config_path,
    config_path_kind: change.config_path_kind,
    ...(change.backup_path ? { backup_path: change.backup_path } : {}),
    removed_entries: change.removed ?? 0,
  };
  if (change.outcome === "unchanged") {
    const why = change.config_path_kind === "missing" ? "does not exist" : "holds no aiterm hook";
    return { action, status: "not_installed", detail: `${change.config_path} ${why}; nothing to remove`, ...common };
  }
  const n = change.removed ?? 0;
  const kept = change.backup_path ? ` (previous content kept in ${change.backup_path})` : "";
  if (change.outcome === "would_write") {
    return {
      action,
      status: "would_remove",
      detail: `would remove ${n} aiterm entries from ${change.target}${kept}`,
      ...common,
    };
  }
  // Read back: the file must hold none of ours now.
  let left = -1;
  try {
    const text = (await Deno.readTextFile(change.target)).replace(/^\uFEFF/, "");
    left = PARENT_HOOK_FILES[id].strip(text).removed;
  } catch {
    // reported below
  }
  if (left !== 0) {
    return {
      action,
      status: "failed",
      reason_code: "config_readback_failed",
      detail: `removed ${n} aiterm entries from ${change.target}, but reading it back ${
        left < 0 ? "failed" : `still finds ${left}`
      }`,
      ...common,
    };
  }
  return { action, status: "removed", detail: `removed ${n} aiterm entries from ${change.target}${kept}`, ...common };
}

/** Options for {@link runHookActions}. */
export interface HookActionsOptions {
  env: Record<string, string>;
  dryRun: boolean;
  os?: SetupOs;
}

/** Runs the requested hook commands in a fixed order (Claude, Cursor, Codex); never throws. */
export async function runHookActions(req: HookActionsRequest, options: HookActionsOptions): Promise<HookActionsResult> {
  const os = options.os ?? currentOs();
  const actions: HookActionResult[] = [];
  const home = homeDir(options.env, os);
  for (const id of HOOK_CLIENT_IDS) {
    if (!(id === "claude" ? req.removeClaude : req.removeCursor)) continue;
    if (!home) {
      actions.push({
        action: removeAction(id),
        status: "failed",
        reason_code: "home_unknown",
        detail: "HOME is not set",
      });
      continue;
    }
    actions.push(await removeFor(id, options.env, home, options.dryRun));
  }
  if (req.codexSteer) {
    actions.push(
      await runCodexSteer(req.codexSteer, { env: options.env, dryRun: options.dryRun, os, server: serverCommand }),
    );
  }
  const failed = actions.find((a) => a.status === "failed");
  return {
    schema: HOOKS_RESULT_SCHEMA,
    version: VERSION,
    status: failed ? "failed" : "ok",
    ...(failed?.reason_code ? { reason_code: failed.reason_code } : {}),
    dry_run: options.dryRun,
    actions,
  };
}

/** A readable summary of the hook commands' result (`--human`). */
export function renderHooksHuman(result: HookActionsResult): string {
  const head = result.status === "ok" ? "aiterm setup hooks: ok" : `aiterm setup hooks: FAILED (${result.reason_code})`;
  const lines = [result.dry_run ? `${head} [dry run: nothing was changed]` : head];
  for (const a of result.actions) {
    const code = a.reason_code ? ` [${a.reason_code}]` : "";
    const what = a.action === "codex_steer" ? `codex_steer ${a.request}` : a.action;
    lines.push(`  ${what}: ${a.status}${a.state ? ` (${a.state})` : ""}${code}: ${a.detail}`);
  }
  return lines.join("\n") + "\n";
}
