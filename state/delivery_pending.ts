/** The parent deliveries still open for one child session (pty_observe's `agent.pending_deliveries`). */
import type { DeliveryState, ParentKind } from "./delivery_record.ts";
import type { DeliveryStore } from "./delivery_store.ts";

/** One open delivery, as pty_observe reports it. */
export interface PendingDelivery {
  delivery_id: string;
  parent: ParentKind;
  state: OpenState;
  cursor: number;
}

/** States in which the answer has not reached the parent yet (failed and unknown are final). */
type OpenState = "waiting" | "ready" | "sending";
const OPEN: ReadonlySet<DeliveryState> = new Set<OpenState>(["waiting", "ready", "sending"]);

function isOpen(state: DeliveryState): state is OpenState {
  return OPEN.has(state);
}

/** The open deliveries of local child `sessionId` (optionally of one generation), oldest first. */
export async function pendingDeliveries(
  store: DeliveryStore,
  sessionId: string,
  generation: string | null,
): Promise<PendingDelivery[]> {
  const out: (PendingDelivery & { at: number })[] = [];
  for (const kind of store.kinds) {
    for (const rec of await store.list(kind)) {
      if (rec.child.session_id !== sessionId || rec.child.remote || !isOpen(rec.state)) continue;
      if (generation && rec.child.generation && rec.child.generation !== generation) continue;
      out.push({
        delivery_id: rec.delivery_id,
        parent: rec.parent,
        state: rec.state,
        cursor: rec.child.cursor,
        at: rec.created_at_ms,
      });
    }
  }
  return out.sort((a, b) => a.at - b.at).map(({ at: _at, ...d }) => d);
}
