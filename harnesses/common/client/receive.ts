/**
 * A receiving end that waits for one delivery's body and takes it (Claude Code's PostToolUse hook,
 * Cursor's receive process): woken by the record's change (a file watch), with a poll as the fallback
 * where watches fail. Each vendor says, in exit codes, how each state ends its wait.
 */
import { waitUntil } from "../../../base/wait.ts";
import type { DeliveryRecord, DeliveryStore, ParentKind } from "../../../lib/state/mod.ts";
import { FileWaker } from "../../../platform/mod.ts";

/** One vendor's receiving end: where the body goes and the exit code of each way the wait ends. */
export interface DeliveryReceiver {
  kind: ParentKind;
  /** The receiver's name in the record (`received_by`). */
  name: string;
  /** Writes the body where the client reads it. */
  write(text: string): Promise<void>;
  /** The exit code of a record that is neither ready nor worth waiting for (null: keep waiting); not asked of a ready one. */
  endsWith(rec: DeliveryRecord | null): number | null;
  /** Exit codes of a ready record's hand-over: taken here, taken by another receiver, failed. */
  handOver: { taken: number; lost: number; failed: number };
  /** A wait that outlived its budget or was aborted fails a pending delivery with `errorCode` and exits `exit`. */
  timeout: { errorCode: string; exit: number };
}

/** The budget and the poll of a wait (tests shorten them). */
export interface ReceiveWaitOptions {
  timeoutMs: number;
  pollMs: number;
  signal?: AbortSignal | undefined;
}

/** Waits for delivery `id` in `store` and hands its body to `receiver`; returns the receiver's exit code. */
export async function receiveDelivery(
  store: DeliveryStore,
  id: string,
  receiver: DeliveryReceiver,
  options: ReceiveWaitOptions,
): Promise<number> {
  const { kind } = receiver;
  using waker = new FileWaker(store.dir(kind), [`${id}.json`]);
  // An exit code ends the wait; a record still waiting is looked at again.
  const got = await waitUntil(async (): Promise<number | "waiting"> => {
    const rec = await store.read(kind, id);
    if (rec?.state !== "ready") return receiver.endsWith(rec) ?? "waiting";
    try {
      const taken = await store.handOver(kind, rec, receiver.name, (t) => receiver.write(t + "\n"));
      return taken ? receiver.handOver.taken : receiver.handOver.lost;
    } catch {
      return receiver.handOver.failed;
    }
  }, {
    timeoutMs: options.timeoutMs,
    intervalMs: options.pollMs,
    until: (code) => code !== "waiting",
    wake: waker,
    signal: options.signal,
  });
  if (got.status === "done" && got.value !== "waiting") return got.value;
  await store.update(
    kind,
    id,
    (r) =>
      r.state === "waiting" || r.state === "ready"
        ? { ...r, state: "failed", error_code: receiver.timeout.errorCode }
        : null,
  );
  return receiver.timeout.exit;
}
