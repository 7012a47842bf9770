import { assertEquals } from "../../../tests/helpers/assert.ts";
import { type DeliveryRecord } from "../../../lib/state/mod.ts";
import { deliveryRecord, makeReady, tempParentStore } from "./parent_test_kit.ts";
import { type DeliveryReceiver, receiveDelivery } from "./receive.ts";

const KIND = "cursor";

function receiver(out: string[], endsWith: (rec: DeliveryRecord | null) => number | null): DeliveryReceiver {
  return {
    kind: KIND,
    name: "test_receiver",
    write: (text) => Promise.resolve(void out.push(text)),
    endsWith,
    handOver: { taken: 10, lost: 11, failed: 12 },
    timeout: { errorCode: "TEST_TIMEOUT", exit: 13 },
  };
}

const waitOnly = (rec: DeliveryRecord | null) => rec?.state === "waiting" ? null : 20;

Deno.test("receiveDelivery() waits for a ready body, hands it over once and exits with the taken code", async () => {
  await using store = await tempParentStore();
  const rec = deliveryRecord(KIND);
  await store.create(rec);
  const out: string[] = [];
  const got = receiveDelivery(store, rec.delivery_id, receiver(out, waitOnly), { timeoutMs: 5000, pollMs: 5 });
  await makeReady(store, rec, "the answer");
  assertEquals(await got, 10);
  assertEquals(out.length, 1);
  assertEquals(out[0]!.endsWith("\n"), true);
  const after = await store.read(KIND, rec.delivery_id);
  assertEquals([after?.state, after?.received_by], ["submitted", "test_receiver"]);
  // Taken already: the next receiver is told by its own code for that state.
  assertEquals(await receiveDelivery(store, rec.delivery_id, receiver([], waitOnly), { timeoutMs: 0, pollMs: 5 }), 20);
});

Deno.test("receiveDelivery(): a wait past its budget, or aborted, fails the delivery with the receiver's code", async () => {
  await using store = await tempParentStore();
  const late = deliveryRecord(KIND);
  await store.create(late);
  assertEquals(
    await receiveDelivery(store, late.delivery_id, receiver([], waitOnly), { timeoutMs: 20, pollMs: 5 }),
    13,
  );
  const a = await store.read(KIND, late.delivery_id);
  assertEquals([a?.state, a?.error_code], ["failed", "TEST_TIMEOUT"]);
  const aborted = deliveryRecord(KIND);
  await store.create(aborted);
  const stop = new AbortController();
  const got = receiveDelivery(store, aborted.delivery_id, receiver([], waitOnly), {
    timeoutMs: 60_000,
    pollMs: 1000,
    signal: stop.signal,
  });
  stop.abort();
  assertEquals(await got, 13);
  assertEquals((await store.read(KIND, aborted.delivery_id))?.state, "failed");
  // No record at all: the receiver's own code, nothing written.
  assertEquals(
    await receiveDelivery(store, crypto.randomUUID(), receiver([], waitOnly), { timeoutMs: 0, pollMs: 5 }),
    20,
  );
});
