/** tmux pastes (issue 14 items 6/7): one fixed-size invocation, exact bytes, no scratch file or buffer left. */
import { assert, assertEquals, assertRejects } from "../../tests/helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../../tests/helpers/env.ts";
import { createTmux } from "./tmux.ts";
import { pasteArgs } from "./paste_args.ts";
import { identityHash, scratchOwnerGone, scratchTag, sweepScratch } from "../scratch.ts";
import { processStartIdentity } from "../process.ts";

/** A tmux backend on the control transport over `t`'s socket (close it when done). */
function controlMux(t: TestEnv) {
  return createTmux({ socketPath: t.socketPath, scratchDir: t.root, env: t.env, transport: "control" }) as
    & ReturnType<typeof createTmux>
    & { close(): Promise<void> };
}

/** Session `name` whose pane has exited and stays (remain-on-exit), for "a dead pane gets nothing". */
async function deadPane(t: TestEnv, name: string): Promise<void> {
  await t.tmux("new-session", "-d", "-s", name, "--", "sleep", "0.5");
  await t.tmux("set-option", "-w", "-t", `=${name}:`, "remain-on-exit", "on");
  await eventually(async () => (await t.tmux("display", "-p", "-t", `=${name}:`, "#{pane_dead}")).stdout === "1\n");
}

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
    const mine = scratchTag(1);
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

for (const transport of ["cli", "control"] as const) {
  Deno.test({
    name:
      `pasteText() on the ${transport} transport types 65,536 bytes exactly from a scratch dir named like a format, leaving nothing behind`,
    ignore: !hasTmux,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await using t = await makeTestEnv();
      const scratch = `${t.root}/x#(touch ${t.root}/PWNED)#{session_name}`;
      await Deno.mkdir(scratch, { recursive: true });
      await Deno.mkdir(t.stateDir, { recursive: true });
      const mux = createTmux({ socketPath: t.socketPath, scratchDir: scratch, env: t.env, transport }) as
        & ReturnType<typeof createTmux>
        & { close(): Promise<void> };
      try {
        const out = `${t.root}/got.bin`;
        const reader = `stty raw -echo; touch '${out}.ready'; head -c 65536 > '${out}'; touch '${out}.done'; sleep 60`;
        await t.tmux("new-session", "-d", "-s", "p", "--", "sh", "-c", reader);
        await eventually(() => Deno.stat(`${out}.ready`).catch(() => null), 10_000, "reader in raw mode");
        // Sizes that straddle the old one-command-line limit, in one paste each; every byte tmux's parser or a
        // shell could read specially (quotes, `;`, `#{`, `$`, `~`, backslashes, control characters, CJK, emoji).
        const tricky = " ;\"'\\$~#{x}#(touch PWNED)%d\t\r\x1b\x7f\x01é漢😀 ";
        const unit = "0123456789abcdef".repeat(60) + tricky;
        let text = "";
        while (encoder.encode(text + unit).length <= 65_536) text += unit;
        text += "z".repeat(65_536 - encoder.encode(text).length);
        assertEquals(encoder.encode(text).length, 65_536);
        await mux.pasteText("p", text, { exact: true });
        await eventually(() => Deno.stat(`${out}.done`).catch(() => null), 30_000, "reader done");
        assertEquals(await Deno.readTextFile(out), text);
        assertEquals([...Deno.readDirSync(scratch)], []);
        assertEquals((await t.tmux("list-buffers")).stdout, "");
        assertEquals(await Deno.stat(`${t.root}/PWNED`).then(() => true, () => false), false, "a #(…) ran");
        // A paste to a session that is gone fails, and leaves neither the file nor the loaded buffer.
        await assertRejects(() => mux.pasteText("gone", "secret text", { keysAfter: ["Enter"] }));
        assertEquals([...Deno.readDirSync(scratch)], []);
        assertEquals((await t.tmux("list-buffers")).stdout, "");
      } finally {
        await mux.close();
      }
    },
  });
}

Deno.test({
  name: "pasteText() on the control transport: bytes that are not UTF-8 take the file way and arrive exactly",
  ignore: !hasTmux,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    await Deno.mkdir(t.stateDir, { recursive: true });
    const mux = controlMux(t);
    try {
      const out = `${t.root}/got.bin`;
      const reader = `stty raw -echo; touch '${out}.ready'; head -c 6 > '${out}'; touch '${out}.done'; sleep 60`;
      await t.tmux("new-session", "-d", "-s", "p", "--", "sh", "-c", reader);
      await eventually(() => Deno.stat(`${out}.ready`).catch(() => null), 10_000, "reader in raw mode");
      const bytes = new Uint8Array([0x61, 0xff, 0xfe, 0xc3, 0x28, 0x62]);
      await mux.pasteText("p", bytes, { exact: true });
      await eventually(() => Deno.stat(`${out}.done`).catch(() => null), 10_000, "reader done");
      assertEquals(await Deno.readFile(out), bytes);
    } finally {
      await mux.close();
    }
  },
});

Deno.test({
  name:
    "pasteIfReady() types in the same round trip as the pane check; a pane gone, dead or without its log writer gets nothing",
  ignore: !hasTmux,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    await Deno.mkdir(t.stateDir, { recursive: true });
    const mux = controlMux(t);
    const cli = createTmux({ socketPath: t.socketPath, scratchDir: t.root, env: t.env });
    try {
      const out = `${t.root}/got.txt`;
      await t.tmux("new-session", "-d", "-s", "p", "--", "sh", "-c", `stty raw -echo; exec cat > '${out}'`);
      await t.tmux("pipe-pane", "-t", "=p:", "cat > /dev/null");
      await t.tmux("new-session", "-d", "-s", "nopipe", "--", "sh", "-c", "stty raw -echo; exec cat > /dev/null");
      await deadPane(t, "dead");
      const bytes = (s: string) => encoder.encode(s);
      const text = `a;b "c" \\d $e ~f #{g} %h\ttab é漢😀 ;`;
      assertEquals(await mux.pasteIfReady!("p", bytes(text), { exact: true }), "typed");
      for (const name of ["nopipe", "dead", "missing"]) {
        assertEquals(await mux.pasteIfReady!(name, bytes("never"), { exact: true, keysAfter: ["Enter"] }), "not_ready");
      }
      assertEquals(await cli.pasteIfReady!("p", bytes("never")), "unavailable");
      // Mixed with other calls on the same client, every reply is its own (the branch's blocks are counted).
      const calls = Array.from(
        { length: 30 },
        (_, i) =>
          i % 3 === 0
            ? mux.pasteIfReady!("p", bytes(`<${i}>`), { exact: true }).then((r) => assertEquals(r, "typed"))
            : i % 3 === 1
            ? mux.pasteIfReady!("nopipe", bytes(`<${i}>`), { keysAfter: ["Enter"] }).then((r) =>
              assertEquals(r, "not_ready")
            )
            : mux.hasSession(`missing-${i}`).then((r) => assertEquals(r, false)),
      );
      await Promise.all(calls);
      const expected = text + Array.from({ length: 10 }, (_, k) => `<${3 * k}>`).join("");
      const got = await eventually(
        async () => {
          const s = await Deno.readTextFile(out).catch(() => "");
          return s.length >= expected.length ? s : null;
        },
        10_000,
        "the typed text",
      );
      assertEquals(got, expected);
      assertEquals((await t.tmux("list-buffers")).stdout, "", "no buffer is left");
    } finally {
      await mux.close();
    }
  },
});

Deno.test({
  name: "sendKeysIfAlive() presses keys in the same round trip as the pane check; a pane gone or dead gets nothing",
  ignore: !hasTmux,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using t = await makeTestEnv();
    await Deno.mkdir(t.stateDir, { recursive: true });
    const mux = controlMux(t);
    const cli = createTmux({ socketPath: t.socketPath, scratchDir: t.root, env: t.env });
    try {
      const out = `${t.root}/keys.bin`;
      await t.tmux("new-session", "-d", "-s", "k", "--", "sh", "-c", `stty raw -echo; exec cat > '${out}'`);
      await deadPane(t, "dead");
      // Characters tmux's parser treats specially, at both levels (the line and the if-shell branch it parses again).
      const keys = [";", '"', "\\", "$", "~", "#", "{", "}", "'", "%", "M-;", "a", "Space", "M-#", "C-a", "Tab"];
      for (const key of keys) assertEquals(await mux.sendKeysIfAlive!("k", [key]), "typed", key);
      assertEquals(await mux.sendKeysIfAlive!("k", ["x", "y"]), "typed");
      for (const name of ["dead", "missing"]) assertEquals(await mux.sendKeysIfAlive!(name, ["z"]), "not_ready", name);
      assertEquals(await cli.sendKeysIfAlive!("k", ["z"]), "unavailable");
      const expected = ";\"\\$~#{}'%\x1b;a \x1b#\x01\txy";
      const got = await eventually(
        async () => {
          const s = await Deno.readTextFile(out).catch(() => "");
          return s.length >= expected.length ? s : null;
        },
        10_000,
        "the pressed keys",
      );
      assertEquals(got, expected);
    } finally {
      await mux.close();
    }
  },
});
