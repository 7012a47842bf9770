/**
 * The part of a Codex steer hook that talks to Codex (see steer_hook.ts for the rules): list the
 * thread's whole queue, settle records of owners that died, then claim and delete aiterm's entries one
 * at a time, each only after its ownership record says so.
 */
import { AppError } from "../../../base/errors.ts";
import {
  createExclusiveJson,
  type DeliveryRecord,
  type DeliveryStore,
  ensurePrivateDir,
  me,
  readJsonFile,
  writeJsonAtomic,
} from "../../../state/mod.ts";
import { join } from "node:path";
import { AppServer, type AppServerFailure, recordOf } from "./app_server.ts";
import { listQueue } from "./queue_list.ts";
import {
  type CodexHookEvent,
  type HookOwnership,
  markUnknown,
  needsResolving,
  type Owned,
  ownershipsIn,
  sha256,
} from "./steer_state.ts";

/** An aiterm delivery whose answer may be in this thread's queue. */
export interface Candidate {
  store: DeliveryStore;
  record: DeliveryRecord;
  text: string;
  sha: string;
  path: string;
}

/** The hook's input as it matters here. */
export interface HookInput {
  event: CodexHookEvent;
  threadId: string;
  turnId: string | null;
  toolUseId: string | null;
}

/** What taking from the queue needs (a subset of CodexSteerDeps). */
export interface TakeDeps {
  store: DeliveryStore;
  hookStateDir: string;
  codexHome: string;
  codexBin: string | null;
  env: Record<string, string>;
  timeoutMs?: number;
}

const CLIENT_INFO = { name: "aiterm-codex-steer", title: "aiterm codex steer", version: "1" };
const DEFAULT_TIMEOUT_MS = 20_000;

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

function hookError(f: AppServerFailure): AppError {
  const note = f.stderrTail ? `; stderr: ${f.stderrTail}` : "";
  if (f.kind === "interrupted") {
    return new AppError(
      "CODEX_HOOK_DELIVERY_UNCONFIRMED",
      `Cannot confirm a queue entry was removed for the Codex hook: "${f.command}" ${f.what}${note}`,
      { data: { ...f.data, stderr_tail: f.stderrTail } },
    );
  }
  return new AppError(
    "CODEX_APP_SERVER_UNAVAILABLE",
    `Cannot read the Codex queue for the hook: "${f.command}" ${f.what}${note}`,
    { data: { ...f.data, stderr_tail: f.stderrTail } },
  );
}

/** One text of a queue entry (its text inputs joined), or null when it holds anything else. */
function entryText(entry: Record<string, unknown>): string | null {
  if (!Array.isArray(entry.input) || entry.input.length === 0) return null;
  let text = "";
  for (const item of entry.input) {
    const i = recordOf(item);
    if (i?.type !== "text" || typeof i.text !== "string") return null;
    text += i.text;
  }
  return text;
}

/** Lists the whole queue, settles dead owners' records, then claims and deletes our entries. */
export async function takeFromQueue(
  deps: TakeDeps,
  input: HookInput,
  dir: string,
  candidates: Map<string, Candidate>,
): Promise<Candidate[]> {
  const conn = AppServer.spawn(
    { codexBin: deps.codexBin!, codexHome: deps.codexHome, env: deps.env },
    { timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS, cwd: deps.codexHome, error: hookError },
  );
  const taken: Candidate[] = [];
  try {
    await conn.initialize(CLIENT_INFO);
    const queue = await listQueue(conn, input.threadId);
    const inQueue = new Set(queue.map((e) => e.clientUserMessageId).filter((v): v is string => typeof v === "string"));
    await settle(await ownershipsIn(dir), deps.store, inQueue);
    ensurePrivateDir(deps.hookStateDir);
    ensurePrivateDir(join(deps.hookStateDir, "threads"));
    ensurePrivateDir(dir);
    for (const entry of queue) {
      const c = typeof entry.clientUserMessageId === "string" ? candidates.get(entry.clientUserMessageId) : undefined;
      const entryId = str(entry.id);
      const text = entryText(entry);
      // Ours only when the id is an aiterm delivery of this thread AND the text is that delivery's body.
      if (!c || !entryId || text === null || sha256(text) !== c.sha) continue;
      const base: HookOwnership = {
        schema: "aiterm.codex-hook-ownership.v1",
        codex_home: deps.codexHome,
        thread_id: input.threadId,
        delivery_id: c.record.delivery_id,
        queued_submission_id: entryId,
        body_sha256: c.sha,
        state: "claimed",
        hook: input.event,
        turn_id: input.turnId,
        tool_use_id: input.toolUseId,
        owner: me(),
        at_ms: Date.now(),
      };
      if (!(await createExclusiveJson(c.path, base))) continue;
      await writeJsonAtomic(c.path, { ...base, state: "deleting", at_ms: Date.now() });
      conn.markSent();
      let reply;
      try {
        reply = await conn.call("thread/queue/delete", { threadId: input.threadId, queuedSubmissionId: entryId });
      } catch {
        // The delete may have happened and nothing will output it: unknown, never resent.
        await markUnknown(c.store, c.path, c.record.delivery_id, input.event);
        break;
      }
      const deleted = reply.ok && recordOf(reply.result)?.deleted === true;
      if (!reply.ok) {
        // Codex refused: the entry is still queued and will run normally; let a later hook try again.
        await Deno.remove(c.path).catch(() => {});
        continue;
      }
      if (!deleted) {
        await writeJsonAtomic(c.path, { ...base, state: "left_queue", owner: null, at_ms: Date.now() });
        continue;
      }
      await writeJsonAtomic(c.path, { ...base, state: "deleted", at_ms: Date.now() });
      taken.push(c);
    }
    // Our deliveries the queue no longer holds went out normally (or were never added): remember that.
    for (const c of candidates.values()) {
      if (inQueue.has(c.record.delivery_id) || taken.includes(c)) continue;
      await createExclusiveJson(
        c.path,
        {
          schema: "aiterm.codex-hook-ownership.v1",
          codex_home: deps.codexHome,
          thread_id: input.threadId,
          delivery_id: c.record.delivery_id,
          queued_submission_id: c.record.queued_submission_id,
          body_sha256: c.sha,
          state: "left_queue",
          hook: null,
          turn_id: null,
          tool_use_id: null,
          owner: null,
          at_ms: Date.now(),
        } satisfies HookOwnership,
      );
    }
  } finally {
    await conn.close();
  }
  return taken;
}

/**
 * Settles records whose owner died: a claim that never sent its delete is released; a delete whose
 * entry is still queued is released; a delete whose entry is gone, or a body deleted but not output,
 * is unknown (the delivery too). Each record is re-read just before it is changed.
 */
async function settle(owned: Map<string, Owned>, store: DeliveryStore, inQueue: Set<string>): Promise<void> {
  for (const { path, rec } of owned.values()) {
    if (!needsResolving(rec)) continue;
    const again = await readJsonFile<HookOwnership>(path).catch(() => null);
    if (!again || again.state !== rec.state || JSON.stringify(again.owner) !== JSON.stringify(rec.owner)) continue;
    const release = rec.state === "claimed" || (rec.state === "deleting" && inQueue.has(rec.delivery_id));
    if (release) await Deno.remove(path).catch(() => {});
    else await markUnknown(store, path, rec.delivery_id, rec.hook);
  }
}
