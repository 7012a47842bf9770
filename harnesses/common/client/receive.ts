/**
 * A receiving end that waits for one delivery's next message and takes it (Claude Code's hooks,
 * Cursor's receive process): a notice (the child is stuck and waits for an answer) or the answer.
 * Woken by the record's change (a file watch), with a poll as the fallback where watches fail. Each
 * vendor says, in exit codes, how each state ends its wait.
 */
import { waitUntil } from "../../../base/wait.ts";
import { type DeliveryRecord, type DeliveryStore, type ParentKind, readyNotice } from "../../../state/mod.ts";
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
  /** The exit code after this receiver handed over a notice (the answer comes through another receiver). */
  notice: number;
  /**
   * A wait that outlived its budget or was aborted fails a pending delivery with `errorCode` and exits
   * `exit`; with `errorCode` null it only exits (a receiver that is one of several).
   */
  timeout: { errorCode: string | null; exit: number };
}

/** The budget and the poll of a wait (tests shorten them). */
export interface ReceiveWaitOptions {
  timeoutMs: number;
  pollMs: number;
  signal?: AbortSignal | undefined;
}

/**
 * Waits for the next message of delivery `id` (or of any of several ids) in `store` and hands it to
 * `receiver`: a ready notice first, else a ready answer. Returns the receiver's exit code.
 */
export async function receiveDelivery(
  store: DeliveryStore,
  id: string | readonly string[],
  receiver: DeliveryReceiver,
  options: ReceiveWaitOptions,
): Promise<number> {
  const { kind } = receiver;
  const ids = typeof id === "string" ? [id] : [...id];
  using waker = new FileWaker(store.dir(kind), ids.map((x) => `${x}.json`));
  /** One delivery's look: an exit code, or "waiting" (nothing for this receiver yet). */
  const lookAt = async (one: string): Promise<number | "waiting"> => {
    const rec = await store.read(kind, one);
    const notice = rec ? readyNotice(rec) : null;
    if (rec && notice) {
      try {
        const taken = await store.handOverNotice(kind, one, notice.n, receiver.name, (t) => receiver.write(t + "\n"));
        // Another receiver took it: look again (the next message may be ours).
        return taken ? receiver.notice : "waiting";
      } catch {
        return receiver.handOver.failed;
      }
    }
    if (rec?.state !== "ready") return receiver.endsWith(rec) ?? "waiting";
    try {
      const taken = await store.handOver(kind, rec, receiver.name, (t) => receiver.write(t + "\n"));
      return taken ? receiver.handOver.taken : receiver.handOver.lost;
    } catch {
      return receiver.handOver.failed;
    }
  };
  // An exit code ends the wait; records still waiting are looked at again. With several ids, one that
  // is over (its exit code is not a hand-over) drops out while the others are still waited for.
  const live = new Set(ids);
  const got = await waitUntil(async (): Promise<number | "waiting"> => {
    for (const one of [...live]) {
      const code = await lookAt(one);
      if (code === "waiting") continue;
      const handed = code === receiver.notice || code === receiver.handOver.taken || code === receiver.handOver.failed;
      if (handed || live.size === 1) return code;
      live.delete(one);
    }
    return "waiting";
  }, {
    timeoutMs: options.timeoutMs,
    intervalMs: options.pollMs,
    until: (code) => code !== "waiting",
    wake: waker,
    signal: options.signal,
  });
  if (got.status === "done" && got.value !== "waiting") return got.value;
  const code = receiver.timeout.errorCode;
  if (code === null) return receiver.timeout.exit;
  for (const one of ids) {
    await store.update(
      kind,
      one,
      (r) => r.state === "waiting" || r.state === "ready" ? { ...r, state: "failed", error_code: code } : null,
    );
  }
  return receiver.timeout.exit;
}
