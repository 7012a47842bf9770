import { assert, assertEquals, assertRejects } from "../../../tests/helpers/assert.ts";
import { type ConfigContent, SetupFailure, updateJsonConfig, writeFileAtomically } from "./config_file.ts";
import { setNestedMember } from "./json_edit.ts";

const ENTRY = { command: "/opt/aiterm-mcp", args: [] };
const addAiterm = ({ text, root }: ConfigContent) => setNestedMember(text, root, "mcpServers", "aiterm", ENTRY);
const STRICT = { jsonc: false, dryRun: false };

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "aiterm-setup-cfg-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function names(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

Deno.test("a symlinked config: the target is updated, the link stays, the backup sits beside the target", () =>
  withDir(async (dir) => {
    await Deno.mkdir(`${dir}/dotfiles`);
    const before = '{"mcpServers": {"other": {"command": "x"}}}\n';
    await Deno.writeTextFile(`${dir}/dotfiles/c.json`, before);
    await Deno.symlink(`${dir}/dotfiles/c.json`, `${dir}/c.json`);
    const r = await updateJsonConfig(`${dir}/c.json`, addAiterm, STRICT);
    assertEquals(r.outcome, "written");
    assertEquals(r.kind, "symlink");
    assert((await Deno.lstat(`${dir}/c.json`)).isSymlink, "the link was replaced");
    const after = JSON.parse(await Deno.readTextFile(`${dir}/dotfiles/c.json`));
    assertEquals(after.mcpServers, { other: { command: "x" }, aiterm: ENTRY });
    assertEquals(await Deno.readTextFile(`${dir}/dotfiles/c.json.aiterm-backup`), before);
    assertEquals(await names(dir), ["c.json", "dotfiles"]);
  }));

Deno.test("a BOM and the file mode are kept; an unchanged file is not written", () =>
  withDir(async (dir) => {
    const path = `${dir}/c.json`;
    await Deno.writeTextFile(path, '\uFEFF{"a": 1}');
    await Deno.chmod(path, 0o640);
    await updateJsonConfig(path, addAiterm, STRICT);
    const bytes = await Deno.readFile(path);
    assertEquals([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o640);
    const mtime = (await Deno.stat(path)).mtime?.getTime();
    const again = await updateJsonConfig(path, ({ text }) => text, STRICT);
    assertEquals(again.outcome, "unchanged");
    assertEquals((await Deno.stat(path)).mtime?.getTime(), mtime);
  }));

Deno.test("a read-only config fails with config_readonly and stays untouched (even for root)", () =>
  withDir(async (dir) => {
    const path = `${dir}/c.json`;
    await Deno.writeTextFile(path, "{}");
    await Deno.chmod(path, 0o444);
    const err = await assertRejects(() => updateJsonConfig(path, addAiterm, STRICT));
    assert(err instanceof SetupFailure && err.reasonCode === "config_readonly", String(err));
    assertEquals(await Deno.readTextFile(path), "{}");
    assertEquals(await names(dir), ["c.json"]);
  }));

Deno.test("a corrupt config fails with config_invalid; it and an older backup stay untouched", () =>
  withDir(async (dir) => {
    const path = `${dir}/c.json`;
    await Deno.writeTextFile(path, '{"a": 1,, "token": "s3cret"');
    await Deno.writeTextFile(`${path}.aiterm-backup`, "older backup");
    const err = await assertRejects(() => updateJsonConfig(path, addAiterm, STRICT));
    assert(err instanceof SetupFailure && err.reasonCode === "config_invalid", String(err));
    assert(!err.message.includes("s3cret"), "the message leaks file content");
    assertEquals(await Deno.readTextFile(path), '{"a": 1,, "token": "s3cret"');
    assertEquals(await Deno.readTextFile(`${path}.aiterm-backup`), "older backup");
  }));

Deno.test("a dangling symlink is config_invalid", () =>
  withDir(async (dir) => {
    await Deno.symlink(`${dir}/nowhere.json`, `${dir}/c.json`);
    const err = await assertRejects(() => updateJsonConfig(`${dir}/c.json`, addAiterm, STRICT));
    assert(err instanceof SetupFailure && err.reasonCode === "config_invalid", String(err));
  }));

Deno.test("dry run reports the write and changes nothing; a missing file is created 0600", () =>
  withDir(async (dir) => {
    const path = `${dir}/sub/c.json`;
    const dry = await updateJsonConfig(path, () => '{"x": 1}\n', { jsonc: false, dryRun: true });
    assertEquals(dry.outcome, "would_write");
    assertEquals(await names(dir), []);
    const real = await updateJsonConfig(path, () => '{"x": 1}\n', STRICT);
    assertEquals([real.outcome, real.kind, real.backup], ["written", "missing", undefined]);
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600);
  }));

Deno.test("a write that fails before the rename leaves the old file whole and no temp file", () =>
  withDir(async (dir) => {
    const path = `${dir}/c.json`;
    await Deno.writeTextFile(path, '{"old": true}');
    const err = await assertRejects(() =>
      updateJsonConfig(path, addAiterm, {
        ...STRICT,
        hooks: {
          beforeRename: () => {
            throw new Error("disk on fire");
          },
        },
      })
    );
    assert(err instanceof SetupFailure && err.reasonCode === "config_write_failed", String(err));
    assertEquals(await Deno.readTextFile(path), '{"old": true}');
    assertEquals(await names(dir), ["c.json", "c.json.aiterm-backup"]);
  }));

Deno.test("a process killed in the middle of a write leaves no half file; the next run removes its temp file", () =>
  withDir(async (dir) => {
    const path = `${dir}/c.json`;
    const old = JSON.stringify({ old: true, pad: "x".repeat(100_000) });
    await Deno.writeTextFile(path, old);
    const mod = new URL("./config_file.ts", import.meta.url).href;
    const script = `
      import { writeFileAtomically } from ${JSON.stringify(mod)};
      const data = new TextEncoder().encode(JSON.stringify({ new: true, pad: "y".repeat(5_000_000) }));
      await writeFileAtomically(${JSON.stringify(path)}, data, 0o600, {
        beforeRename: async () => { console.log("ready"); await new Promise(() => {}); },
      });`;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-config", script],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = child.stdout.getReader();
    const first = await reader.read();
    assertEquals(new TextDecoder().decode(first.value).trim(), "ready");
    child.kill("SIGKILL");
    await child.status;
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    assertEquals(await Deno.readTextFile(path), old);
    const leftovers = (await names(dir)).filter((n) => n.endsWith(".tmp"));
    assertEquals(leftovers.length, 1);
    await updateJsonConfig(path, addAiterm, STRICT);
    assertEquals((await names(dir)).filter((n) => n.endsWith(".tmp")), []);
    assertEquals(JSON.parse(await Deno.readTextFile(path)).mcpServers.aiterm, ENTRY);
  }));

Deno.test("writeFileAtomically never exposes a partial target to a concurrent reader", () =>
  withDir(async (dir) => {
    const path = `${dir}/f.json`;
    const a = new TextEncoder().encode(JSON.stringify({ v: "a".repeat(200_000) }));
    const b = new TextEncoder().encode(JSON.stringify({ v: "b".repeat(200_000) }));
    await writeFileAtomically(path, a, 0o600);
    let stop = false;
    let reads = 0;
    const reader = (async () => {
      while (!stop) {
        JSON.parse(await Deno.readTextFile(path));
        reads++;
      }
    })();
    for (let i = 0; i < 20; i++) await writeFileAtomically(path, i % 2 ? a : b, 0o600);
    stop = true;
    await reader;
    assert(reads > 0);
  }));
