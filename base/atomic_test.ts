import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { atomicTempName, replaceFile, replaceFileSync } from "./atomic.ts";

const posix = Deno.build.os !== "windows";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "aiterm_atomic_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("replaceFile() writes a new file owner-only and replaces an old one whole", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/state.json`;
    await replaceFile(path, "one\n");
    assertEquals(Deno.readTextFileSync(path), "one\n");
    if (posix) assertEquals(Deno.statSync(path).mode! & 0o777, 0o600);
    await replaceFile(path, new TextEncoder().encode("two\n"), { sync: false });
    assertEquals(Deno.readTextFileSync(path), "two\n");
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["state.json"]);
  });
});

Deno.test({
  name: "replaceFile() and replaceFileSync() set an asked-for mode exactly, past the umask",
  ignore: !posix,
  fn: async () => {
    await withDir(async (dir) => {
      await replaceFile(`${dir}/a.sh`, "#!/bin/sh\n", { mode: 0o700 });
      replaceFileSync(`${dir}/b.sh`, "#!/bin/sh\n", { mode: 0o755, sync: false });
      assertEquals(Deno.statSync(`${dir}/a.sh`).mode! & 0o777, 0o700);
      assertEquals(Deno.statSync(`${dir}/b.sh`).mode! & 0o777, 0o755);
    });
  },
});

Deno.test("replaceFile(): a write that fails before the rename leaves the target as it was and no temp file", async () => {
  await withDir(async (dir) => {
    const path = `${dir}/state.json`;
    await replaceFile(path, "old\n");
    let thrown: unknown = null;
    try {
      await replaceFile(path, "new\n", {
        beforeRename: () => {
          throw new Error("interrupted");
        },
      });
    } catch (err) {
      thrown = err;
    }
    assertEquals((thrown as Error).message, "interrupted");
    assertEquals(Deno.readTextFileSync(path), "old\n");
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name), ["state.json"]);
    let missing: unknown = null;
    try {
      replaceFileSync(`${dir}/no/such/dir/file`, "x");
    } catch (err) {
      missing = err;
    }
    assert(missing instanceof Deno.errors.NotFound, String(missing));
  });
});

Deno.test({
  name: "replaceFile(): a writer SIGKILLed midway leaves the old file whole (only its temp file stays behind)",
  ignore: !posix,
  sanitizeOps: true,
  sanitizeResources: true,
  fn: async () => {
    await withDir(async (dir) => {
      const path = `${dir}/state.json`;
      await replaceFile(path, JSON.stringify({ v: "old" }));
      const module = new URL("./atomic.ts", import.meta.url).href;
      // The writer signals once its temp file is complete, then hangs before the rename until it is killed.
      const script = `
        import { replaceFile } from ${JSON.stringify(module)};
        await replaceFile(${JSON.stringify(path)}, JSON.stringify({ v: "new", pad: "x".repeat(1 << 20) }), {
          beforeRename: async () => { console.log("ready"); await new Promise(() => setInterval(() => {}, 1000)); },
        });`;
      const child = new Deno.Command(Deno.execPath(), {
        args: ["eval", script],
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let seen = "";
      while (!seen.includes("ready")) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += value;
      }
      child.kill("SIGKILL");
      await child.status;
      await reader.cancel();
      assert(seen.includes("ready"), "the writer reached the rename");
      assertEquals(JSON.parse(Deno.readTextFileSync(path)), { v: "old" });
      const left = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== "state.json");
      assertEquals(left.length, 1);
      assert(/^state\.json\.[0-9a-f]{12}\.tmp$/.test(left[0]!), left[0]);
    });
  },
});

Deno.test("atomicTempName() names a temp file beside the target", () => {
  assert(/^\/x\/y\.json\.[0-9a-f]{12}\.tmp$/.test(atomicTempName("/x/y.json")));
  assert(atomicTempName("/x/y") !== atomicTempName("/x/y"));
});

Deno.test("replaceFile() and replaceFileSync(): a caller's temp name, and a directory sync after the rename", async () => {
  await withDir(async (dir) => {
    const seen: string[] = [];
    const tempName = (path: string) => `${path}.mine-${seen.length}.tmp`;
    const record = (tmp: string) => void seen.push(tmp);
    await replaceFile(`${dir}/a.json`, "a\n", { syncDir: true, tempName, beforeRename: record });
    replaceFileSync(`${dir}/b.json`, "b\n", { syncDir: true, tempName, beforeRename: record });
    assertEquals(seen, [`${dir}/a.json.mine-0.tmp`, `${dir}/b.json.mine-1.tmp`]);
    assertEquals(Deno.readTextFileSync(`${dir}/a.json`), "a\n");
    assertEquals(Deno.readTextFileSync(`${dir}/b.json`), "b\n");
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["a.json", "b.json"]);
  });
});
