/** tmux pastes (issue 14 items 6/7): one fixed-size invocation, exact bytes, no scratch file or buffer left. */
import { assert, assertEquals, assertRejects } from "../tests/helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv } from "../tests/helpers/env.ts";
import { createTmux, pasteArgs } from "./tmux.ts";
import { identityHash, scratchOwnerGone, scratchTag, sweepScratch } from "./scratch.ts";
import { processStartIdentity } from "./process.ts";

const encoder = new TextEncoder();
/** What tmux counts against its 16 KiB command limit: every argument plus its NUL. */
const commandBytes = (args: string[]) => args.reduce((n, a) => n + encoder.encode(a).length + 1, 0);

Deno.test("pasteArgs() does not grow with the text and keeps Enter in the same command list", () => {
  const file = `/${"p".repeat(200)}/aiterm-1-00000000-1-abcdef12`;
  const args = pasteArgs("=t1:", "aiterm-1-00000000-1-abcdef12", file, { exact: true, keysAfter: ["Enter"] });
  assert(commandBytes(args) < 400, `${commandBytes(args)} bytes`);
  assertEquals(args.slice(-5), [";", "send-keys", "-t", "=t1:", "Enter"]);
  assertEquals(args.filter((a) => a === "paste-buffer").length, 1);
  assertEquals(pasteArgs("=t1:", "b", "/x#{y}", {})[3], "/x##{y}");
  assert(pasteArgs("=t1:", "b", "/f", { bracketed: true }).includes("-p"));
});

Deno.test("scratch names carry the writer's pid and identity; the sweep removes only dead writers' files", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const mine = scratchTag();
    assert(mine.startsWith(`aiterm-${Deno.pid}-${identityHash(processStartIdentity(Deno.pid))}-`), mine);
    const child = new Deno.Command("true").spawn();
    await child.status;
    const dead = `aiterm-${child.pid}-${identityHash("linux:1")}-1-deadbeef`;
    const reused = `aiterm-${Deno.pid}-${identityHash("another start")}-1-deadbeef`;
    const legacy = `aiterm-${child.pid}-7-deadbeef.0`;
    for (const name of [mine, dead, reused, legacy, "unrelated.txt"]) await Deno.writeTextFile(`${dir}/${name}`, "x");
    assertEquals([scratchOwnerGone(mine), scratchOwnerGone(dead), scratchOwnerGone(reused)], [false, true, true]);
    assertEquals(await sweepScratch(dir), 3);
    assertEquals([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [mine, "unrelated.txt"].sort());
    assertEquals(await sweepScratch(`${dir}/missing`), 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "pasteText() types 65,536 bytes exactly from a scratch dir named like a format, leaving nothing behind",
  ignore: !hasTmux,
  async fn() {
    await using t = await makeTestEnv();
    const scratch = `${t.root}/x#(touch ${t.root}/PWNED)#{session_name}`;
    await Deno.mkdir(scratch, { recursive: true });
    await Deno.mkdir(t.stateDir, { recursive: true });
    const mux = createTmux({ socketPath: t.socketPath, scratchDir: scratch, env: t.env });
    const out = `${t.root}/got.bin`;
    const reader = `stty raw -echo; touch '${out}.ready'; head -c 65536 > '${out}'; touch '${out}.done'; sleep 60`;
    await t.tmux("new-session", "-d", "-s", "p", "--", "sh", "-c", reader);
    await eventually(() => Deno.stat(`${out}.ready`).catch(() => null), 10_000, "reader in raw mode");
    // Sizes that straddle the old one-command-line limit, in one paste each.
    const text = "0123456789abcdef".repeat(4096);
    const chunks = [encoder.encode(text.slice(0, 1000)), encoder.encode(text.slice(1000))];
    await mux.pasteText("p", chunks, { exact: true });
    await eventually(() => Deno.stat(`${out}.done`).catch(() => null), 30_000, "reader done");
    assertEquals(await Deno.readTextFile(out), text);
    assertEquals([...Deno.readDirSync(scratch)], []);
    assertEquals((await t.tmux("list-buffers")).stdout, "");
    assertEquals(await Deno.stat(`${t.root}/PWNED`).then(() => true, () => false), false, "a #(…) ran");
    // A paste to a session that is gone fails, and leaves neither the file nor the loaded buffer.
    await assertRejects(() => mux.pasteText("gone", [encoder.encode("secret text")], { keysAfter: ["Enter"] }));
    assertEquals([...Deno.readDirSync(scratch)], []);
    assertEquals((await t.tmux("list-buffers")).stdout, "");
  },
});
