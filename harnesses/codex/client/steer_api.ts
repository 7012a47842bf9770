/**
 * Codex's own view of the steer hooks through its app-server: `hooks/list` (key, currentHash, trust)
 * and `config/batchWrite` approving exactly aiterm's two keys, then a fresh read-back.
 */
import { AppServer, type AppServerFailure, recordOf } from "./app_server.ts";
import { type ServerCommand, SetupFailure } from "../../common/client/mod.ts";
import { CODEX_STEER_SPECS, codexHooksPath, codexSteerGroup } from "./steer_edit.ts";

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

export async function withApi<T>(api: CodexApi, fn: (conn: AppServer) => Promise<T>): Promise<T> {
  const conn = AppServer.spawn(api, { timeoutMs: api.timeoutMs, cwd: api.codexHome, error: apiError });
  try {
    await conn.initialize(CLIENT_INFO);
    return await fn(conn);
  } finally {
    await conn.close();
  }
}

export async function listHooks(
  conn: AppServer,
  codexHome: string,
): Promise<{ hooks: ListedHook[]; errors: string[] }> {
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

export function realOr(p: string): string {
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
export async function forgetApproval(api: CodexApi, keys: string[]): Promise<void> {
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
