/** FileWaker on real directories: a watched file's change wakes it; other files and disposal do not. */
import { join } from "node:path";
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { FileWaker } from "./file_waker.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

async function tmp(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "aiterm-turnwatch-" }));
}

Deno.test("FileWaker wakes when the transcript is appended, and keeps a change seen while busy", opts, async () => {
  const dir = await tmp();
  try {
    const file = join(dir, "t.jsonl");
    await Deno.writeTextFile(file, "{}\n");
    using w = new FileWaker(join(dir, "session"));
    assert(await w.follow(file), "a new watch was started");
    assert(w.watchingTranscript);
    assertEquals(await w.follow(file), false, "the same watch again is not new");
    const woke = w.next(60_000);
    await Deno.writeTextFile(file, "{}\n", { append: true });
    assertEquals(await woke, "change");
    // Written while nobody waits: the next wait returns at once.
    await Deno.writeTextFile(file, "{}\n", { append: true });
    await new Promise((r) => setTimeout(r, 50));
    assertEquals(await w.next(60_000), "change");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileWaker ignores other files in the transcript's directory", opts, async () => {
  const dir = await tmp();
  try {
    const file = join(dir, "mine.jsonl");
    await Deno.writeTextFile(file, "");
    using w = new FileWaker(join(dir, "session"));
    await w.follow(file);
    const woke = w.next(300);
    await Deno.writeTextFile(join(dir, "other.jsonl"), "{}\n");
    assertEquals(await woke, "tick");
    const again = w.next(60_000);
    await Deno.writeTextFile(file, "{}\n", { append: true });
    assertEquals(await again, "change");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileWaker follows a transcript whose directories do not exist yet", opts, async () => {
  const dir = await tmp();
  try {
    const file = join(dir, "projects", "slug", "t.jsonl");
    using w = new FileWaker(join(dir, "session"));
    assert(await w.follow(file), "the nearest existing ancestor is watched");
    assertEquals(w.watchingTranscript, false);
    const woke = w.next(60_000);
    await Deno.mkdir(join(dir, "projects", "slug"), { recursive: true });
    assertEquals(await woke, "change");
    // Climb down as the harness creates the directories, until the transcript's own one is watched.
    for (let i = 0; i < 3 && !w.watchingTranscript; i++) await w.follow(file);
    assert(w.watchingTranscript, "now watching the transcript's own directory");
    const wrote = w.next(60_000);
    await Deno.writeTextFile(file, "{}\n");
    assertEquals(await wrote, "change");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FileWaker wakes when the agent record is rewritten, and dispose ends a pending wait", opts, async () => {
  const dir = await tmp();
  try {
    const session = join(dir, "session");
    await Deno.mkdir(session);
    const w = new FileWaker(session);
    assert(w.watchingSession);
    const woke = w.next(60_000);
    await Deno.writeTextFile(join(session, "last_command.json"), "{}");
    await Deno.writeTextFile(join(session, "agent.json"), "{}");
    assertEquals(await woke, "change");
    w[Symbol.dispose]();
    // A fresh waker, so no change of the writes above is still owed to it.
    const quiet = new FileWaker(join(dir, "elsewhere"));
    const pending = quiet.next(60_000);
    quiet[Symbol.dispose]();
    assertEquals(await pending, "aborted");
    assertEquals(await w.next(60_000), "aborted", "a disposed waker never waits");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
