/** Grok Build's `updates.jsonl` turn parser: lab and real captures, late records, send-now seams. */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { TESTDATA } from "../common/test_kit.ts";
import { parseGrokTurns } from "./transcript.ts";

const dir = new URL("grok/", TESTDATA);
const sample = (name: string) => Deno.readTextFileSync(new URL(`samples/${name}`, dir));

Deno.test("parseGrokTurns() reads the lab sample: answers, tool turns, the 400 error, the cancelled turn", () => {
  const turns = parseGrokTurns(sample("grok-updates.jsonl"));
  assertEquals(turns.map((t) => [t.turnId, t.prompt, t.status]), [
    ["0", "SLOW answer", "done"],
    ["1", "TOOLCALL now", "done"],
    ["2", "TOOLCALL again", "done"],
    ["3", "MCPCALL now", "done"],
    ["4", "ERR400 now", "error"],
    ["5", "SLOW then cancel", "done"],
    ["6", "SLOW cancel via ctrl-c", "running"],
  ]);
  assertEquals(turns[0]!.answer, "MOCK_REPLY line one.\nSecond line for: <user_query> SLOW answer </user_query>");
  assertEquals(turns[2]!.answer, "MOCK_AFTER_TOOL done.");
  assertEquals(turns[4]!.error, "API error (status 400 Bad Request): invalid_request_error: Mock 400 error");
  assertEquals(turns[4]!.answer, null);
});

Deno.test("parseGrokTurns() reads the real capture and survives a torn last line", () => {
  const text = sample("real-updates.jsonl");
  const turns = parseGrokTurns(text);
  assertEquals(turns.map((t) => [t.index, t.status]), [[0, "done"], [1, "done"], [2, "error"]]);
  assertEquals(turns[0]!.answer, "MOCK_REPLY <user_query>");
  const lines = text.trimEnd().split("\n");
  const torn = lines.slice(0, -1).join("\n") + "\n" + lines[lines.length - 1]!.slice(0, 40);
  assertEquals(parseGrokTurns(torn).map((t) => t.status), ["done", "done", "running"]);
});

Deno.test("parseGrokTurns() ends the right turn when the next turn's records come first", () => {
  const sid = "s";
  const u = (seq: number, update: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
    JSON.stringify({
      method: "session/update",
      params: { sessionId: sid, update, _meta: { eventId: `${sid}-${seq}`, ...meta } },
    });
  const text = [
    u(1, { sessionUpdate: "user_message_chunk", content: { type: "text", text: "one" }, _meta: { promptIndex: 0 } }),
    u(2, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ans " } }, { promptId: "p0" }),
    u(3, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "one" } }, { promptId: "p0" }),
    u(4, { sessionUpdate: "user_message_chunk", content: { type: "text", text: "two" }, _meta: { promptIndex: 1 } }),
    u(5, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ans two" } }, { promptId: "p1" }),
    u(6, { sessionUpdate: "turn_completed", prompt_id: "p0", stop_reason: "end_turn" }),
  ].join("\n");
  const turns = parseGrokTurns(text);
  assertEquals(turns.map((t) => [t.turnId, t.status, t.answer]), [["0", "done", "ans one"], ["1", "running", null]]);
});

Deno.test("parseGrokTurns() keeps a send-now seam inside one turn (real 1.0.41 capture)", () => {
  const text = sample("real-send-now-updates.jsonl");
  const turns = parseGrokTurns(text);
  assertEquals(turns.map((t) => [t.index, t.turnId, t.prompt, t.status, t.steers]), [
    [0, "0", "SLOW first task", "done", 1],
  ]);
  assertEquals(turns[0]!.answer, "MOCK_REPLY The user sent a message while you were w");
  // Cut after the cancelled record, and after the queued prompt began: still one running turn, not an end.
  const lines = text.trimEnd().split("\n");
  for (const n of [2, 3, 4]) {
    assertEquals(parseGrokTurns(lines.slice(0, n).join("\n")).map((t) => [t.status, t.steers]), [["running", 1]]);
  }
});

Deno.test("parseGrokTurns() merges chained seams, in any record order, and leaves other cancels alone", () => {
  const u = (seq: number, update: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
    JSON.stringify({
      method: "session/update",
      params: { sessionId: "s", update, _meta: { eventId: `s-${seq}`, ...meta } },
    });
  const user = (seq: number, i: number, text: string) =>
    u(seq, { sessionUpdate: "user_message_chunk", content: { type: "text", text }, _meta: { promptIndex: i } });
  const say = (seq: number, p: string, text: string) =>
    u(seq, { sessionUpdate: "agent_message_chunk", content: { type: "text", text } }, { promptId: p });
  const end = (seq: number, p: string, stop: string, meta: Record<string, unknown> = {}) =>
    u(seq, { sessionUpdate: "turn_completed", prompt_id: p, stop_reason: stop }, meta);
  const sendNow = { cancelTrigger: "send_now", cancellationCategory: "MidTurnAbort" };
  const chained = [
    user(1, 0, "task"),
    say(2, "p0", "partial"),
    end(3, "p0", "cancelled", sendNow),
    user(4, 1, "steer one"),
    end(5, "p1", "cancelled", sendNow),
    user(6, 2, "steer two"),
    say(7, "p2", "final"),
    end(8, "p2", "end_turn"),
    user(9, 3, "next task"),
    end(10, "p3", "error"),
  ];
  const turns = parseGrokTurns(chained.join("\n"));
  assertEquals(turns.map((t) => [t.index, t.turnId, t.prompt, t.status, t.answer, t.steers]), [
    [0, "0", "task", "done", "final", 2],
    [1, "3", "next task", "error", null, 0],
  ]);
  // Written out of order (the queued prompt before the cancel record): same result.
  const shuffled = [chained[0], chained[1], chained[3], chained[2], ...chained.slice(4)].join("\n");
  assertEquals(parseGrokTurns(shuffled).map((t) => [t.status, t.steers]), [["done", 2], ["error", 0]]);
  // A cancel without the send_now trigger is an interrupt, and the next prompt is a turn of its own.
  const plain = [user(1, 0, "task"), end(2, "p0", "cancelled"), user(3, 1, "again"), end(4, "p1", "end_turn")];
  assertEquals(parseGrokTurns(plain.join("\n")).map((t) => [t.turnId, t.status]), [["0", "interrupted"], [
    "1",
    "done",
  ]]);
});

Deno.test("parseGrokTurns() reads the real 402 turn as an error with the CLI's text", () => {
  const turns = parseGrokTurns(sample("real-402-updates.jsonl"));
  assertEquals(turns.map((t) => [t.turnId, t.status, t.error]), [
    ["5", "error", "API error (status 402 Payment Required): insufficient_quota: Mock payment required"],
  ]);
});
