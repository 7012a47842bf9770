/** The Cursor CLI's transcript location and turn parser. */
import { join } from "node:path";
import { assertEquals } from "../../tests/helpers/assert.ts";
import { TESTDATA } from "../common/test_kit.ts";
import { cursorFolderId, locateCursorTranscripts, parseCursorTurns } from "./transcript.ts";

const dir = new URL("cursor/", TESTDATA);
const read = (name: string) => Deno.readTextFileSync(new URL(name, dir));

Deno.test("cursor: transcript turns: steer joins the open turn, turn_ended closes it once", () => {
  const turns = parseCursorTurns(read("transcript.jsonl"));
  assertEquals(turns.map((t) => [t.turnId, t.index, t.prompt, t.status]), [
    ["g1", 0, "first task", "done"],
    ["g2", 1, "SLOW second", "done"],
    ["g3", 2, "APIERR", "error"],
    ["g4", 3, "stopped", "interrupted"],
    ["g5", 4, "still running", "running"],
  ]);
  assertEquals(turns[0]!.answer, "ANSWER(first task)");
  assertEquals(turns[1]!.answer, "ANSWER(SLOW second) STEERED(also this)");
  assertEquals([turns[2]!.answer, turns[2]!.error], [null, "API Error: 400 invalid request"]);
});

Deno.test("cursor: folder id and transcript location", async () => {
  assertEquals(cursorFolderId("/home/me/my.app/"), "home-me-my-app");
  const root = await Deno.makeTempDir();
  try {
    const cwd = join(root, "proj");
    await Deno.mkdir(cwd);
    const real = await Deno.realPath(cwd);
    const chat = "0b0c5f0e-1111-4222-8333-444455556666";
    const tdir = join(root, "h", ".cursor", "projects", cursorFolderId(real), "agent-transcripts", chat);
    await Deno.mkdir(tdir, { recursive: true });
    await Deno.writeTextFile(join(tdir, `${chat}.jsonl`), "{}\n");
    const ctx = { cwd, env: { HOME: join(root, "h") }, since: 0, pinnedSessionId: null };
    assertEquals(await locateCursorTranscripts(ctx), [join(tdir, `${chat}.jsonl`)]);
    assertEquals(await locateCursorTranscripts({ ...ctx, since: Date.now() + 60_000 }), []);
    assertEquals(await locateCursorTranscripts({ ...ctx, env: { CURSOR_CONFIG_DIR: join(root, "none") } }), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
