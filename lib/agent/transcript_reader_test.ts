/**
 * The incremental transcript reader agrees with a whole-file parse at every point of a transcript
 * written in arbitrary pieces (mid-line, mid-character), reads only new bytes, and starts over on a
 * file that shrank or was replaced. Also: Grok's event-order fold gives the same turns whatever the
 * order the CLI wrote the events in.
 */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { getHarness, type HarnessId } from "../../harnesses/mod.ts";
import { TranscriptReader } from "./transcript_reader.ts";

const DATA = new URL("../../harnesses/testdata/", import.meta.url).pathname;

const SAMPLES: [HarnessId, string][] = [
  ["claude-code", "samples/claude-transcript.jsonl"],
  ["claude-code", "samples/real-2.1.328-transcript.jsonl"],
  ["claude-code", "samples/real-2.1.328-transcript-midturn-steer.jsonl"],
  ["codex-cli", "samples/codex-rollout.jsonl"],
  ["codex-cli", "samples/real-0.169.0-rollout.jsonl"],
  ["cursor-cli", "cursor/transcript.jsonl"],
  ["grok-cli", "grok/samples/grok-updates.jsonl"],
  ["grok-cli", "grok/samples/real-updates.jsonl"],
  ["grok-cli", "grok/samples/real-send-now-updates.jsonl"],
  ["grok-cli", "grok/samples/real-402-updates.jsonl"],
];

/** A small deterministic PRNG (tests must not depend on luck). */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

for (const [harness, file] of SAMPLES) {
  Deno.test(`reader: ${file} written in random pieces gives the whole-file turns at every step`, async () => {
    const rules = getHarness(harness)!.transcript;
    const bytes = await Deno.readFile(DATA + file);
    const dir = await Deno.makeTempDir();
    try {
      for (const seed of [1, 2, 3]) {
        const path = `${dir}/t${seed}.jsonl`;
        await Deno.writeFile(path, new Uint8Array(0));
        const reader = new TranscriptReader(rules, path);
        const next = rng(seed);
        let at = 0;
        while (at < bytes.length) {
          const n = Math.max(1, Math.floor(next() * 700));
          const piece = bytes.subarray(at, Math.min(bytes.length, at + n));
          await Deno.writeFile(path, piece, { append: true });
          at += piece.length;
          const got = await reader.read();
          const want = rules.parseTurns(new TextDecoder().decode(bytes.subarray(0, at)));
          assertEquals(got, want, `${file} seed ${seed} at byte ${at}`);
        }
        assert(reader.offset <= bytes.length);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("reader: a check with nothing new returns the same turns without parsing again", async () => {
  const rules = getHarness("claude-code")!.transcript;
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/t.jsonl`;
    await Deno.copyFile(`${DATA}samples/claude-transcript.jsonl`, path);
    let pushes = 0;
    const counting = {
      ...rules,
      parser: () => {
        const p = rules.parser();
        return { push: (r: Record<string, unknown>) => (pushes++, p.push(r)), turns: () => p.turns() };
      },
    };
    const reader = new TranscriptReader(counting, path);
    const first = await reader.read();
    const after = pushes;
    assert(after > 0);
    assert((await reader.read()) === first, "an unchanged file gave a new turn list");
    assertEquals(pushes, after);
    // One more record: exactly one more push.
    await Deno.writeTextFile(path, JSON.stringify({ type: "unknown-record" }) + "\n", { append: true });
    await reader.read();
    assertEquals(pushes, after + 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reader: a file that shrank or was replaced is read again from its start", async () => {
  const rules = getHarness("claude-code")!.transcript;
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/t.jsonl`;
    const full = await Deno.readTextFile(`${DATA}samples/claude-transcript.jsonl`);
    await Deno.writeTextFile(path, full);
    const reader = new TranscriptReader(rules, path);
    assertEquals(await reader.read(), rules.parseTurns(full));
    const half = full.slice(0, full.lastIndexOf("\n", full.length / 2) + 1);
    await Deno.writeTextFile(path, half);
    assertEquals(await reader.read(), rules.parseTurns(half));
    // Replaced by another file (another inode) of the same size or larger.
    await Deno.writeTextFile(`${dir}/other.jsonl`, full);
    await Deno.rename(`${dir}/other.jsonl`, path);
    assertEquals(await reader.read(), rules.parseTurns(full));
    await Deno.remove(path);
    assertEquals(await reader.read(), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A Grok `updates.jsonl` with `turns` prompts, each with chunks, a tool call and an end (event ids in order). */
function grokUpdates(turns: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let seq = 1;
  const ev = (update: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
    out.push({
      method: "_x.ai/session/update",
      params: { sessionId: "s", update, _meta: { eventId: `s-${seq++}`, ...meta } },
    });
  for (let t = 0; t < turns; t++) {
    const pid = `p${t}`;
    ev({ sessionUpdate: "user_message_chunk", content: { text: `task ${t}` }, _meta: { promptIndex: t } });
    for (let c = 0; c < 20; c++) {
      ev({ sessionUpdate: "agent_message_chunk", content: { text: `w${c} ` } }, { promptId: pid });
    }
    ev({ sessionUpdate: "tool_call" }, { promptId: pid });
    for (let c = 0; c < 20; c++) {
      ev({ sessionUpdate: "agent_message_chunk", content: { text: `a${t}.${c} ` } }, { promptId: pid });
    }
    ev({ sessionUpdate: "turn_completed", prompt_id: pid, stop_reason: "end_turn" });
  }
  return out;
}

Deno.test("grok: events written out of order (a little, and farther than the reorder window) fold as in order", async () => {
  const rules = getHarness("grok-cli")!.transcript;
  const ordered = grokUpdates(6);
  const text = (rs: Record<string, unknown>[]) => rs.map((r) => JSON.stringify(r)).join("\n") + "\n";
  const want = rules.parseTurns(text(ordered));
  assertEquals(want.length, 6);
  assert(want.every((t) => t.status === "done"));
  // Near swaps (as the CLI does) and one record written 150 events late.
  const shuffled = [...ordered];
  for (let i = 3; i + 1 < shuffled.length; i += 7) [shuffled[i], shuffled[i + 1]] = [shuffled[i + 1]!, shuffled[i]!];
  const [late] = shuffled.splice(10, 1);
  shuffled.splice(160, 0, late!);
  assertEquals(rules.parseTurns(text(shuffled)), want);
  // The same through the reader, one record at a time.
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/updates.jsonl`;
    await Deno.writeTextFile(path, "");
    const reader = new TranscriptReader(rules, path);
    for (const r of shuffled) {
      await Deno.writeTextFile(path, JSON.stringify(r) + "\n", { append: true });
      await reader.read();
    }
    assertEquals(await reader.read(), want);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
