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
import { basename, join } from "node:path";
import { harnessBinary, resolveBinary } from "../harnesses/mod.ts";
import { AppServer, type AppServerFailure, recordOf } from "../lib/agent/delivery/codex_app_server.ts";
import {
  CODEX_STEER_HOOK_NAMES,
  codexHomeOf,
  codexHookStateDir,
  type CodexSteerSelection,
  readSelection,
  writeSelection,
} from "../lib/agent/delivery/codex_steer.ts";
import type { ProcessRef } from "../lib/agent/delivery/store.ts";
import { processStartIdentity, sameProcessAlive } from "../platform/mod.ts";
import { type ConfigPathKind, SetupFailure, updateJsonConfig } from "./config_file.ts";
import { commandLine, splitCommandLine } from "./hook_edit.ts";
import {
  addMember,
  appendArrayItem,
  jsonEqual,
  type JsonMember,
  type JsonNode,
  JsonShapeError,
  memberOf,
  parseJsonSpans,
  removeArrayItem,
  removeMember,
  replaceNode,
} from "./json_edit.ts";
import { currentOs, type SetupOs } from "./platform_deps.ts";
import { type ServerCommand, serverCommand } from "./server_command.ts";

/** One hook aiterm installs into Codex. */
export interface CodexSteerSpec {
  /** The hooks.json event key. */
  event: "PostToolUse" | "Stop";
  /** `aiterm-mcp hook <name>`. */
  name: string;
  /** The event as hooks/list spells it. */
  listEvent: "postToolUse" | "stop";
  /** Seconds (the hook starts an app-server only when an answer may be waiting). */
  timeout: number;
}

/** aiterm's two Codex hooks, in the order they are added. PostToolUse has no matcher: every tool. */
export const CODEX_STEER_SPECS: readonly CodexSteerSpec[] = [
  { event: "PostToolUse", name: CODEX_STEER_HOOK_NAMES.post_tool_use, listEvent: "postToolUse", timeout: 60 },
  { event: "Stop", name: CODEX_STEER_HOOK_NAMES.stop, listEvent: "stop", timeout: 60 },
];

/** Where Codex reads user hooks. */
export function codexHooksPath(codexHome: string): string {
  return join(codexHome, "hooks.json");
}

/** The matcher group aiterm writes for `spec`: one command handler (the shell string Codex runs). */
export function codexSteerGroup(spec: CodexSteerSpec, base: ServerCommand, os: string): Record<string, unknown> {
  const command = commandLine([base.command, ...base.args, "hook", spec.name], os === "windows" ? "windows" : "posix");
  return { hooks: [{ type: "command", command, timeout: spec.timeout }] };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The aiterm hook a handler runs (its command ends with `hook <one of our names>`), or null. */
export function codexSteerHookName(handler: unknown, os: string): string | null {
  if (!isObject(handler) || typeof handler.command !== "string") return null;
  const argv = splitCommandLine(handler.command, os === "windows" ? "windows" : "posix");
  const name = argv.at(-1);
  if (argv.at(-2) !== "hook" || !name) return null;
  return CODEX_STEER_SPECS.some((s) => s.name === name) ? name : null;
}

// ---------------------------------------------------------------------------------------------
// hooks.json text edits: one change per pass over a fresh parse, until nothing is left to change.

const MAX_PASSES = 64;

function converge(text: string, step: (text: string, root: JsonNode) => string | null): string {
  let cur = text;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const root = parseJsonSpans(cur, { jsonc: false });
    if (root.kind !== "object") throw new JsonShapeError("the top level is not a JSON object");
    const next = step(cur, root);
    if (next === null) return cur;
    cur = next;
  }
  throw new Error("hook edit did not settle");
}

function hooksOf(root: JsonNode): JsonNode | null {
  const m = memberOf(root, "hooks");
  if (!m) return null;
  if (m.node.kind !== "object") throw new JsonShapeError('"hooks" is not a JSON object');
  return m.node;
}

function liveEvents(hooks: JsonNode): JsonMember[] {
  return (hooks.members ?? []).filter((m) => memberOf(hooks, m.key) === m);
}

function handlersOf(group: JsonNode): JsonNode | null {
  if (group.kind !== "object") return null;
  const m = memberOf(group, "hooks");
  return m && m.node.kind === "array" ? m.node : null;
}

/** Removes group `index` of an event; an emptied event key goes too. */
function dropGroup(text: string, hooks: JsonNode, event: JsonMember, index: number): string {
  if ((event.node.items ?? []).length > 1) return removeArrayItem(text, event.node, index);
  return removeMember(text, hooks, event);
}

/**
 * Adds (or brings up to date) aiterm's two groups in the text of Codex's hooks.json. An existing
 * aiterm group keeps its place (Codex's approval key contains the position); an identical one is
 * left alone, so an unchanged install returns the same text. aiterm handlers elsewhere (another
 * group, another event, twice) are removed. Throws JsonSyntaxError / JsonShapeError.
 */
export function addCodexSteerHooks(text: string, base: ServerCommand, os: string): string {
  const want = CODEX_STEER_SPECS.map((spec) => ({ spec, group: codexSteerGroup(spec, base, os) }));
  const fresh = () => Object.fromEntries(want.map((w) => [w.spec.event, [w.group]]));
  if (text.trim() === "") return JSON.stringify({ hooks: fresh() }, null, 2) + "\n";
  return converge(text, (text, root) => {
    const hooks = hooksOf(root);
    if (!hooks) return addMember(text, root, "hooks", fresh());
    const slots = new Map<string, JsonNode>();
    for (const event of liveEvents(hooks)) {
      if (event.node.kind !== "array") {
        if (want.some((w) => w.spec.event === event.key)) {
          throw new JsonShapeError(`"hooks.${event.key}" is not a JSON array`);
        }
        continue;
      }
      for (const [gi, group] of (event.node.items ?? []).entries()) {
        const handlers = handlersOf(group);
        if (!handlers) continue;
        const names = (handlers.items ?? []).map((h) => codexSteerHookName(h.value, os));
        const ours = names.filter((n) => n !== null);
        if (ours.length === 0) continue;
        const home = want.find((w) => w.spec.name === ours[0])!.spec.event;
        if (ours.length === 1 && names.length === 1 && home === event.key && !slots.has(ours[0]!)) {
          slots.set(ours[0]!, group);
          continue;
        }
        if (ours.length === names.length) return dropGroup(text, hooks, event, gi);
        return removeArrayItem(text, handlers, names.findIndex((n) => n !== null));
      }
    }
    for (const w of want) {
      const slot = slots.get(w.spec.name);
      if (slot) {
        if (!jsonEqual(slot.value, w.group)) return replaceNode(text, slot, w.group);
        continue;
      }
      const event = memberOf(hooks, w.spec.event);
      if (event && event.node.kind === "array") return appendArrayItem(text, event.node, w.group);
      return addMember(text, hooks, w.spec.event, [w.group]);
    }
    return null;
  });
}

/**
 * Removes every aiterm handler from the text of Codex's hooks.json (whole groups when they hold only
 * ours, an event key when its array empties). Returns the new text and how many handlers went.
 */
export function removeCodexSteerHooks(text: string, os: string): { text: string; removed: number } {
  if (text.trim() === "") return { text, removed: 0 };
  let removed = 0;
  const out = converge(text, (text, root) => {
    const hooks = hooksOf(root);
    if (!hooks) return null;
    for (const event of liveEvents(hooks)) {
      if (event.node.kind !== "array") continue;
      for (const [gi, group] of (event.node.items ?? []).entries()) {
        const handlers = handlersOf(group);
        if (!handlers) continue;
        const names = (handlers.items ?? []).map((h) => codexSteerHookName(h.value, os));
        const ours = names.filter((n) => n !== null).length;
        if (ours === 0) continue;
        removed += ours === names.length ? ours : 1;
        if (ours === names.length) return dropGroup(text, hooks, event, gi);
        return removeArrayItem(text, handlers, names.findIndex((n) => n !== null));
      }
    }
    return null;
  });
  return { text: out, removed };
}

// ---------------------------------------------------------------------------------------------
// Codex's own view: hooks/list, config/batchWrite

/** A hook as `hooks/list` reports it (the fields aiterm reads). */
export interface ListedHook {
  key: string;
  eventName: string;
  command: string | null;
  sourcePath: string;
  currentHash: string;
  trustStatus: string;
  enabled: boolean;
}

/** What one app-server exchange needs. */
export interface CodexApi {
  codexBin: string;
  codexHome: string;
  env: Record<string, string>;
  timeoutMs: number;
}

const CLIENT_INFO = { name: "aiterm-setup", title: "aiterm setup", version: "1" };

function apiError(f: AppServerFailure): SetupFailure {
  const note = f.stderrTail ? `; stderr: ${f.stderrTail}` : "";
  return f.kind === "interrupted"
    ? new SetupFailure(
      "codex_hooks_approval_unconfirmed",
      `"${f.command}" ${f.what}; the approval may or may not be written, run --codex-steer status${note}`,
    )
    : new SetupFailure("codex_app_server_unavailable", `"${f.command}" ${f.what}${note}`);
}

async function withApi<T>(api: CodexApi, fn: (conn: AppServer) => Promise<T>): Promise<T> {
  const conn = AppServer.spawn(api, { timeoutMs: api.timeoutMs, cwd: api.codexHome, error: apiError });
  try {
    await conn.initialize(CLIENT_INFO);
    return await fn(conn);
  } finally {
    await conn.close();
  }
}

async function listHooks(conn: AppServer, codexHome: string): Promise<{ hooks: ListedHook[]; errors: string[] }> {
  const reply = await conn.call("hooks/list", { cwds: [codexHome] });
  if (!reply.ok) throw conn.unavailable(`refused hooks/list: ${reply.message}`);
  const data = recordOf(reply.result)?.data;
  if (!Array.isArray(data)) throw conn.unavailable("answered hooks/list without a data array");
  const hooks = new Map<string, ListedHook>();
  const errors: string[] = [];
  for (const entry of data) {
    const e = recordOf(entry);
    for (const err of Array.isArray(e?.errors) ? e.errors : []) {
      const r = recordOf(err);
      if (r) errors.push(`${r.path}: ${r.message}`);
    }
    for (const h of Array.isArray(e?.hooks) ? e.hooks : []) {
      const r = recordOf(h);
      if (!r || typeof r.key !== "string" || typeof r.currentHash !== "string") continue;
      hooks.set(r.key, {
        key: r.key,
        eventName: String(r.eventName),
        command: typeof r.command === "string" ? r.command : null,
        sourcePath: String(r.sourcePath),
        currentHash: r.currentHash,
        trustStatus: String(r.trustStatus),
        enabled: r.enabled === true,
      });
    }
  }
  return { hooks: [...hooks.values()], errors };
}

function realOr(p: string): string {
  try {
    return Deno.realPathSync(p);
  } catch {
    return p;
  }
}

/** aiterm's two hooks in a listing (by file, event and exact command), or which are missing. */
export function findOurs(
  listed: ListedHook[],
  hooksJson: string,
  base: ServerCommand,
  os: string,
): { found: Map<string, ListedHook>; missing: string[] } {
  const file = realOr(hooksJson);
  const found = new Map<string, ListedHook>();
  for (const spec of CODEX_STEER_SPECS) {
    const command = (codexSteerGroup(spec, base, os).hooks as { command: string }[])[0]!.command;
    const hit = listed.find((h) =>
      realOr(h.sourcePath) === file && h.eventName === spec.listEvent && h.command === command
    );
    if (hit) found.set(spec.name, hit);
  }
  return { found, missing: CODEX_STEER_SPECS.filter((s) => !found.has(s.name)).map((s) => s.name) };
}

/** The `hooks.state` upsert that approves exactly `hooks` (enabling one the user switched off). */
export function approvalEdit(hooks: ListedHook[]): Record<string, unknown> | null {
  const value: Record<string, Record<string, unknown>> = {};
  for (const h of hooks) {
    if (h.trustStatus === "trusted" && h.enabled) continue;
    value[h.key] = h.enabled ? { trusted_hash: h.currentHash } : { trusted_hash: h.currentHash, enabled: true };
  }
  return Object.keys(value).length === 0 ? null : { keyPath: "hooks.state", mergeStrategy: "upsert", value };
}

/**
 * Approves aiterm's two hooks through `hooks/list` → `config/batchWrite`, then lists them again in a
 * fresh app-server. Returns them as read back (enabled and trusted).
 * @throws {SetupFailure} codex_app_server_unavailable, codex_hooks_not_listed,
 *   codex_hooks_approval_refused, codex_hooks_approval_unconfirmed, codex_hooks_readback_failed
 */
export async function approveCodexSteerHooks(
  api: CodexApi,
  base: ServerCommand,
  os: string,
): Promise<{ hooks: ListedHook[]; wrote: boolean }> {
  const hooksJson = codexHooksPath(api.codexHome);
  const wrote = await withApi(api, async (conn) => {
    const { hooks, errors } = await listHooks(conn, api.codexHome);
    const { found, missing } = findOurs(hooks, hooksJson, base, os);
    if (missing.length > 0) {
      const why = errors.length > 0 ? `; Codex reports: ${errors.join("; ")}` : "";
      throw new SetupFailure(
        "codex_hooks_not_listed",
        `Codex's hooks/list does not show aiterm's ${missing.join(", ")} hook from ${hooksJson}${why}`,
      );
    }
    const edit = approvalEdit([...found.values()]);
    if (!edit) return false;
    conn.markSent();
    const reply = await conn.call("config/batchWrite", { edits: [edit] });
    if (!reply.ok) {
      throw new SetupFailure("codex_hooks_approval_refused", `Codex refused config/batchWrite: ${reply.message}`);
    }
    return true;
  });
  const back = await withApi(api, (conn) => listHooks(conn, api.codexHome));
  const { found, missing } = findOurs(back.hooks, hooksJson, base, os);
  const bad = [...found.values()].filter((h) => h.trustStatus !== "trusted" || !h.enabled);
  if (missing.length > 0 || bad.length > 0) {
    const what = [
      ...missing.map((m) => `${m} not listed`),
      ...bad.map((h) => `${h.key} is ${h.enabled ? "enabled" : "disabled"} and ${h.trustStatus}`),
    ];
    throw new SetupFailure("codex_hooks_readback_failed", `reading Codex's hooks back: ${what.join("; ")}`);
  }
  return { hooks: [...found.values()], wrote };
}

/** Removes Codex's approval of exactly these keys (aiterm's, as hooks/list showed them). */
async function forgetApproval(api: CodexApi, keys: string[]): Promise<void> {
  const edits = keys.filter((k) => !/["\\]/.test(k)).map((k) => ({
    keyPath: `hooks.state."${k}"`,
    mergeStrategy: "replace",
    value: null,
  }));
  if (edits.length === 0) return;
  await withApi(api, async (conn) => {
    conn.markSent();
    const reply = await conn.call("config/batchWrite", { edits });
    if (!reply.ok) {
      throw new SetupFailure("codex_hooks_approval_refused", `Codex refused config/batchWrite: ${reply.message}`);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The command

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
  /** The aiterm command the hooks run (default: the registered server command). */
  server?: () => ServerCommand;
  /** The Codex executable (default: CODEX_BIN, standard paths, PATH). */
  codexBin?: string | null;
  /** Codex processes of this user now (default: from the process table). */
  listProcesses?: () => ProcessRef[];
  /** Bound on each app-server exchange (default 30 s). */
  timeoutMs?: number;
}

/** Codex processes of this user (`codex`, `codex.exe`), with their start identity. */
export function codexProcesses(os: SetupOs = currentOs()): ProcessRef[] {
  const pids: number[] = [];
  try {
    if (os === "windows") {
      const out = new Deno.Command("tasklist", {
        args: ["/FO", "CSV", "/NH", "/FI", "IMAGENAME eq codex.exe"],
        stdout: "piped",
        stderr: "null",
      }).outputSync();
      for (const line of new TextDecoder().decode(out.stdout).split(/\r?\n/)) {
        const m = /^"codex\.exe","(\d+)"/i.exec(line);
        if (m) pids.push(Number(m[1]));
      }
    } else {
      const out = new Deno.Command("ps", { args: ["-A", "-o", "pid=,uid=,comm="], stdout: "piped", stderr: "null" })
        .outputSync();
      const uid = Deno.uid();
      for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
        const m = /^\s*(\d+)\s+(\d+)\s+(.+?)\s*$/.exec(line);
        if (m && (uid === null || Number(m[2]) === uid) && basename(m[3]!) === "codex") pids.push(Number(m[1]));
      }
    }
  } catch {
    // no process table tool: nothing known to restart
  }
  return pids.filter((p) => p !== Deno.pid).map((pid) => ({ pid, start: processStartIdentity(pid) }));
}

function failure(err: unknown): { reason_code: string; detail: string } {
  if (err instanceof SetupFailure) return { reason_code: err.reasonCode, detail: err.message };
  return { reason_code: "internal", detail: `unexpected failure: ${err instanceof Error ? err.message : String(err)}` };
}

interface Ctx {
  request: "status" | "enable" | "disable";
  os: SetupOs;
  codexHome: string;
  hooksJson: string;
  stateDir: string;
  options: CodexSteerOptions;
}

function details(ctx: Ctx, hooks: ListedHook[], restart: number[]): CodexSteerDetails {
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

function api(ctx: Ctx, bin: string): CodexApi {
  return { codexBin: bin, codexHome: ctx.codexHome, env: ctx.options.env, timeoutMs: ctx.options.timeoutMs ?? 30_000 };
}

function codexBinOf(options: CodexSteerOptions): string {
  const bin = options.codexBin !== undefined
    ? options.codexBin
    : resolveBinary(harnessBinary("codex-cli"), options.env);
  if (!bin) throw new SetupFailure("codex_not_found", "no codex CLI found (CODEX_BIN, PATH) to approve the hooks with");
  return bin;
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
  const ctx: Ctx = {
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

async function enable(ctx: Ctx): Promise<CodexSteerResult> {
  const base = { action: "codex_steer" as const, request: ctx.request };
  try {
    if (!(await Deno.stat(ctx.codexHome)).isDirectory) throw new Error("not a directory");
  } catch {
    throw new SetupFailure("codex_home_missing", `CODEX_HOME ${ctx.codexHome} is not a directory; start Codex once`);
  }
  const server = (ctx.options.server ?? serverCommand)();
  const bin = codexBinOf(ctx.options);
  // Before anything changes: the Codex processes that will not see the new hooks until restarted.
  const running = (ctx.options.listProcesses ?? (() => codexProcesses(ctx.os)))();
  const change = await updateJsonConfig(
    ctx.hooksJson,
    ({ text }) => addCodexSteerHooks(text, server, ctx.os),
    { jsonc: false, dryRun: ctx.options.dryRun },
  );
  const where = {
    config_path: ctx.hooksJson,
    config_path_kind: change.kind,
    ...(change.backup ? { backup_path: change.backup } : {}),
  };
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

async function disable(ctx: Ctx): Promise<CodexSteerResult> {
  const base = { action: "codex_steer" as const, request: ctx.request };
  const server = (ctx.options.server ?? serverCommand)();
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
  const where = {
    config_path: ctx.hooksJson,
    config_path_kind: change.kind,
    ...(change.backup ? { backup_path: change.backup } : {}),
  };
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

async function status(ctx: Ctx): Promise<CodexSteerResult> {
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
  const server = (ctx.options.server ?? serverCommand)();
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
