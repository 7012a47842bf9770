/** What the parent integrations' tests share: a throwaway delivery store, records, and a hook context that collects output. */
import { join } from "node:path";
import { type DeliveryNotice, type DeliveryRecord, DeliveryStore, type ParentKind } from "../../../state/mod.ts";
import type { HookContext } from "./parent.ts";

/** The record directories of the three parent kinds, as the registry gives them (harnesses/mod.ts). */
export const PARENT_DIRS = {
  codex: "parent-deliveries",
  claude: "claude-parent-deliveries",
  cursor: "cursor-parent-deliveries",
};

/** A delivery store in a new temporary directory, removed on dispose. */
export async function tempParentStore(): Promise<DeliveryStore & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "ait-deliv-" });
  const store = new DeliveryStore(join(dir, "state"), PARENT_DIRS) as DeliveryStore & AsyncDisposable;
  store[Symbol.asyncDispose] = () => Deno.remove(dir, { recursive: true });
  return store;
}

/** A waiting delivery of `kind` for turn 2 of child "child" (claude-code), owned by this process. */
export function deliveryRecord(kind: ParentKind, over: Partial<DeliveryRecord> = {}): DeliveryRecord {
  const now = Date.now();
  return {
    schema: "aiterm.parent-delivery.v1",
    delivery_id: crypto.randomUUID(),
    parent: kind,
    destination: {},
    child: { session_id: "child", launch_id: "L", harness: "claude-code", cursor: 2, generation: null },
    state: "waiting",
    child_outcome: null,
    child_turn_id: null,
    child_error: null,
    queued_submission_id: null,
    error_code: null,
    owner: { pid: Deno.pid, start: null },
    sender: null,
    received_by: null,
    created_at_ms: now,
    ready_at_ms: null,
    updated_at_ms: now,
    ...over,
  };
}

/** Saves `body` and marks the record ready, as the server does when the child's turn ends. */
export async function makeReady(store: DeliveryStore, rec: DeliveryRecord, body: string): Promise<void> {
  await store.saveBody(rec.parent, rec.delivery_id, body);
  await store.update(rec.parent, rec.delivery_id, (r) => ({
    ...r,
    state: "ready",
    child_outcome: "done",
    child_turn_id: "t-2",
    ready_at_ms: Date.now(),
  }));
}

/** Adds a ready notice to a record, as the server does when the child's turn stops on a dialog; returns its n. */
export async function addNotice(store: DeliveryStore, rec: DeliveryRecord, text: string): Promise<number> {
  let n = 0;
  await store.update(rec.parent, rec.delivery_id, (r) => {
    n = (r.notices?.at(-1)?.n ?? 0) + 1;
    const notice: DeliveryNotice = {
      n,
      reason: "approval_required",
      digest: null,
      text,
      state: "ready",
      received_by: null,
      queued_submission_id: null,
      error_code: null,
      seen_at_ms: Date.now(),
      ready_at_ms: Date.now(),
      handed_at_ms: null,
      ended_at_ms: null,
    };
    return { ...r, notices: [...(r.notices ?? []), notice] };
  });
  return n;
}

/** A hook context over `store` whose output is collected in `out` (or that fails every write). */
export function collectingContext(
  store: DeliveryStore,
  options: { broken?: boolean } = {},
): { ctx: HookContext; out: { stdout: string; stderr: string } } {
  const out = { stdout: "", stderr: "" };
  const write: HookContext["write"] = (stream, text) => {
    if (options.broken) return Promise.reject(new Error("EPIPE"));
    out[stream] += text;
    return Promise.resolve();
  };
  return { out, ctx: { store, env: {}, write } };
}
