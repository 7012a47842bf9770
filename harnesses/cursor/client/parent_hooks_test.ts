/** Cursor's parent hook and receive process over a real delivery store. */
import { assert, assertEquals, assertStringIncludes } from "../../../tests/helpers/assert.ts";
import type { DeliveryRecord, DeliveryStore } from "../../../state/mod.ts";
import type { HookContext } from "../../common/client/mod.ts";
import {
  addNotice,
  collectingContext,
  deliveryRecord,
  makeReady,
  tempParentStore,
} from "../../common/client/parent_test_kit.ts";
import { cursorParentHook, cursorParentReceive, deliveryIdsIn } from "./parent_hooks.ts";

function cursorRecord(over: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return deliveryRecord("cursor", { destination: { conversation_id: null }, ...over });
}

/** A hook context whose every write goes to `take`. */
function collect(store: DeliveryStore, take: (text: string) => unknown): HookContext {
  return {
    store,
    env: {},
    write: (_s, t) => {
      take(t);
      return Promise.resolve();
    },
  };
}

Deno.test("exactly one of many concurrent receivers takes a body", async () => {
  await using store = await tempParentStore();
  const rec = cursorRecord({ destination: { conversation_id: "c1" } });
  await store.create(rec);
  await makeReady(store, rec, "once");
  const outs: string[] = [];
  const codes = await Promise.all(
    Array.from(
      { length: 8 },
      (_, i) =>
        i % 2
          ? cursorParentReceive(rec.delivery_id, collect(store, (t) => outs.push(t)), { pollMs: 5, timeoutMs: 2000 })
          : cursorParentHook(
            JSON.stringify({ conversation_id: "c1", hook_event_name: "postToolUse" }),
            collect(store, (t) => t.includes("additional_context") && outs.push(t)),
          ),
    ),
  );
  assertEquals(outs.length, 1, `one receiver took it: ${JSON.stringify(outs)}`);
  assertStringIncludes(outs[0]!, "once");
  assert(codes.filter((c, i) => i % 2 === 1 && c === 6).length >= 3, `the other receivers were told: ${codes}`);
  assertEquals((await store.read("cursor", rec.delivery_id))?.state, "submitted");
});

Deno.test("cursor hook binds a delivery from afterMCPExecution's result_json, then postToolUse injects it", async () => {
  await using store = await tempParentStore();
  const rec = cursorRecord();
  await store.create(rec);
  const receipt = { session_id: "child", parent_delivery: { delivery_id: rec.delivery_id, state: "waiting" } };
  const c = collectingContext(store);
  await cursorParentHook(
    JSON.stringify({
      conversation_id: "conv-A",
      hook_event_name: "afterMCPExecution",
      tool_name: "agent_launch",
      result_json: JSON.stringify({
        content: [{ type: "text", text: `session_id: child\n${JSON.stringify(receipt)}` }],
      }),
    }),
    c.ctx,
  );
  assertEquals(c.out.stdout, "{}\n");
  assertEquals((await store.read("cursor", rec.delivery_id))?.destination.conversation_id, "conv-A");
  // Not ready yet: nothing injected. Another conversation never gets it.
  const early = collectingContext(store);
  await cursorParentHook(
    JSON.stringify({ conversation_id: "conv-A", hook_event_name: "postToolUse" }),
    early.ctx,
  );
  assertEquals(early.out.stdout, "{}\n");
  await makeReady(store, rec, "ANSWER body");
  const wrong = collectingContext(store);
  await cursorParentHook(
    JSON.stringify({ conversation_id: "conv-B", hook_event_name: "postToolUse" }),
    wrong.ctx,
  );
  assertEquals(wrong.out.stdout, "{}\n");
  const right = collectingContext(store);
  await cursorParentHook(
    JSON.stringify({ conversation_id: "conv-A", hook_event_name: "postToolUse" }),
    right.ctx,
  );
  const injected = JSON.parse(right.out.stdout) as { additional_context: string };
  assertStringIncludes(injected.additional_context, "ANSWER body");
  assertEquals(await cursorParentReceive(rec.delivery_id, collectingContext(store).ctx, { timeoutMs: 0 }), 6);
});

Deno.test("cursor receive: unclaimed past the limit → failed with the body kept; unknown id → 4", async () => {
  await using store = await tempParentStore();
  const rec = cursorRecord();
  await store.create(rec);
  assertEquals(
    await cursorParentReceive(rec.delivery_id, collectingContext(store).ctx, { timeoutMs: 20, pollMs: 5 }),
    3,
  );
  const after = await store.read("cursor", rec.delivery_id);
  assertEquals([after?.state, after?.error_code], ["failed", "CURSOR_PARENT_UNCLAIMED"]);
  assertEquals(await cursorParentReceive(crypto.randomUUID(), collectingContext(store).ctx, { timeoutMs: 0 }), 4);
});

Deno.test("delivery ids are found in structuredContent, in text content JSON, nested or not at all", () => {
  const id = "0b8f7a52-3c1e-4a51-9b0e-2f7d6c1a9e33";
  assertEquals(deliveryIdsIn({ structuredContent: { parent_delivery: { delivery_id: id } } }), [id]);
  assertEquals(
    deliveryIdsIn(JSON.stringify([{ type: "text", text: `x\n{"parent_delivery":{"delivery_id":"${id}"}}` }])),
    [
      id,
    ],
  );
  assertEquals(deliveryIdsIn({ parent_delivery: { delivery_id: "../../etc" } }), []);
  assertEquals(deliveryIdsIn("plain text"), []);
});

Deno.test("the receive process is woken by the record's change, not by its poll (a file watch)", async () => {
  await using store = await tempParentStore();
  const t0 = Date.now();
  const cur = cursorRecord();
  await store.create(cur);
  const out = collectingContext(store);
  const receive = cursorParentReceive(cur.delivery_id, out.ctx, { pollMs: 600_000, timeoutMs: 10_000 });
  await new Promise((r) => setTimeout(r, 50));
  await makeReady(store, cur, "cursor body");
  assertEquals(await receive, 0);
  assertStringIncludes(out.out.stdout, "cursor body");
  const waited = Date.now() - t0;
  assert(waited < 5000, `the answer came at ${waited} ms: from the limit's last look, not from the writes`);
});

Deno.test("cursor: a notice reaches the receive process (exit 5) or the next postToolUse, once; the answer follows", async () => {
  await using store = await tempParentStore();
  const rec = cursorRecord({ destination: { conversation_id: "c1" } });
  await store.create(rec);
  const got: string[] = [];
  const receiving = cursorParentReceive(rec.delivery_id, collect(store, (t) => got.push(t)), {
    pollMs: 5,
    timeoutMs: 5000,
  });
  await addNotice(store, rec, "notice: the child waits");
  assertEquals(await receiving, 5);
  assertEquals(got, ["notice: the child waits\n"]);
  // A second notice, not taken by a receive process, comes with the next tool call (before any answer).
  await addNotice(store, rec, "notice two");
  const post = JSON.stringify({ conversation_id: "c1", hook_event_name: "postToolUse" });
  const hookOut: string[] = [];
  assertEquals(await cursorParentHook(post, collect(store, (t) => hookOut.push(t))), 0);
  assertEquals(JSON.parse(hookOut[0]!), { additional_context: "notice two" });
  // Started again, the receive process gets the answer.
  const again: string[] = [];
  const answer = cursorParentReceive(rec.delivery_id, collect(store, (t) => again.push(t)), {
    pollMs: 5,
    timeoutMs: 5000,
  });
  await makeReady(store, rec, "the answer");
  assertEquals(await answer, 0);
  assertStringIncludes(again[0]!, "the answer");
  const after = await store.read("cursor", rec.delivery_id);
  assertEquals(after?.notices?.map((n) => n.received_by), ["cursor_parent_receive", "cursor_post_tool_use"]);
});
