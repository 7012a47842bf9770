/**
 * The three `--codex-steer` requests (see steer_setup.ts for the rules they keep): enable writes
 * aiterm's hooks and approves them, disable removes both, status reads them back.
 */
import { type CodexSteerSelection, readSelection, writeSelection } from "./steer_state.ts";
import type { ProcessRef } from "../../../state/mod.ts";
import { sameProcessAlive } from "../../../platform/mod.ts";
import {
  type ConfigPathKind,
  resolveBinary,
  type ServerCommand,
  SetupFailure,
  type SetupOs,
  updateJsonConfig,
} from "../../common/client/mod.ts";
import { codexBinary } from "../launch.ts";
import { addCodexSteerHooks, CODEX_STEER_SPECS, removeCodexSteerHooks } from "./steer_edit.ts";
import {
  approveCodexSteerHooks,
  type CodexApi,
  findOurs,
  forgetApproval,
  type ListedHook,
  listHooks,
  realOr,
  withApi,
} from "./steer_api.ts";
import { codexProcesses } from "./steer_processes.ts";

/** Where Codex steer stands for one Codex home. */
export type CodexSteerState = "unsupported" | "not_enabled" | "ready" | "restart_required" | "setup_required";

/** What `--codex-steer` reports about the Codex home it handled. */
export interface CodexSteerDetails {
  codex_home: string;
  hooks_json: string;
  hooks: { name: string; key: string; trust_status: string; enabled: boolean }[];
  /** Codex processes from before enabling that still run (restart them to load the hooks). */
  restart_pids: number[];
}

/** One `--codex-steer` outcome (an action of aiterm.setup-hooks-result.v1). */
export interface CodexSteerResult {
  action: "codex_steer";
  status: "ok" | "failed";
  request: "status" | "enable" | "disable";
  state: CodexSteerState;
  reason_code?: string;
  detail: string;
  config_path?: string;
  config_path_kind?: ConfigPathKind;
  backup_path?: string;
  codex_steer?: CodexSteerDetails;
}

/** Options for {@link runCodexSteer}. */
export interface CodexSteerOptions {
  env: Record<string, string>;
  dryRun: boolean;
  os?: SetupOs;
  /** The aiterm command the hooks run (setup passes its registered server command). */
  server: () => ServerCommand;
  /** The Codex executable (default: CODEX_BIN, standard paths, PATH). */
  codexBin?: string | null;
  /** Codex processes of this user now (default: from the process table). */
  listProcesses?: () => ProcessRef[];
  /** Bound on each app-server exchange (default 30 s). */
  timeoutMs?: number;
}

/** One `--codex-steer` run: the request and the Codex home it acts on. */
export interface SteerCtx {
  request: "status" | "enable" | "disable";
  os: SetupOs;
  codexHome: string;
  hooksJson: string;
  stateDir: string;
  options: CodexSteerOptions;
}

function details(ctx: SteerCtx, hooks: ListedHook[], restart: number[]): CodexSteerDetails {
  return {
    codex_home: ctx.codexHome,
    hooks_json: ctx.hooksJson,
    hooks: hooks.map((h) => ({
      name: CODEX_STEER_SPECS.find((s) => s.listEvent === h.eventName)?.name ?? h.eventName,
      key: h.key,
      trust_status: h.trustStatus,
      enabled: h.enabled,
    })),
    restart_pids: restart,
  };
}

function api(ctx: SteerCtx, bin: string): CodexApi {
  return { codexBin: bin, codexHome: ctx.codexHome, env: ctx.options.env, timeoutMs: ctx.options.timeoutMs ?? 30_000 };
}

function codexBinOf(options: CodexSteerOptions): string {
  const bin = options.codexBin !== undefined ? options.codexBin : resolveBinary(codexBinary, options.env);
  if (!bin) throw new SetupFailure("codex_not_found", "no codex CLI found (CODEX_BIN, PATH) to approve the hooks with");
  return bin;
}

/** `--codex-steer enable`. */
export async function enable(ctx: SteerCtx): Promise<CodexSteerResult> {
  const base = { action: "codex_steer" as const, request: ctx.request };
  try {
    if (!(await Deno.stat(ctx.codexHome)).isDirectory) throw new Error("not a directory");
  } catch {
    throw new SetupFailure("codex_home_missing", `CODEX_HOME ${ctx.codexHome} is not a directory; start Codex once`);
  }
  const server = ctx.options.server();
  const bin = codexBinOf(ctx.options);
  // Before anything changes: the Codex processes that will not see the new hooks until restarted.
  const running = (ctx.options.listProcesses ?? (() => codexProcesses(ctx.os)))();
  const change = await updateJsonConfig(
    ctx.hooksJson,
    ({ text }) => addCodexSteerHooks(text, server, ctx.os),
    { jsonc: false, dryRun: ctx.options.dryRun },
  );
  const where = whereChanged(ctx.hooksJson, change);
  if (ctx.options.dryRun) {
    const did = change.outcome === "would_write"
      ? `would add aiterm's two hooks to ${change.target}`
      : `${change.target} already holds aiterm's hooks`;
    return {
      ...base,
      status: "ok",
      state: "not_enabled",
      detail: `${did}; would approve them through codex app-server (dry run: nothing changed)`,
      ...where,
    };
  }
  const approved = await approveCodexSteerHooks(api(ctx, bin), server, ctx.os);
  const previous = await readSelection(ctx.stateDir, ctx.codexHome);
  // A re-enable keeps the processes still running from the first time: they may predate the hooks.
  const pre = previous?.state === "enabled" && change.outcome === "unchanged" && !approved.wrote
    ? previous.pre_existing
    : running;
  const selection: CodexSteerSelection = {
    schema: "aiterm.codex-steer-selection.v1",
    codex_home: ctx.codexHome,
    state: "enabled",
    hooks_json: ctx.hooksJson,
    hooks: approved.hooks.map((h) => ({
      name: CODEX_STEER_SPECS.find((s) => s.listEvent === h.eventName)!.name,
      key: h.key,
      hash: h.currentHash,
    })),
    pre_existing: pre.filter((p) => sameProcessAlive(p.pid, p.start)),
    updated_at_ms: Date.now(),
  };
  await writeSelection(ctx.stateDir, selection);
  const restart = selection.pre_existing.map((p) => p.pid);
  const did = change.outcome === "written"
    ? `added aiterm's hooks to ${change.target}`
    : `${change.target} already holds aiterm's hooks`;
  const trust = approved.wrote ? "approved them through Codex" : "Codex already trusts them";
  const after = restart.length > 0
    ? `; restart Codex to load them (still running from before: pid ${restart.join(", ")})`
    : "";
  return {
    ...base,
    status: "ok",
    state: restart.length > 0 ? "restart_required" : "ready",
    ...(restart.length > 0 ? { reason_code: "codex_restart_required" } : {}),
    detail: `${did}; ${trust}; read back: both enabled and trusted${after}`,
    ...where,
    codex_steer: details(ctx, approved.hooks, restart),
  };
}

/** `--codex-steer disable`. */
export async function disable(ctx: SteerCtx): Promise<CodexSteerResult> {
  const base = { action: "codex_steer" as const, request: ctx.request };
  const server = ctx.options.server();
  let bin: string | null = null;
  try {
    bin = codexBinOf(ctx.options);
  } catch {
    // without Codex the file is still cleaned; the approval entries are left (they match no hook)
  }
  // Which keys are ours now (before the file changes them), and which other hooks sit after ours.
  let ours: ListedHook[] = [];
  let shifted = 0;
  if (bin && !ctx.options.dryRun) {
    const listed = await withApi(api(ctx, bin), (conn) => listHooks(conn, ctx.codexHome)).catch(() => null);
    if (listed) {
      ours = [...findOurs(listed.hooks, ctx.hooksJson, server, ctx.os).found.values()];
      shifted = countShifted(listed.hooks, ours, ctx.hooksJson);
    }
  }
  const change = await updateJsonConfig(
    ctx.hooksJson,
    ({ text }) => removeCodexSteerHooks(text, ctx.os).text,
    { jsonc: false, dryRun: ctx.options.dryRun },
  );
  const where = whereChanged(ctx.hooksJson, change);
  if (ctx.options.dryRun) {
    const did = change.outcome === "would_write"
      ? `would remove aiterm's hooks from ${change.target}`
      : `${change.target} holds no aiterm hook`;
    return { ...base, status: "ok", state: "not_enabled", detail: `${did} (dry run: nothing changed)`, ...where };
  }
  if (bin && ours.length > 0) await forgetApproval(api(ctx, bin), ours.map((h) => h.key));
  const previous = await readSelection(ctx.stateDir, ctx.codexHome);
  if (previous) await writeSelection(ctx.stateDir, { ...previous, state: "disabled", updated_at_ms: Date.now() });
  const did = change.outcome === "written"
    ? `removed aiterm's hooks from ${change.target}`
    : `${change.target} holds no aiterm hook`;
  const note = shifted > 0
    ? `; Codex will ask to review ${shifted} other hook(s) again, because their position in the file changed`
    : "";
  return {
    ...base,
    status: "ok",
    state: "not_enabled",
    detail: `${did}; running Codex processes stop using them at once${note}`,
    ...where,
  };
}

/** Other hooks of the same file and event placed after one of ours (their approval key changes). */
function countShifted(listed: ListedHook[], ours: ListedHook[], hooksJson: string): number {
  const pos = (key: string) => {
    const m = /:([a-z_]+):(\d+):(\d+)$/.exec(key);
    return m ? { event: m[1]!, group: Number(m[2]) } : null;
  };
  const mine = ours.map((h) => pos(h.key)).filter((p) => p !== null);
  const file = realOr(hooksJson);
  return listed.filter((h) => {
    if (ours.some((o) => o.key === h.key) || realOr(h.sourcePath) !== file) return false;
    const p = pos(h.key);
    return p !== null && mine.some((m) => m.event === p.event && p.group > m.group);
  }).length;
}

/** `--codex-steer status`. */
export async function status(ctx: SteerCtx): Promise<CodexSteerResult> {
  const base = { action: "codex_steer" as const, request: ctx.request, config_path: ctx.hooksJson };
  const sel = await readSelection(ctx.stateDir, ctx.codexHome);
  if (sel?.state !== "enabled") {
    return {
      ...base,
      status: "ok",
      state: "not_enabled",
      reason_code: "codex_steer_not_enabled",
      detail: `Codex steer is not enabled for ${ctx.codexHome}; answers reach Codex through its queue`,
    };
  }
  const server = ctx.options.server();
  const bin = codexBinOf(ctx.options);
  const listed = await withApi(api(ctx, bin), (conn) => listHooks(conn, ctx.codexHome));
  const { found, missing } = findOurs(listed.hooks, ctx.hooksJson, server, ctx.os);
  const bad = [...found.values()].filter((h) => h.trustStatus !== "trusted" || !h.enabled);
  const restart = sel.pre_existing.filter((p) => sameProcessAlive(p.pid, p.start)).map((p) => p.pid);
  const info = details(ctx, [...found.values()], restart);
  if (missing.length > 0 || bad.length > 0) {
    const what = [
      ...missing.map((m) => `${m} is not in ${ctx.hooksJson}`),
      ...bad.map((h) => `${h.key} is ${h.enabled ? "enabled" : "disabled"} and ${h.trustStatus}`),
    ];
    return {
      ...base,
      status: "ok",
      state: "setup_required",
      reason_code: missing.length > 0 ? "codex_hooks_missing" : "codex_hooks_not_trusted",
      detail: `${what.join("; ")}; run --codex-steer enable again`,
      codex_steer: info,
    };
  }
  if (restart.length > 0) {
    return {
      ...base,
      status: "ok",
      state: "restart_required",
      reason_code: "codex_restart_required",
      detail: `aiterm's hooks are enabled and trusted; Codex processes from before (pid ${
        restart.join(", ")
      }) still run without them`,
      codex_steer: info,
    };
  }
  return { ...base, status: "ok", state: "ready", detail: "aiterm's hooks are enabled and trusted", codex_steer: info };
}

/** Where a hooks-file change landed, as the step result's fields. */
function whereChanged(
  path: string,
  change: { kind: ConfigPathKind; backup?: string | null | undefined },
): { config_path: string; config_path_kind: ConfigPathKind; backup_path?: string } {
  return { config_path: path, config_path_kind: change.kind, ...(change.backup ? { backup_path: change.backup } : {}) };
}
