import { assert, assertEquals, assertStringIncludes } from "../../../tests/helpers/assert.ts";
import {
  claudePostToolUse,
  claudePreToolUse,
  claudeSessionEnd,
  cursorParentHook,
  cursorParentReceive,
  deliveryIdsIn,
  type WriteFn,
} from "./receivers.ts";
import { claudeIndexPath, claudePrePath, envelope } from "./manager.ts";
import { type DeliveryRecord, DeliveryStore, type ParentKind } from "./store.ts";
import { ensurePrivateDir, readJsonFile, writeJsonAtomic } from "../../state/mod.ts";
import { join } from "node:path";

async function tempStore(): Promise<DeliveryStore & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "ait-deliv-" });
  const store = new DeliveryStore(join(dir, "state")) as DeliveryStore & AsyncDisposable;
  store[Symbol.asyncDispose] = () => Deno.remove(dir, { recursive: true });
  return store;
}

function record(kind: ParentKind, over: Partial<DeliveryRecord> = {}): DeliveryRecord {
  const now = Date.now();
  return {
    schema: "aiterm.parent-delivery.v1",
    delivery_id: crypto.randomUUID(),
    parent: kind,
    destination: kind === "claude"
      ? { claude_session_id: "conv-1", tool_use_id: "toolu_1" }
      : { conversation_id: null },
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

async function makeReady(store: DeliveryStore, rec: DeliveryRecord, body: string): Promise<void> {
  await store.saveBody(rec.parent, rec.delivery_id, body);
  await store.update(rec.parent, rec.delivery_id, (r) => ({
    ...r,
    state: "ready",
    child_outcome: "done",
    child_turn_id: "t-2",
    ready_at_ms: Date.now(),
  }));
}

function collector(): { write: WriteFn; out: { stdout: string; stderr: string } } {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    write: (stream, text) => {
      out[stream] += text;
      return Promise.resolve();
    },
  };
}

async function claudeDelivery(store: DeliveryStore, toolUseId = "toolu_1"): Promise<DeliveryRecord> {
  const rec = record("claude", { destination: { claude_session_id: "conv-1", tool_use_id: toolUseId } });
  await store.create(rec);
  ensurePrivateDir(store.claudeHooksDir);
  ensurePrivateDir(join(store.claudeHooksDir, "by-tool-use"));
  await writeJsonAtomic(claudeIndexPath(store, toolUseId), { delivery_id: rec.delivery_id });
  return rec;
}

Deno.test("claude PostToolUse waits for the answer, writes it to stderr once, exits 2; a second hook gets nothing", async () => {
  await using store = await tempStore();
  const rec = await claudeDelivery(store);
  const c = collector();
  const hook = claudePostToolUse(store, JSON.stringify({ tool_use_id: "toolu_1" }), c.write, { pollMs: 10 });
  await new Promise((r) => setTimeout(r, 50));
  assertEquals(c.out.stderr, "", "nothing before the answer exists");
  const body = "line 1\n  indented ✓ ünïcode\n";
  await makeReady(store, rec, body);
  assertEquals(await hook, 2);
  assertStringIncludes(c.out.stderr, body);
  assertStringIncludes(c.out.stderr, 'child agent session "child" (claude-code), turn 2: done');
  const after = await store.read("claude", rec.delivery_id);
  assertEquals([after?.state, after?.received_by], ["submitted", "claude_post_tool_use"]);
  const again = collector();
  assertEquals(await claudePostToolUse(store, JSON.stringify({ tool_use_id: "toolu_1" }), again.write), 0);
  assertEquals(again.out.stderr, "");
});

Deno.test("claude PostToolUse for a call that made no delivery exits 0 at once", async () => {
  await using store = await tempStore();
  const c = collector();
  assertEquals(await claudePostToolUse(store, JSON.stringify({ tool_use_id: "toolu_other" }), c.write), 0);
  assertEquals(await claudePostToolUse(store, "not json", c.write), 0);
  assertEquals(c.out, { stdout: "", stderr: "" });
});

Deno.test("SessionEnd (/clear) ends the conversation's pending deliveries; the waiting hook exits 0 silently", async () => {
  await using store = await tempStore();
  const rec = await claudeDelivery(store);
  const other = record("claude", { destination: { claude_session_id: "conv-2", tool_use_id: "toolu_9" } });
  await store.create(other);
  const c = collector();
  const hook = claudePostToolUse(store, JSON.stringify({ tool_use_id: "toolu_1" }), c.write, { pollMs: 10 });
  assertEquals(await claudeSessionEnd(store, JSON.stringify({ session_id: "conv-1", reason: "clear" })), 0);
  assertEquals(await hook, 0);
  assertEquals(c.out.stderr, "");
  const ended = await store.read("claude", rec.delivery_id);
  assertEquals([ended?.state, ended?.error_code], ["failed", "CLAUDE_PARENT_SESSION_ENDED"]);
  assertEquals((await store.read("claude", other.delivery_id))?.state, "waiting", "another conversation is untouched");
});

Deno.test("an output cut off while handing over leaves unknown with the body kept; nobody sends it again", async () => {
  await using store = await tempStore();
  const rec = await claudeDelivery(store);
  await makeReady(store, rec, "the body");
  const broken: WriteFn = () => Promise.reject(new Error("EPIPE"));
  assertEquals(await claudePostToolUse(store, JSON.stringify({ tool_use_id: "toolu_1" }), broken), 1);
  const after = await store.read("claude", rec.delivery_id);
  assertEquals([after?.state, after?.error_code], ["unknown", "DELIVERY_OUTPUT_INTERRUPTED"]);
  assertEquals(await store.readBody("claude", rec.delivery_id), "the body");
  const c = collector();
  assertEquals(await claudePostToolUse(store, JSON.stringify({ tool_use_id: "toolu_1" }), c.write), 0);
  assertEquals(c.out.stderr, "");
});

Deno.test("the hook's wait ends as failed when nothing arrives in time", async () => {
  await using store = await tempStore();
  const rec = await claudeDelivery(store);
  const c = collector();
  assertEquals(
    await claudePostToolUse(store, JSON.stringify({ tool_use_id: "toolu_1" }), c.write, { timeoutMs: 30, pollMs: 5 }),
    0,
  );
  const after = await store.read("claude", rec.delivery_id);
  assertEquals([after?.state, after?.error_code], ["failed", "CLAUDE_PARENT_HOOK_TIMEOUT"]);
});

Deno.test("PreToolUse records the conversation and the sub-agent id under a hashed name", async () => {
  await using store = await tempStore();
  assertEquals(
    await claudePreToolUse(
      store,
      JSON.stringify({
        session_id: "conv-1",
        tool_use_id: "toolu_7",
        agent_id: "agent-x",
        hook_event_name: "PreToolUse",
      }),
    ),
    0,
  );
  const pre = await readJsonFile<Record<string, unknown>>(claudePrePath(store, "toolu_7"));
  assertEquals(pre?.session_id, "conv-1");
  assertEquals(pre?.agent_id, "agent-x");
  // A tool_use_id that could leave the directory is ignored.
  assertEquals(await claudePreToolUse(store, JSON.stringify({ session_id: "s", tool_use_id: "../../x" })), 0);
});

Deno.test("exactly one of many concurrent receivers takes a body", async () => {
  await using store = await tempStore();
  const rec = record("cursor", { destination: { conversation_id: "c1" } });
  await store.create(rec);
  await makeReady(store, rec, "once");
  const outs: string[] = [];
  const codes = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      i % 2
        ? cursorParentReceive(store, rec.delivery_id, (_s, t) => {
          outs.push(t);
          return Promise.resolve();
        }, { pollMs: 5, timeoutMs: 2000 })
        : cursorParentHook(
          store,
          JSON.stringify({ conversation_id: "c1", hook_event_name: "postToolUse" }),
          (_s, t) => {
            if (t.includes("additional_context")) outs.push(t);
            return Promise.resolve();
          },
        )),
  );
  assertEquals(outs.length, 1, `one receiver took it: ${JSON.stringify(outs)}`);
  assertStringIncludes(outs[0]!, "once");
  assert(codes.filter((c, i) => i % 2 === 1 && c === 6).length >= 3, `the other receivers were told: ${codes}`);
  assertEquals((await store.read("cursor", rec.delivery_id))?.state, "submitted");
});

Deno.test("cursor hook binds a delivery from afterMCPExecution's result_json, then postToolUse injects it", async () => {
  await using store = await tempStore();
  const rec = record("cursor");
  await store.create(rec);
  const receipt = { session_id: "child", parent_delivery: { delivery_id: rec.delivery_id, state: "waiting" } };
  const c = collector();
  await cursorParentHook(
    store,
    JSON.stringify({
      conversation_id: "conv-A",
      hook_event_name: "afterMCPExecution",
      tool_name: "agent_launch",
      result_json: JSON.stringify({
        content: [{ type: "text", text: `session_id: child\n${JSON.stringify(receipt)}` }],
      }),
    }),
    c.write,
  );
  assertEquals(c.out.stdout, "{}\n");
  assertEquals((await store.read("cursor", rec.delivery_id))?.destination.conversation_id, "conv-A");
  // Not ready yet: nothing injected. Another conversation never gets it.
  const early = collector();
  await cursorParentHook(
    store,
    JSON.stringify({ conversation_id: "conv-A", hook_event_name: "postToolUse" }),
    early.write,
  );
  assertEquals(early.out.stdout, "{}\n");
  await makeReady(store, rec, "ANSWER body");
  const wrong = collector();
  await cursorParentHook(
    store,
    JSON.stringify({ conversation_id: "conv-B", hook_event_name: "postToolUse" }),
    wrong.write,
  );
  assertEquals(wrong.out.stdout, "{}\n");
  const right = collector();
  await cursorParentHook(
    store,
    JSON.stringify({ conversation_id: "conv-A", hook_event_name: "postToolUse" }),
    right.write,
  );
  const injected = JSON.parse(right.out.stdout) as { additional_context: string };
  assertStringIncludes(injected.additional_context, "ANSWER body");
  assertEquals(await cursorParentReceive(store, rec.delivery_id, collector().write, { timeoutMs: 0 }), 6);
});

Deno.test("cursor receive: unclaimed past the limit → failed with the body kept; unknown id → 4", async () => {
  await using store = await tempStore();
  const rec = record("cursor");
  await store.create(rec);
  assertEquals(await cursorParentReceive(store, rec.delivery_id, collector().write, { timeoutMs: 20, pollMs: 5 }), 3);
  const after = await store.read("cursor", rec.delivery_id);
  assertEquals([after?.state, after?.error_code], ["failed", "CURSOR_PARENT_UNCLAIMED"]);
  assertEquals(await cursorParentReceive(store, crypto.randomUUID(), collector().write, { timeoutMs: 0 }), 4);
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

Deno.test("the envelope names the child, the turn and the outcome, and keeps the body byte for byte", () => {
  const rec = record("claude", { child_outcome: "error", child_error: "API Error: 400" });
  assertEquals(
    envelope(rec, ""),
    '[aiterm] answer from child agent session "child" (claude-code), turn 2: error (API Error: 400)',
  );
  assert(envelope({ ...rec, child_outcome: "done", child_error: null }, "a\n\nb ").endsWith("\n\na\n\nb "));
});

Deno.test("the receivers are woken by the record's change, not by their poll (a file watch)", async () => {
  await using store = await tempStore();
  const rec = await claudeDelivery(store);
  const c = collector();
  const t0 = Date.now();
  // A poll far beyond the 10 s limit: only the watch can deliver before the limit's last look.
  const hook = claudePostToolUse(store, JSON.stringify({ tool_use_id: "toolu_1" }), c.write, {
    pollMs: 600_000,
    timeoutMs: 10_000,
  });
  await new Promise((r) => setTimeout(r, 50));
  await makeReady(store, rec, "watched body");
  assertEquals(await hook, 2);
  assertStringIncludes(c.out.stderr, "watched body");
  const cur = record("cursor");
  await store.create(cur);
  const out = collector();
  const receive = cursorParentReceive(store, cur.delivery_id, out.write, { pollMs: 600_000, timeoutMs: 10_000 });
  await new Promise((r) => setTimeout(r, 50));
  await makeReady(store, cur, "cursor body");
  assertEquals(await receive, 0);
  assertStringIncludes(out.out.stdout, "cursor body");
  const waited = Date.now() - t0;
  assert(waited < 5000, `both answers came at ${waited} ms: from the limit's last look, not from the writes`);
});
