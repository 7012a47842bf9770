/**
 * The files of Codex steer (see steer_hook.ts): what `aiterm-mcp setup --codex-steer` selected for a
 * Codex home, and the ownership records hooks use to decide who takes a queue entry. All live in a
 * private directory (`~/.config/aiterm-mcp/codex-parent-hooks/`).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  alive,
  type DeliveryStore,
  ensurePrivateDir,
  type ProcessRef,
  readJsonFile,
  writeJsonAtomic,
} from "../../../state/mod.ts";
import { CODEX_PARENT } from "./parent_kind.ts";

/** The two hook events aiterm installs into Codex. */
export type CodexHookEvent = "post_tool_use" | "stop";

/** `aiterm-mcp hook <name>` of each event (a fixed contract with harnesses/codex/client/steer_setup.ts). */
export const CODEX_STEER_HOOK_NAMES: Record<CodexHookEvent, string> = {
  post_tool_use: "codex-post-tool-use",
  stop: "codex-stop",
};

/** Error code left on a delivery whose hook hand-over cannot be confirmed. */
export const HOOK_UNCONFIRMED = "CODEX_HOOK_DELIVERY_UNCONFIRMED";

/** What `aiterm-mcp setup --codex-steer` last chose for one Codex home (read by the hooks). */
export interface CodexSteerSelection {
  schema: "aiterm.codex-steer-selection.v1";
  codex_home: string;
  state: "enabled" | "disabled";
  /** The hooks.json that holds aiterm's two hooks. */
  hooks_json: string;
  /** aiterm's hooks as Codex lists them, with the hash that was approved. */
  hooks: { name: string; key: string; hash: string }[];
  /** Codex processes that ran before enabling (they loaded their hooks earlier). */
  pre_existing: ProcessRef[];
  updated_at_ms: number;
}

/** One entry's ownership: who took it out of the queue, and how far that got. */
export interface HookOwnership {
  schema: "aiterm.codex-hook-ownership.v1";
  codex_home: string;
  thread_id: string;
  delivery_id: string;
  queued_submission_id: string | null;
  body_sha256: string;
  /** claimed → deleting → deleted → emitted; or left_queue (handed over normally), or unknown. */
  state: "claimed" | "deleting" | "deleted" | "emitted" | "left_queue" | "unknown";
  hook: CodexHookEvent | null;
  turn_id: string | null;
  tool_use_id: string | null;
  owner: ProcessRef | null;
  at_ms: number;
}

/** sha256 hex. */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The user's home directory from the environment. */
function userHome(env: Record<string, string | undefined>): string {
  return env.HOME || env.USERPROFILE || "";
}

/** The Codex home a Codex started with `env` uses: `$CODEX_HOME`, else `~/.codex`. */
export function codexHomeOf(env: Record<string, string | undefined>): string {
  return env.CODEX_HOME || join(userHome(env), ".codex");
}

/** Where selection and ownership records live: `~/.config/aiterm-mcp/codex-parent-hooks`. */
export function codexHookStateDir(env: Record<string, string | undefined>): string {
  return join(userHome(env), ".config", "aiterm-mcp", "codex-parent-hooks");
}

/** A Codex home compared by its real path (a symlinked or relative spelling is the same home). */
export function sameHome(a: string, b: string): boolean {
  return normalHome(a) === normalHome(b);
}

function normalHome(p: string): string {
  let out = p;
  try {
    out = Deno.realPathSync(p);
  } catch {
    // not there (yet): compare as written
  }
  return out.replace(/[\\/]+$/, "");
}

/** The selection record of one Codex home. */
export function selectionPath(hookStateDir: string, codexHome: string): string {
  return join(hookStateDir, `selection-${sha256(normalHome(codexHome)).slice(0, 16)}.json`);
}

/** Reads the selection of a Codex home (null when none, or unreadable). */
export async function readSelection(hookStateDir: string, codexHome: string): Promise<CodexSteerSelection | null> {
  const rec = await readJsonFile<CodexSteerSelection>(selectionPath(hookStateDir, codexHome)).catch(() => null);
  return rec?.schema === "aiterm.codex-steer-selection.v1" ? rec : null;
}

/** Saves the selection of a Codex home (private directory, atomic). */
export async function writeSelection(hookStateDir: string, sel: CodexSteerSelection): Promise<void> {
  ensurePrivateDir(hookStateDir);
  await writeJsonAtomic(selectionPath(hookStateDir, sel.codex_home), sel);
}

/** The private directory of one Codex home and thread. */
export function threadDir(hookStateDir: string, codexHome: string, threadId: string): string {
  return join(hookStateDir, "threads", sha256(`${normalHome(codexHome)}\0${threadId}`).slice(0, 32));
}

/** The ownership record of one delivery's queue entry (its body's hash in the name). */
export function ownershipPath(dir: string, deliveryId: string, bodySha: string): string {
  return join(dir, `${deliveryId}-${bodySha.slice(0, 16)}.json`);
}

/** An ownership record and where it is. */
export interface Owned {
  path: string;
  rec: HookOwnership;
}

/** The ownership records of one thread's directory. */
export async function ownershipsIn(dir: string): Promise<Map<string, Owned>> {
  const out = new Map<string, Owned>();
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !/^[0-9a-f-]{36}-[0-9a-f]{16}\.json$/.test(e.name)) continue;
      const path = join(dir, e.name);
      const rec = await readJsonFile<HookOwnership>(path).catch(() => null);
      if (rec?.schema === "aiterm.codex-hook-ownership.v1") out.set(path, { path, rec });
    }
  } catch {
    // no directory yet
  }
  return out;
}

/** An entry whose owner died before finishing. */
export function needsResolving(o: HookOwnership): boolean {
  return (o.state === "claimed" || o.state === "deleting" || o.state === "deleted") && !alive(o.owner);
}

/** Rewrites an ownership record (when it still exists). */
export async function setOwnership(path: string, change: (o: HookOwnership) => HookOwnership): Promise<void> {
  const cur = await readJsonFile<HookOwnership>(path).catch(() => null);
  if (cur) await writeJsonAtomic(path, { ...change(cur), at_ms: Date.now() });
}

/** The hand-over of one delivery cannot be confirmed: its record and the delivery become unknown. */
export async function markUnknown(store: DeliveryStore, path: string, deliveryId: string, hook: CodexHookEvent | null) {
  await setOwnership(path, (o) => ({ ...o, state: "unknown", owner: null }));
  for (const s of store.all()) {
    await s.update(CODEX_PARENT, deliveryId, (r) => ({
      ...r,
      state: "unknown",
      sender: null,
      error_code: HOOK_UNCONFIRMED,
      received_by: hook ? `codex_${hook}` : r.received_by,
    }));
  }
}
