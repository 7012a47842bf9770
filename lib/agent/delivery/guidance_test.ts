import { assert, assertEquals, assertStringIncludes } from "../../../tests/helpers/assert.ts";
import { type GuidedReceipt, receiptGuidance, serverInstructions } from "./guidance.ts";
import { type ParentCall, parentIntegrations } from "../../../harnesses/clients/mod.ts";

const parents = parentIntegrations();
/** A call as the server identifies it: the integration of `kind` with the request's ref. */
function call(kind: string, ref: string | null): ParentCall {
  return { kind, ref, integration: parents.find((p) => p.kind === kind)! };
}
const other: ParentCall = { kind: "other", ref: null };

const wp = {
  executable: "aiterm-wait",
  args: ["--session", "k", "--cursor", "2"],
  windows_start_process_argument_list: null,
};
const turn: GuidedReceipt = { session_id: "k", event_cursor: 2, parent_delivery: null, wait_process: wp };
const delivery = {
  delivery_id: "d-1",
  parent: "codex" as const,
  state: "waiting" as const,
  child_outcome: null,
  child_turn_id: null,
  queued_submission_id: null,
  error_code: null,
};

Deno.test("guidance: automatic delivery means nothing to do; Cursor and others start the waiter", () => {
  const auto = receiptGuidance(call("codex", "th"), {
    ...turn,
    parent_delivery: delivery,
    wait_process: null,
  });
  assertStringIncludes(auto.next, "Nothing to do");
  assertEquals(auto.warning, undefined);
  const cursor = receiptGuidance(call("cursor", "1"), {
    ...turn,
    parent_delivery: { ...delivery, parent: "cursor" },
  });
  assertStringIncludes(cursor.next, "start wait_process");
  assertStringIncludes(cursor.next, "arrives with that call");
  const plain = receiptGuidance(other, turn);
  assertStringIncludes(plain.next, 'pty_read(session_id:"k", agent_transcript:true, cursor:2)');
  assertEquals(plain.warning, undefined);
});

Deno.test("guidance: PowerShell parents are told Start-Process with windows_start_process_argument_list", () => {
  const g = receiptGuidance(other, {
    ...turn,
    wait_process: { ...wp, windows_start_process_argument_list: "--session k --cursor 2" },
  });
  assertStringIncludes(
    g.next,
    "Start-Process -FilePath <executable> -ArgumentList <windows_start_process_argument_list>",
  );
  assertStringIncludes(serverInstructions(other, "windows"), "windows_start_process_argument_list");
  assert(!serverInstructions(other, "linux").includes("Start-Process"), "PowerShell named off Windows");
});

Deno.test("guidance: a Codex request without a usable thread id is a CODEX_PARENT_ID_UNAVAILABLE warning", () => {
  const none = receiptGuidance(call("codex", null), turn);
  assertEquals(none.warning?.code, "CODEX_PARENT_ID_UNAVAILABLE");
  assertStringIncludes(none.warning!.message, "no _meta.threadId");
  const bad = receiptGuidance(call("codex", "bad id!"), turn);
  assertStringIncludes(bad.warning!.message, "not a Codex thread id");
  // Nothing dispatched (a bare launch): nothing to warn about.
  assertEquals(receiptGuidance(call("codex", null), { ...turn, event_cursor: null }).warning, undefined);
});

Deno.test("guidance: a bare launch, a launch blocked at start-up and a steer", () => {
  const bare = receiptGuidance(undefined, {
    ...turn,
    event_cursor: null,
    wait_process: null,
    initial_prompt: { status: "not_requested", reason: "no_prompt" },
  });
  assertStringIncludes(bare.next, 'pty_send(session_id:"k", text)');
  const blocked = receiptGuidance(undefined, {
    ...turn,
    event_cursor: null,
    wait_process: null,
    initial_prompt: { status: "not_sent", reason: "startup_blocked:trust_required" },
  });
  assertStringIncludes(blocked.next, "Nothing was sent (startup_blocked:trust_required)");
  const steer = receiptGuidance(undefined, {
    ...turn,
    mode: "agent_steer",
    event_cursor: null,
    joined_event_cursor: 1,
  });
  assertStringIncludes(steer.next, "joined running turn 1");
});
