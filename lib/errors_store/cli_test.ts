import { assert, assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import { runErrorsCommand } from "./cli.ts";
import { fingerprintOf } from "./codes.ts";
import { RuntimeErrorStore } from "./store.ts";

interface Run {
  code: number;
  out: string;
  err: string;
}

async function run(args: string[], env: Record<string, string>): Promise<Run> {
  let out = "";
  let err = "";
  const code = await runErrorsCommand(args, env, {
    io: { stdout: (t) => (out += t), stderr: (t) => (err += t) },
  });
  return { code, out, err };
}

async function withRoot(fn: (root: string, env: Record<string, string>) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir();
  try {
    await fn(root, { AITERM_STATE_DIR: root });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("errors snapshot prints the aggregate as one JSON line", async () => {
  await withRoot(async (root, env) => {
    let r = await run(["snapshot"], env);
    assertEquals([r.code, JSON.parse(r.out)], [0, {
      schema: "aiterm.runtime-errors.v1",
      status: "absent",
      seq: 0,
      entries: [],
    }]);
    await new RuntimeErrorStore(root).record("AITERM.PTY_DEPENDENCY_UNAVAILABLE");
    r = await run(["snapshot"], env);
    assertEquals(r.code, 0);
    assert(r.out.endsWith("\n") && r.out.split("\n").length === 2);
    const snap = JSON.parse(r.out);
    assertEquals([snap.status, snap.seq, snap.entries[0].code], ["ready", 1, "AITERM.PTY_DEPENDENCY_UNAVAILABLE"]);
    assert(!r.out.includes(root), "no path in the output");
  });
});

Deno.test("errors ack / resolve / reopen change status and print a result", async () => {
  await withRoot(async (root, env) => {
    const store = new RuntimeErrorStore(root);
    await store.record("AITERM.INTERNAL");
    const fp = fingerprintOf("AITERM.INTERNAL");
    let r = await run(["ack", "--cursor", "1"], env);
    assertEquals([r.code, JSON.parse(r.out)], [0, {
      schema: "aiterm.runtime-errors.result.v1",
      ok: true,
      action: "ack",
      changed: 1,
      seq: 1,
    }]);
    r = await run(["ack", "--cursor", "5"], env);
    assertEquals([r.code, JSON.parse(r.out).error], [1, "CURSOR_AHEAD"]);
    r = await run(["resolve", "--fingerprint", fp], env);
    assertEquals([r.code, JSON.parse(r.out).changed], [0, 1]);
    assertEquals((await store.snapshot()).entries[0]?.status, "resolved");
    r = await run(["reopen", `--fingerprint=${fp}`], env);
    assertEquals([r.code, JSON.parse(r.out).changed], [0, 1]);
    assertEquals((await store.snapshot()).entries[0]?.status, "open");
    r = await run(["resolve", "--fingerprint", fingerprintOf("AITERM.TRANSCRIPT_UNREADABLE")], env);
    assertEquals([r.code, JSON.parse(r.out).error], [1, "NOT_FOUND"]);
  });
});

Deno.test("errors: bad arguments exit 2 and write nothing to stdout", async () => {
  await withRoot(async (root, env) => {
    const cases = [
      [],
      ["list"],
      ["snapshot", "extra"],
      ["snapshot", "--cursor", "1"],
      ["ack"],
      ["ack", "--cursor", "-1"],
      ["ack", "--cursor", "1.5"],
      ["ack", "--cursor", "x"],
      ["ack", "--fingerprint", fingerprintOf("AITERM.INTERNAL")],
      ["resolve"],
      ["resolve", "--fingerprint", "some free text"],
      ["reopen", "--fingerprint", "sha256:" + "0".repeat(64)],
      ["snapshot", "--verbose"],
    ];
    for (const args of cases) {
      const r = await run(args, env);
      assertEquals([r.code, r.out], [2, ""], args.join(" "));
      assertStringIncludes(r.err, "aiterm-mcp errors");
    }
    assertEquals([...Deno.readDirSync(root)], [], "bad arguments touch nothing");
    const help = await run(["--help"], env);
    assertEquals(help.code, 0);
    assertStringIncludes(help.out, "ack --cursor N");
  });
});

Deno.test("errors snapshot on a FIFO exits 1 quickly with status unreadable", async () => {
  if (Deno.build.os === "windows") return;
  await withRoot(async (root, env) => {
    const store = new RuntimeErrorStore(root);
    Deno.mkdirSync(store.dir, { recursive: true, mode: 0o700 });
    assert((await new Deno.Command("mkfifo", { args: [store.file] }).output()).success);
    const started = performance.now();
    const r = await run(["snapshot"], env);
    assert(performance.now() - started < 2000);
    assertEquals([r.code, JSON.parse(r.out).status], [1, "unreadable"]);
    const ack = await run(["ack", "--cursor", "0"], env);
    assertEquals([ack.code, JSON.parse(ack.out).error], [1, "UNREADABLE"]);
  });
});
