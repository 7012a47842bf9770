/** Claude Code's transcript location and turn parser. */
import { join } from "node:path";
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { TESTDATA } from "../common/test_kit.ts";
import { claudeProjectSlug, locateClaudeTranscripts, parseClaudeTurns } from "./transcript.ts";

const dir = TESTDATA;

Deno.test("claudeProjectSlug() replaces non-alphanumerics and hashes paths over 200 characters", () => {
  assertEquals(claudeProjectSlug("/home/user/work/proj-a"), "-home-user-work-proj-a");
  assertEquals(claudeProjectSlug("/tmp/a_b.c"), "-tmp-a-b-c");
  const long = "/home/user/" + Array.from({ length: 9 }, (_, i) => `very-long-directory-name-0${i}`).join("/");
  const slug = claudeProjectSlug(long);
  assertEquals(slug.length, 207);
  assertEquals(slug.slice(200), "-77hztd"); // cross-checked with an independent Java-style hash
});

Deno.test("locateClaudeTranscripts() returns the pinned file, else recent files of the project", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const cwd = join(tmp, "proj.a");
    await Deno.mkdir(cwd);
    const real = await Deno.realPath(cwd);
    const config = join(tmp, "cfg");
    const project = join(config, "projects", claudeProjectSlug(real));
    await Deno.mkdir(project, { recursive: true });
    const env = { CLAUDE_CONFIG_DIR: config, HOME: "/nonexistent" };
    const pinned = await locateClaudeTranscripts({ cwd, env, since: 0, pinnedSessionId: "abc" });
    assertEquals(pinned, [join(project, "abc.jsonl")]);
    const since = Date.now() - 60_000;
    await Deno.writeTextFile(join(project, "old.jsonl"), "{}\n");
    await Deno.utime(join(project, "old.jsonl"), new Date(since - 3_600_000), new Date(since - 3_600_000));
    await Deno.writeTextFile(join(project, "a.jsonl"), "{}\n");
    await Deno.utime(join(project, "a.jsonl"), new Date(since + 1_000), new Date(since + 1_000));
    await Deno.writeTextFile(join(project, "b.jsonl"), "{}\n");
    await Deno.utime(join(project, "b.jsonl"), new Date(since + 2_000), new Date(since + 2_000));
    const found = await locateClaudeTranscripts({ cwd, env, since, pinnedSessionId: null });
    assertEquals(found, [join(project, "b.jsonl"), join(project, "a.jsonl")]);
    const viaHome = await locateClaudeTranscripts({ cwd, env: { HOME: tmp }, since, pinnedSessionId: "x" });
    assertEquals(viaHome, [join(tmp, ".claude", "projects", claudeProjectSlug(real), "x.jsonl")]);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("parseClaudeTurns() reads the reference transcript turn by turn", () => {
  const text = Deno.readTextFileSync(new URL("samples/claude-transcript.jsonl", dir));
  const turns = parseClaudeTurns(text);
  assertEquals(turns.map((t) => [t.index, t.prompt, t.status]), [
    [0, "hello there, mock", "done"],
    [1, "SLOW answer please", "done"],
    [2, "TOOLCALL run it", "done"],
    [3, "MCPCALL now", "done"],
    [4, "ERR400 trigger", "error"],
    [5, "SLOW then interrupt", "running"], // Esc before any output: no end record at all
  ]);
  assertEquals(turns[0]!.turnId, "a55a168a-7fd6-46ab-abb3-8a0d244c0fe9");
  assertEquals(turns[1]!.answer, "MOCK_REPLY line one.\nSecond line for: SLOW answer please");
  assertEquals(turns[2]!.answer, "Calling a tool.\n\nMOCK_AFTER_TOOL done.");
  assertEquals([turns[4]!.answer, turns[4]!.error], [null, "API Error: 400 Mock 400 error"]);
  // A torn last line is ignored; the turn before it is unchanged.
  const torn = parseClaudeTurns(text + '{"type":"system","subtype":"turn_dur');
  assertEquals(torn, turns);
});

Deno.test("parseClaudeTurns() ends a turn at an interrupt marker and skips synthetic records", () => {
  const lines = [
    { type: "user", promptId: "p1", origin: { kind: "human" }, message: { role: "user", content: "go" } },
    { type: "assistant", message: { model: "m", content: [{ type: "text", text: "partial" }] } },
    { type: "user", promptId: "p1", message: { content: [{ type: "text", text: "[Request interrupted by user]" }] } },
    { type: "user", promptId: "p2", message: { content: [{ type: "text", text: "again" }] } },
    {
      type: "assistant",
      message: { model: "<synthetic>", content: [{ type: "text", text: "No response requested." }] },
    },
    { type: "assistant", message: { model: "m", content: [{ type: "text", text: "ok" }] } },
    { type: "system", subtype: "turn_duration", durationMs: 5 },
  ].map((r) => JSON.stringify(r)).join("\n");
  const turns = parseClaudeTurns(lines);
  assertEquals(turns.map((t) => [t.turnId, t.prompt, t.status, t.answer]), [
    ["p1", "go", "interrupted", null],
    ["p2", "again", "done", "ok"],
  ]);
});

Deno.test("parseClaudeTurns() reads a real 2.1.328 transcript: tool call, queued steer, API errors", () => {
  const text = Deno.readTextFileSync(new URL("samples/real-2.1.328-transcript.jsonl", dir));
  const turns = parseClaudeTurns(text);
  assertEquals(turns.map((t) => [t.index, t.prompt, t.status, t.answer, t.error]), [
    [0, "TOOLCALL go", "done", "Calling a tool.\n\nMOCK_AFTER_TOOL done.", null],
    // "steer text here" was submitted during the SLOW turn: queued (enqueue/dequeue), then recorded
    // as a prompt of its own after the turn's turn_duration. It continues the SLOW turn.
    [1, "SLOW second", "done", "MOCK_REPLY SLOW second\n\nMOCK_REPLY steer text here", null],
    // 2.1.328 writes no turn_duration after an API error: the isApiErrorMessage record ends the turn.
    [2, "ERR400 now", "error", null, "API Error: 400 Mock 400 error"],
    [3, "plain after", "error", null, "API Error: 400 Mock 400 error"],
  ]);
  assertEquals(turns[1]!.turnId, "f388d17b-00c2-415a-ba50-304ca1742a8f");
  // Every prefix of the file (a live read): never more turns, and a turn is never done early.
  const lines = text.split("\n");
  for (let n = 0; n <= lines.length; n++) {
    const part = parseClaudeTurns(lines.slice(0, n).join("\n"));
    assert(part.length <= turns.length, `prefix ${n}`);
    for (const t of part) if (t.status !== "running") assertEquals(t, turns[t.index], `prefix ${n}`);
  }
});

Deno.test("parseClaudeTurns() keeps a steer folded into a running tool turn in that turn", () => {
  const text = Deno.readTextFileSync(new URL("samples/real-2.1.328-transcript-midturn-steer.jsonl", dir));
  // enqueue, then remove + a queued_command attachment next to the tool result: one turn.
  assertEquals(parseClaudeTurns(text).map((t) => [t.prompt, t.status, t.answer]), [
    ["SLOW TOOLCALL go", "done", "Calling a tool.\n\nMOCK_AFTER_TOOL done."],
  ]);
});

Deno.test("parseClaudeTurns() ends a queued turn on interrupt and does not hold a turn for a removed prompt", () => {
  const user = (id: string, text: string) => ({
    type: "user",
    promptId: id,
    origin: { kind: "human" },
    message: { role: "user", content: text },
  });
  const said = (text: string) => ({ type: "assistant", message: { model: "m", content: [{ type: "text", text }] } });
  const q = (operation: string) => ({ type: "queue-operation", operation, content: "later" });
  const td = { type: "system", subtype: "turn_duration", durationMs: 5 };
  const jsonl = (rs: unknown[]) => rs.map((r) => JSON.stringify(r)).join("\n");
  const shape = (rs: unknown[]) => parseClaudeTurns(jsonl(rs)).map((t) => [t.prompt, t.status]);
  // Enqueued, not yet taken: the turn is not over at its turn_duration.
  assertEquals(shape([user("p1", "go"), q("enqueue"), said("a"), td]), [["go", "running"]]);
  // Taken back (remove) before the end: the turn ends normally.
  assertEquals(shape([user("p1", "go"), q("enqueue"), q("remove"), said("a"), td]), [["go", "done"]]);
  // An interrupt ends it whatever is queued; the next prompt is a new turn.
  assertEquals(
    shape([
      user("p1", "go"),
      q("enqueue"),
      { type: "user", message: { content: "[Request interrupted by user]" } },
      user("p2", "next"),
      said("b"),
      td,
    ]),
    [["go", "interrupted"], ["next", "done"]],
  );
  // A queued prompt after an API error continues the errored turn; its answer decides.
  assertEquals(
    shape([
      user("p1", "go"),
      q("enqueue"),
      q("dequeue"),
      {
        type: "assistant",
        isApiErrorMessage: true,
        message: { model: "<synthetic>", content: [{ type: "text", text: "API Error: 500" }] },
      },
      user("p2", "later"),
      said("ok"),
      td,
    ]),
    [["go", "done"]],
  );
});
