/** Grok Build's session folder and transcript location. */
import { join } from "node:path";
import { assertEquals } from "../../tests/helpers/assert.ts";
import { grokCwdKey, locateGrokTranscript } from "./session.ts";

Deno.test("grokCwdKey() percent-encodes like the CLI (real 1.0.41 folder name)", () => {
  assertEquals(grokCwdKey("/home/user/work/proj-c"), "%2Fhome%2Fuser%2Fwork%2Fproj-c");
  assertEquals(
    grokCwdKey("/tmp/gprobe/run-38fc1074b6c4698f/proj a+b~c(d)é"),
    "%2Ftmp%2Fgprobe%2Frun-38fc1074b6c4698f%2Fproj%20a%2Bb~c%28d%29%C3%A9",
  );
});

Deno.test("locateGrokTranscript() finds updates.jsonl of the pinned session under the realpath cwd", async () => {
  const base = await Deno.makeTempDir({ prefix: "grok-loc-" });
  try {
    const cwd = join(base, "proj (x)");
    await Deno.mkdir(cwd);
    await Deno.symlink(cwd, join(base, "link"));
    const sid = "22222222-3333-4444-8555-666666666666";
    const env = { HOME: join(base, "home") };
    const ctx = { cwd: join(base, "link"), env, since: 0, pinnedSessionId: sid };
    assertEquals(await locateGrokTranscript(ctx), []);
    const sdir = join(base, "home", ".grok", "sessions", grokCwdKey(await Deno.realPath(cwd)), sid);
    await Deno.mkdir(sdir, { recursive: true });
    await Deno.writeTextFile(join(sdir, "updates.jsonl"), "");
    assertEquals(await locateGrokTranscript(ctx), [join(sdir, "updates.jsonl")]);
    assertEquals(await locateGrokTranscript({ ...ctx, pinnedSessionId: null }), []);
    const gh = join(base, "gh");
    const sdir2 = join(gh, "sessions", grokCwdKey(await Deno.realPath(cwd)), sid);
    await Deno.mkdir(sdir2, { recursive: true });
    await Deno.writeTextFile(join(sdir2, "updates.jsonl"), "");
    assertEquals(await locateGrokTranscript({ ...ctx, env: { ...env, GROK_HOME: gh } }), [
      join(await Deno.realPath(gh), "sessions", grokCwdKey(await Deno.realPath(cwd)), sid, "updates.jsonl"),
    ]);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
