/**
 * The 64 KiB promise (issue 14 item 6): every text up to exactly 65,536 bytes of UTF-8 arrives whole
 * and in order, whatever its characters, lines or the state path length; 65,537 bytes types nothing.
 * What arrived is checked in the shell's own files (size and SHA-256), through the real MCP client.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };
const LIMIT = 65_536;
const encoder = new TextEncoder();

/** A deterministic pseudo-random generator (tests must be reproducible). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Exactly `bytes` UTF-8 bytes drawn from `alphabet` (every member must have the same UTF-8 size). */
function textOf(alphabet: string[], bytes: number, seed: number): string {
  const next = rng(seed);
  const width = encoder.encode(alphabet[0]!).length;
  let out = "";
  for (let i = 0; i < Math.floor(bytes / width); i++) out += alphabet[Math.floor(next() * alphabet.length)]!;
  out += "a".repeat(bytes % width);
  assertEquals(encoder.encode(out).length, bytes);
  return out;
}

/** Lines of 0–120 characters (ASCII, CJK and emoji mixed, tabs inside) totalling exactly `bytes`. */
function linesOf(bytes: number, seed: number): string {
  const next = rng(seed);
  const pool = [..."abcdefghijklmnopqrstuvwxyz0123456789 \t$'\"\\#;{}()", "漢", "字", "テ", "ス", "ト", "😀", "🚀"];
  const parts: string[] = [];
  let size = 0;
  for (;;) {
    let line = "";
    const len = Math.floor(next() * 120);
    for (let i = 0; i < len; i++) line += pool[Math.floor(next() * pool.length)]!;
    const n = encoder.encode(line).length + 1;
    if (size + n > bytes - 1) break;
    parts.push(line);
    size += n;
  }
  parts.push("z".repeat(bytes - size - 1));
  const text = parts.join("\n") + "\n";
  assertEquals(encoder.encode(text).length, bytes);
  return text;
}

async function sha256(data: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The pane's foreground command, straight from tmux. */
async function foreground(socket: string, env: Record<string, string>, id: string): Promise<string> {
  const out = await new Deno.Command("tmux", {
    args: ["-S", socket, "-f", "/dev/null", "display", "-p", "-t", `=${id}:`, "#{pane_current_command}"],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

interface Receiver {
  file: string;
  done: string;
}

/**
 * Starts a reader in the session and waits until it is the pane's foreground program. `raw`: the
 * terminal in raw mode and `head -c N` (lines of any length, bytes exact); otherwise `cat` in the
 * terminal's normal line mode (ended with C-d).
 */
async function startReceiver(
  c: TestClient,
  socket: string,
  env: Record<string, string>,
  id: string,
  dir: string,
  name: string,
  raw: number | null,
): Promise<Receiver> {
  const file = `${dir}/${name}.bin`;
  const done = `${dir}/${name}.done`;
  const text = raw !== null
    ? `stty raw -echo; head -c ${raw} > ${file}; stty sane; echo ok > ${done}`
    : `cat > ${file}; echo ok > ${done}`;
  await c.ok("pty_send", { wait: false, session_id: id, text });
  const program = raw !== null ? "head" : "cat";
  await eventually(async () => (await foreground(socket, env, id)) === program, 20_000, program);
  return { file, done };
}

async function received(r: Receiver): Promise<Uint8Array> {
  await eventually(() => Deno.readTextFile(r.done).catch(() => null), 120_000, r.done);
  return await Deno.readFile(r.file);
}

async function assertArrived(got: Uint8Array, want: string, label: string): Promise<void> {
  const bytes = encoder.encode(want);
  assertEquals(got.length, bytes.length, `${label}: byte count`);
  assertEquals(await sha256(got), await sha256(bytes), `${label}: checksum`);
}

Deno.test(
  "65,536-byte sends of ASCII, CJK and emoji arrive byte-exact (raw into a raw-mode reader)",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
    const cases: [string, string][] = [
      ["ascii", textOf([..."abcdefghijklmnopqrstuvwxyz0123456789 ;#{}()$'\"\\"], LIMIT, 1)],
      ["cjk", textOf([..."漢字仮名交じり文東京大阪日本語テスト"], LIMIT, 2)],
      ["emoji", textOf([..."😀🚀🎉🧪🐢🦀🍣🌏"], LIMIT, 3)],
    ];
    for (const [label, text] of cases) {
      const r = await startReceiver(c, t.socketPath, t.env, session_id, t.root, label, LIMIT);
      const sent = await c.ok<{ bytes: number; mode: string }>("pty_send", {
        wait: false,
        session_id,
        text,
        raw: true,
        enter: false,
      });
      assertEquals([sent.bytes, sent.mode], [LIMIT, "raw"]);
      await assertArrived(await received(r), text, label);
    }
  },
);

Deno.test("a 65,536-byte multi-line text typed into a line-mode reader arrives whole, in order", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  const text = linesOf(LIMIT, 4);
  const r = await startReceiver(c, t.socketPath, t.env, session_id, t.root, "lines", null);
  const sent = await c.ok<{ bytes: number; mode: string }>("pty_send", { wait: false, session_id, text, enter: false });
  assertEquals([sent.bytes, sent.mode], [LIMIT, "typed"]);
  // C-d at the start of a line ends cat once every line has been read.
  await eventually(
    async () => {
      const st = await Deno.stat(r.file).catch(() => null);
      return st !== null && st.size >= LIMIT;
    },
    120_000,
    "all lines read",
  );
  await c.ok("pty_key", { session_id, key: "C-d" });
  await assertArrived(await received(r), text, "lines");
});

Deno.test("a 65,536-byte multi-line script runs whole in script mode (heredoc into a file)", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  const head = `cat > ${t.root}/script.out <<'AITERM_END'\n`;
  const tail = "AITERM_END\necho ok > script.done";
  const body = linesOf(LIMIT - encoder.encode(head + tail).length, 5);
  const script = head + body + tail;
  assertEquals(encoder.encode(script).length, LIMIT);
  const sent = await c.ok<{ bytes: number; mode: string }>("pty_send", { wait: false, session_id, text: script });
  assertEquals([sent.bytes, sent.mode], [LIMIT, "script"]);
  await eventually(() => Deno.readTextFile(`${t.root}/script.done`).catch(() => null), 120_000, "script.done");
  await assertArrived(await Deno.readFile(`${t.root}/script.out`), body, "script");
});

Deno.test("a program that reads 64 bytes every 5 ms still gets all 65,536 bytes, in order", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  const reader = `${t.root}/slow.ts`;
  await Deno.writeTextFile(
    reader,
    `const [n, out, done] = Deno.args; Deno.stdin.setRaw(true); await Deno.writeTextFile(done + ".ready", "");
const f = await Deno.open(out, { write: true, create: true }); const buf = new Uint8Array(64); let got = 0;
while (got < Number(n)) { const k = await Deno.stdin.read(buf); if (k === null) break;
  await f.write(buf.subarray(0, k)); got += k; await new Promise((r) => setTimeout(r, 5)); }
f.close(); Deno.stdin.setRaw(false); await Deno.writeTextFile(done, "ok");`,
  );
  const file = `${t.root}/slow.bin`;
  const done = `${t.root}/slow.done`;
  await c.ok("pty_send", {
    wait: false,
    session_id,
    text: `'${Deno.execPath()}' run -A ${reader} ${LIMIT} ${file} ${done}`,
  });
  // Raw mode first: in line mode the terminal itself keeps only 4,095 bytes of an unfinished line.
  await eventually(() => Deno.stat(`${done}.ready`).catch(() => null), 30_000, "reader in raw mode");
  const text = textOf([..."abcdefghijklmnopqrstuvwxyz"], LIMIT, 8);
  await c.ok("pty_send", { wait: false, session_id, text, raw: true, enter: false });
  await assertArrived(await received({ file, done }), text, "slow reader");
});

Deno.test("65,537 bytes is INPUT_TOO_LARGE and types nothing; 65,536 right after arrives exactly", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  const r = await startReceiver(c, t.socketPath, t.env, session_id, t.root, "edge", LIMIT);
  // 21,846 CJK characters: fewer characters than the limit, 65,538 bytes.
  for (const over of ["x".repeat(LIMIT + 1), "漢".repeat(21_846)]) {
    const e = await c.err("pty_send", { wait: false, session_id, text: over, raw: true, enter: false });
    assertEquals(e.code, "INPUT_TOO_LARGE");
  }
  const ok = textOf([..."0123456789abcdef"], LIMIT, 6);
  await c.ok("pty_send", { wait: false, session_id, text: ok, raw: true, enter: false });
  // head stops after exactly 65,536 bytes: any byte of a refused send would shift or replace these.
  await assertArrived(await received(r), ok, "after refusals");
});

Deno.test("a long state directory path does not lower the limit", opts, async () => {
  await using t = await makeTestEnv();
  // The socket path (state dir + "/tmux.sock") stays under the 100-byte socket limit.
  const stateDir = `${t.root}/${"d".repeat(87 - t.root.length)}`;
  assertEquals(stateDir.length, 88);
  const env = { ...t.env, AITERM_STATE_DIR: stateDir };
  const socket = `${stateDir}/tmux.sock`;
  try {
    await using c = await connect(env);
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
    const r = await startReceiver(c, socket, env, session_id, t.root, "long", LIMIT);
    const text = textOf([..."abcdefghijklmnopqrstuvwxyz"], LIMIT, 7);
    await c.ok("pty_send", { wait: false, session_id, text, raw: true, enter: false });
    await assertArrived(await received(r), text, "long state path");
    const scratch = [...Deno.readDirSync(`${stateDir}/scratch`)].map((e) => e.name);
    assert(scratch.length === 0, `scratch files left: ${scratch.join(", ")}`);
  } finally {
    await new Deno.Command("tmux", { args: ["-S", socket, "kill-server"], stdout: "null", stderr: "null" }).output();
  }
});
