/** Claude Code's parent hooks: PreToolUse, PostToolUse (asyncRewake) and SessionEnd over a real delivery store. */
import { join } from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../../tests/helpers/assert.ts";
import {
  type DeliveryRecord,
  type DeliveryStore,
  ensurePrivateDir,
  readJsonFile,
  writeJsonAtomic,
} from "../../../state/mod.ts";
import {
  addNotice,
  collectingContext,
  deliveryRecord,
  makeReady,
  tempParentStore,
} from "../../common/client/parent_test_kit.ts";
import {
  claudeHooksDir,
  claudeIndexPath,
  claudePostToolUse,
  claudePrePath,
  claudePreToolUse,
  claudeSessionEnd,
  claudeStop,
} from "./parent_hooks.ts";

function claudeRecord(over: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return deliveryRecord("claude", { destination: { claude_session_id: "conv-1", tool_use_id: "toolu_1" }, ...over });
}

async function claudeDelivery(store: DeliveryStore, toolUseId = "toolu_1"): Promise<DeliveryRecord> {
  const rec = claudeRecord({ destination: { claude_session_id: "conv-1", tool_use_id: toolUseId } });
  await store.create(rec);
  ensurePrivateDir(claudeHooksDir(store));
  ensurePrivateDir(join(claudeHooksDir(store), "by-tool-use"));
  await writeJsonAtomic(claudeIndexPath(store, toolUseId), { delivery_id: rec.delivery_id });
  return rec;
}

Deno.test("claude PostToolUse waits for the answer, writes it to stderr once, exits 2; a second hook gets nothing", async () => {
  await using store = await tempParentStore();
  const rec = await claudeDelivery(store);
  const c = collectingContext(store);
  const hook = claudePostToolUse(JSON.stringify({ tool_use_id: "toolu_1" }), c.ctx, { pollMs: 10 });
  await new Promise((r) => setTimeout(r, 50));
  assertEquals(c.out.stderr, "", "nothing before the answer exists");
  const body = "line 1\n  indented ✓ ünïcode\n";
  await makeReady(store, rec, body);
  assertEquals(await hook, 2);
  assertStringIncludes(c.out.stderr, body);
  assertStringIncludes(c.out.stderr, 'child agent session "child" (claude-code), turn 2: done');
  const after = await store.read("claude", rec.delivery_id);
  assertEquals([after?.state, after?.received_by], ["submitted", "claude_post_tool_use"]);
  const again = collectingContext(store);
  assertEquals(await claudePostToolUse(JSON.stringify({ tool_use_id: "toolu_1" }), again.ctx), 0);
  assertEquals(again.out.stderr, "");
});

Deno.test("claude PostToolUse for a call that made no delivery exits 0 at once", async () => {
  await using store = await tempParentStore();
  const c = collectingContext(store);
  assertEquals(await claudePostToolUse(JSON.stringify({ tool_use_id: "toolu_other" }), c.ctx), 0);
  assertEquals(await claudePostToolUse("not json", c.ctx), 0);
  assertEquals(c.out, { stdout: "", stderr: "" });
});

Deno.test("SessionEnd (/clear) ends the conversation's pending deliveries; the waiting hook exits 0 silently", async () => {
  await using store = await tempParentStore();
  const rec = await claudeDelivery(store);
  const other = claudeRecord({ destination: { claude_session_id: "conv-2", tool_use_id: "toolu_9" } });
  await store.create(other);
  const c = collectingContext(store);
  const hook = claudePostToolUse(JSON.stringify({ tool_use_id: "toolu_1" }), c.ctx, { pollMs: 10 });
  assertEquals(await claudeSessionEnd(JSON.stringify({ session_id: "conv-1", reason: "clear" }), c.ctx), 0);
  assertEquals(await hook, 0);
  assertEquals(c.out.stderr, "");
  const ended = await store.read("claude", rec.delivery_id);
  assertEquals([ended?.state, ended?.error_code], ["failed", "CLAUDE_PARENT_SESSION_ENDED"]);
  assertEquals((await store.read("claude", other.delivery_id))?.state, "waiting", "another conversation is untouched");
});

Deno.test("an output cut off while handing over leaves unknown with the body kept; nobody sends it again", async () => {
  await using store = await tempParentStore();
  const rec = await claudeDelivery(store);
  await makeReady(store, rec, "the body");
  const broken = collectingContext(store, { broken: true });
  assertEquals(await claudePostToolUse(JSON.stringify({ tool_use_id: "toolu_1" }), broken.ctx), 1);
  const after = await store.read("claude", rec.delivery_id);
  assertEquals([after?.state, after?.error_code], ["unknown", "DELIVERY_OUTPUT_INTERRUPTED"]);
  assertEquals(await store.readBody("claude", rec.delivery_id), "the body");
  const c = collectingContext(store);
  assertEquals(await claudePostToolUse(JSON.stringify({ tool_use_id: "toolu_1" }), c.ctx), 0);
  assertEquals(c.out.stderr, "");
});

Deno.test("the hook's wait ends as failed when nothing arrives in time", async () => {
  await using store = await tempParentStore();
  const rec = await claudeDelivery(store);
  const c = collectingContext(store);
  assertEquals(
    await claudePostToolUse(JSON.stringify({ tool_use_id: "toolu_1" }), c.ctx, { timeoutMs: 30, pollMs: 5 }),
    0,
  );
  const after = await store.read("claude", rec.delivery_id);
  assertEquals([after?.state, after?.error_code], ["failed", "CLAUDE_PARENT_HOOK_TIMEOUT"]);
});

Deno.test("PreToolUse records the conversation and the sub-agent id under a hashed name", async () => {
  await using store = await tempParentStore();
  assertEquals(
    await claudePreToolUse(
      JSON.stringify({
        session_id: "conv-1",
        tool_use_id: "toolu_7",
        agent_id: "agent-x",
        hook_event_name: "PreToolUse",
      }),
      collectingContext(store).ctx,
    ),
    0,
  );
  const pre = await readJsonFile<Record<string, unknown>>(claudePrePath(store, "toolu_7"));
  assertEquals(pre?.session_id, "conv-1");
  assertEquals(pre?.agent_id, "agent-x");
  // A tool_use_id that could leave the directory is ignored.
  assertEquals(
    await claudePreToolUse(JSON.stringify({ session_id: "s", tool_use_id: "../../x" }), collectingContext(store).ctx),
    0,
  );
});

Deno.test("PostToolUse is woken by the record's change, not by its poll (a file watch)", async () => {
  await using store = await tempParentStore();
  const rec = await claudeDelivery(store);
  const c = collectingContext(store);
  const t0 = Date.now();
  // A poll far beyond the 10 s limit: only the watch can deliver before the limit's last look.
  const hook = claudePostToolUse(JSON.stringify({ tool_use_id: "toolu_1" }), c.ctx, {
    pollMs: 600_000,
    timeoutMs: 10_000,
  });
  await new Promise((r) => setTimeout(r, 50));
  await makeReady(store, rec, "watched body");
  assertEquals(await hook, 2);
  assertStringIncludes(c.out.stderr, "watched body");
  const waited = Date.now() - t0;
  assert(waited < 5000, `the answer came at ${waited} ms: from the limit's last look, not from the writes`);
});

const approvalInput = (toolUseId: string, conversation: string, child: string) =>
  JSON.stringify({
    session_id: conversation,
    hook_event_name: "PostToolUse",
    tool_name: "mcp__aiterm__agent_approval",
    tool_input: { action: "respond", session_id: child, approval_choice: "approve_once" },
    tool_use_id: toolUseId,
  });

Deno.test("claude: the dispatch's PostToolUse carries the notice; agent_approval's PostToolUse then carries the answer", async () => {
  await using store = await tempParentStore();
  const rec = await claudeDelivery(store);
  // A tool that is not an approval carries nothing.
  const observe = JSON.stringify({
    session_id: "conv-1",
    tool_name: "mcp__aiterm__pty_observe",
    tool_input: { session_id: "child" },
    tool_use_id: "toolu_o",
  });
  assertEquals(await claudePostToolUse(observe, collectingContext(store).ctx), 0);
  // Before any notice was handed, agent_approval's hook has nothing to carry (the dispatch's hook still waits).
  const early = collectingContext(store);
  assertEquals(await claudePostToolUse(approvalInput("toolu_a0", "conv-1", "child"), early.ctx), 0);
  const first = collectingContext(store);
  const dispatchHook = claudePostToolUse(JSON.stringify({ tool_use_id: "toolu_1" }), first.ctx, { pollMs: 10 });
  await addNotice(
    store,
    rec,
    '[aiterm] child agent session "child" (claude-code), turn 2: blocked (approval_required)',
  );
  assertEquals(await dispatchHook, 2);
  assertStringIncludes(first.out.stderr, "blocked (approval_required)");
  // Claude runs that PostToolUse once: it is spent. Another conversation, or another child, carries nothing.
  const other = collectingContext(store);
  assertEquals(await claudePostToolUse(approvalInput("toolu_x", "conv-2", "child"), other.ctx), 0);
  assertEquals(await claudePostToolUse(approvalInput("toolu_y", "conv-1", "other-child"), other.ctx), 0);
  // The parent's agent_approval call about that child: its own PostToolUse waits and brings the answer.
  const second = collectingContext(store);
  const approvalHook = claudePostToolUse(approvalInput("toolu_a1", "conv-1", "child"), second.ctx, { pollMs: 10 });
  await new Promise((r) => setTimeout(r, 50));
  assertEquals(second.out.stderr, "");
  await makeReady(store, rec, "the final answer");
  assertEquals(await approvalHook, 2);
  assertStringIncludes(second.out.stderr, "the final answer");
  assertEquals(first.out.stderr.includes("the final answer"), false);
  const after = await store.read("claude", rec.delivery_id);
  assertEquals([after?.state, after?.received_by], ["submitted", "claude_agent_approval"]);
  assertEquals(after?.notices?.map((n) => [n.state, n.received_by]), [["submitted", "claude_post_tool_use"]]);
});

Deno.test("claude Stop: carries a notice-spent delivery's next message, once, racing agent_approval's hook; exits 0 when none", async () => {
  await using store = await tempParentStore();
  const stopInput = JSON.stringify({ session_id: "conv-1", hook_event_name: "Stop", stop_hook_active: false });
  const none = collectingContext(store);
  assertEquals(await claudeStop(stopInput, none.ctx), 0);
  const rec = await claudeDelivery(store);
  // A delivery whose dispatch hook has not carried anything yet is not the Stop hook's.
  assertEquals(await claudeStop(stopInput, none.ctx, { timeoutMs: 100, pollMs: 10 }), 0);
  await addNotice(store, rec, "notice one");
  const d = collectingContext(store);
  assertEquals(await claudePostToolUse(JSON.stringify({ tool_use_id: "toolu_1" }), d.ctx, { pollMs: 10 }), 2);
  // Two carriers wait: the Stop hook and agent_approval's PostToolUse; a second notice goes to exactly one.
  const s1 = collectingContext(store);
  const s2 = collectingContext(store);
  const stop = claudeStop(stopInput, s1.ctx, { pollMs: 10 });
  const approval = claudePostToolUse(approvalInput("toolu_a1", "conv-1", "child"), s2.ctx, { pollMs: 10 });
  await new Promise((r) => setTimeout(r, 50));
  await addNotice(store, rec, "notice two");
  const firstDone = await Promise.race([stop.then(() => "stop"), approval.then(() => "approval")]);
  const winner = firstDone === "stop" ? s1 : s2;
  assertStringIncludes(winner.out.stderr, "notice two");
  // The other one takes the answer.
  await makeReady(store, rec, "answer after two notices");
  assertEquals([await stop, await approval], [2, 2]);
  const loser = firstDone === "stop" ? s2 : s1;
  assertStringIncludes(loser.out.stderr, "answer after two notices");
  assertEquals((s1.out.stderr + s2.out.stderr).split("answer after two notices").length, 2);
  // The delivery is over: a later Stop hook exits at once.
  assertEquals(await claudeStop(stopInput, collectingContext(store).ctx), 0);
});
