/**
 * Codex steer: synchronous Codex hooks that hand an aiterm answer, already waiting in the parent
 * thread's official queue, to the turn that is running now instead of the next one.
 *
 * - `PostToolUse` (after any tool call) returns the answers as `additionalContext`, which Codex adds
 *   to the model's context before it continues the same turn.
 * - `Stop` (the turn is about to end) returns them as `decision: "block"` with the answers as
 *   `reason`, which Codex turns into a continuation prompt of the same turn.
 *
 * The queue stays the only way in: the manager queues every answer (codex_queue.ts), and a hook only
 * takes an entry out again. A hook acts only while `setup --codex-steer enable` is the selection for
 * its Codex home (so `disable` stops running Codex processes at once). Rules, in the order they apply:
 * - Only entries whose clientUserMessageId is an aiterm delivery of this Codex home and thread, and
 *   whose text hashes to that delivery's body, are touched; every page of the queue is read first.
 *   Nothing else in the queue is ever changed.
 * - Concurrent hooks decide who takes an entry by creating its ownership record with an exclusive
 *   hard link in a private directory (`~/.config/aiterm-mcp/codex-parent-hooks/`).
 * - The owner records its process (pid + start identity) before `thread/queue/delete`, and outputs a
 *   body only when Codex answered `deleted: true`.
 * - A lost answer to the delete, a failed output, or an owner that died after deleting leaves the
 *   delivery `unknown` with CODEX_HOOK_DELIVERY_UNCONFIRMED; the body stays in the store and is never
 *   sent again.
 * - Deliveries the queue handed over normally leave a `left_queue` record, so later hooks do not
 *   start an app-server for them again; records of deliveries the store no longer has are removed.
 */
import { type DeliveryStore, envelope } from "../../../state/mod.ts";
import type { HookContext } from "../../common/client/mod.ts";
import { recordOf } from "./app_server.ts";
import { CODEX_PARENT, THREAD_ID } from "./parent_kind.ts";
import {
  type CodexHookEvent,
  markUnknown,
  needsResolving,
  type Owned,
  ownershipPath,
  ownershipsIn,
  readSelection,
  sameHome,
  setOwnership,
  sha256,
  threadDir,
} from "./steer_state.ts";
import { type Candidate, type HookInput, takeFromQueue } from "./steer_take.ts";

/** What a hook needs. */
export interface CodexSteerDeps {
  /** The delivery store of the state root (local children; the remote store is derived). */
  store: DeliveryStore;
  /** `~/.config/aiterm-mcp/codex-parent-hooks` (see {@link codexHookStateDir}). */
  hookStateDir: string;
  /** The CODEX_HOME of the Codex that runs the hook. */
  codexHome: string;
  /** The Codex executable for the app-server; null when none is found. */
  codexBin: string | null;
  /** Environment of the app-server. */
  env: Record<string, string>;
  /** Where the hook's answer to Codex goes (stdout). */
  write: HookContext["write"];
  /** Bound on the app-server exchange (default 20 s). */
  timeoutMs?: number;
  /** Act only when steer is enabled for `codexHome` (default true). */
  requireSelection?: boolean;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

function parseInput(event: CodexHookEvent, stdin: string): HookInput | null {
  let v: Record<string, unknown> | null;
  try {
    v = recordOf(JSON.parse(stdin));
  } catch {
    return null;
  }
  const threadId = str(v?.session_id);
  // A native sub-agent is never a delivery parent: its hooks carry agent_id.
  if (!v || !threadId || !THREAD_ID.test(threadId) || str(v.agent_id)) return null;
  return { event, threadId, turnId: str(v.turn_id), toolUseId: str(v.tool_use_id) };
}

/**
 * Runs one Codex steer hook: reads the hook's JSON input, takes this thread's aiterm answers out of
 * the queue and writes them in the form Codex reads for `event`. Returns the exit code: 0 (also
 * when there was nothing to take, or the app-server could not be reached: the answers stay queued),
 * 1 when the output failed (those deliveries are `unknown`).
 */
export async function codexSteerHook(event: CodexHookEvent, stdin: string, deps: CodexSteerDeps): Promise<number> {
  const input = parseInput(event, stdin);
  if (!input) return 0;
  if (deps.requireSelection !== false) {
    const sel = await readSelection(deps.hookStateDir, deps.codexHome);
    if (sel?.state !== "enabled") return 0;
  }
  const dir = threadDir(deps.hookStateDir, deps.codexHome, input.threadId);
  const candidates = await candidatesFor(deps, input.threadId, dir);
  const owned = await ownershipsIn(dir);
  const open = [...candidates.values()].some((c) => !owned.has(c.path));
  const stale = [...owned.values()].some((o) => needsResolving(o.rec));
  if (!open && !stale) {
    await pruneRecords(owned, deps.store);
    return 0;
  }
  if (!deps.codexBin) {
    await note(deps, "no codex binary found; the answers stay in the queue");
    return 0;
  }
  let taken: Candidate[];
  try {
    taken = await takeFromQueue(deps, input, dir, candidates);
  } catch (err) {
    await note(deps, (err as Error).message);
    return 0;
  }
  if (taken.length === 0) return 0;
  const text = taken.map((c) => c.text).join("\n\n");
  const out = event === "post_tool_use"
    ? { hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: text } }
    : { decision: "block", reason: text };
  try {
    await deps.write("stdout", JSON.stringify(out) + "\n");
  } catch {
    for (const c of taken) await markUnknown(c.store, c.path, c.record.delivery_id, event);
    return 1;
  }
  for (const c of taken) {
    // The delivery first, so a record marked emitted never belongs to a delivery that still looks queued.
    await c.store.update(CODEX_PARENT, c.record.delivery_id, (r) => ({
      ...r,
      state: "submitted",
      sender: null,
      error_code: null,
      received_by: `codex_${event}`,
    }));
    await setOwnership(c.path, (o) => ({ ...o, state: "emitted", owner: null }));
  }
  return 0;
}

async function note(deps: CodexSteerDeps, text: string): Promise<void> {
  await deps.write("stderr", `aiterm codex steer: ${text}\n`).catch(() => {});
}

/** aiterm deliveries of this home and thread whose answer was queued (or may have been). */
async function candidatesFor(deps: CodexSteerDeps, threadId: string, dir: string): Promise<Map<string, Candidate>> {
  const out = new Map<string, Candidate>();
  for (const store of deps.store.all()) {
    for (const rec of await store.list(CODEX_PARENT)) {
      const queued = (rec.state === "submitted" && rec.received_by === "codex_queue") ||
        (rec.state === "unknown" && rec.error_code === "CODEX_QUEUE_UNCONFIRMED");
      const d = rec.destination;
      if (!queued || d.thread_id !== threadId || !d.codex_home || !sameHome(d.codex_home, deps.codexHome)) continue;
      const body = await store.readBody(CODEX_PARENT, rec.delivery_id);
      if (body === null) continue;
      const text = envelope(rec, body);
      const sha = sha256(text);
      out.set(rec.delivery_id, { store, record: rec, text, sha, path: ownershipPath(dir, rec.delivery_id, sha) });
    }
  }
  return out;
}

/** Removes finished records whose delivery no longer waits in any queue (the store moved on or dropped it). */
async function pruneRecords(owned: Map<string, Owned>, store: DeliveryStore): Promise<void> {
  for (const { path, rec } of owned.values()) {
    if (rec.state !== "emitted" && rec.state !== "left_queue") continue;
    let found = false;
    for (const s of store.all()) {
      if (await s.read(CODEX_PARENT, rec.delivery_id)) found = true;
    }
    if (!found || rec.state === "emitted") await Deno.remove(path).catch(() => {});
  }
}
