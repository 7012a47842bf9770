import { assertEquals } from "../../../tests/helpers/assert.ts";
import { type DeliveryRecord } from "../../../state/mod.ts";
import { addNotice, deliveryRecord, makeReady, tempParentStore } from "./parent_test_kit.ts";
import { type DeliveryReceiver, receiveDelivery } from "./receive.ts";

const KIND = "cursor";

function receiver(out: string[], endsWith: (rec: DeliveryRecord | null) => number | null): DeliveryReceiver {
  return {
    kind: KIND,
    name: "test_receiver",
    write: (text) => Promise.resolve(void out.push(text)),
    endsWith,
    handOver: { taken: 10, lost: 11, failed: 12 },
    notice: 14,
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

Deno.test("receiveDelivery(): a notice is handed over once, before the answer, with the notice code", async () => {
  await using store = await tempParentStore();
  const rec = deliveryRecord(KIND);
  await store.create(rec);
  const out: string[] = [];
  const first = receiveDelivery(store, rec.delivery_id, receiver(out, waitOnly), { timeoutMs: 5000, pollMs: 5 });
  await addNotice(store, rec, "stuck on `rm -rf $HOME` # { } ( ) ; \\ [ ]\nsecond line");
  assertEquals(await first, 14);
  assertEquals(out, ["stuck on `rm -rf $HOME` # { } ( ) ; \\ [ ]\nsecond line\n"]);
  const after = await store.read(KIND, rec.delivery_id);
  assertEquals([after?.state, after?.notices?.[0]?.state, after?.notices?.[0]?.received_by], [
    "waiting",
    "submitted",
    "test_receiver",
  ]);
  // The notice is not taken twice: a second receiver waits on, and gets the answer.
  const second: string[] = [];
  const next = receiveDelivery(store, rec.delivery_id, receiver(second, waitOnly), { timeoutMs: 5000, pollMs: 5 });
  await makeReady(store, rec, "the answer");
  assertEquals(await next, 10);
  assertEquals(second.length, 1);
  assertEquals(second[0]!.includes("the answer"), true);
});

Deno.test("receiveDelivery() over several deliveries takes the first message of any, and one that ends drops out", async () => {
  await using store = await tempParentStore();
  const a = deliveryRecord(KIND);
  const b = deliveryRecord(KIND);
  await store.create(a);
  await store.create(b);
  const out: string[] = [];
  const got = receiveDelivery(store, [a.delivery_id, b.delivery_id], receiver(out, waitOnly), {
    timeoutMs: 5000,
    pollMs: 5,
  });
  // a ends without anything for this receiver (failed elsewhere): the wait goes on for b.
  await store.update(KIND, a.delivery_id, (r) => ({ ...r, state: "failed", error_code: "X" }));
  await new Promise((r) => setTimeout(r, 30));
  await addNotice(store, b, "b is stuck");
  assertEquals(await got, 14);
  assertEquals(out, ["b is stuck\n"]);
  // A receiver that is one of several fails nothing when its budget ends.
  const quiet = { ...receiver([], waitOnly), timeout: { errorCode: null, exit: 15 } };
  assertEquals(await receiveDelivery(store, [b.delivery_id], quiet, { timeoutMs: 20, pollMs: 5 }), 15);
  assertEquals((await store.read(KIND, b.delivery_id))?.state, "waiting");
});

Deno.test("handOverNotice(): an expired notice or one another receiver claimed is not written", async () => {
  await using store = await tempParentStore();
  const rec = deliveryRecord(KIND);
  await store.create(rec);
  const n = await addNotice(store, rec, "old");
  await store.update(KIND, rec.delivery_id, (r) => ({
    ...r,
    notices: r.notices!.map((x) => ({ ...x, state: "expired" as const })),
  }));
  const out: string[] = [];
  const write = (t: string) => Promise.resolve(void out.push(t));
  assertEquals(await store.handOverNotice(KIND, rec.delivery_id, n, "r1", write), false);
  const m = await addNotice(store, rec, "new");
  const both = await Promise.all([
    store.handOverNotice(KIND, rec.delivery_id, m, "r1", write),
    store.handOverNotice(KIND, rec.delivery_id, m, "r2", write),
  ]);
  assertEquals(both.filter(Boolean).length, 1);
  assertEquals(out, ["new"]);
  // A cut-off write leaves the notice unknown, never sent again.
  const k = await addNotice(store, rec, "cut");
  const broken = () => Promise.reject(new Error("EPIPE"));
  let threw = false;
  await store.handOverNotice(KIND, rec.delivery_id, k, "r1", broken).catch(() => threw = true);
  assertEquals(threw, true);
  assertEquals((await store.read(KIND, rec.delivery_id))?.notices?.at(-1)?.state, "unknown");
  assertEquals(await store.handOverNotice(KIND, rec.delivery_id, k, "r2", write), false);
});
