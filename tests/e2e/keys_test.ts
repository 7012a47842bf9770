/**
 * Keys against a real tmux: every name resolveKey() accepts is sent through the platform's sendKeys
 * into a pane whose program records the raw bytes, and the bytes are the terminal's code for that key
 * (never the letters of its name). Refused combinations are shown to be ones tmux would type as
 * letters or drop. Then pty_key through the MCP client for a representative set.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import { acceptedKeyNames, resolveKey } from "../../lib/terminal/send/keys.ts";
import { createTmux, tmuxArg } from "../../platform/mod.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };
const ESC = "\x1b";
/** Sent after each key to split the recording: a character no accepted ASCII-table key produces. */
const SEP = "¤";

/** A pane that records every byte it receives (raw mode, no echo, no line editing) into `out`. */
async function recorder(t: TestEnv, session: string, out: string): Promise<void> {
  const script = `stty raw -echo -iexten && : > '${out}.ready' && exec cat > '${out}'`;
  const r = await t.tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "20", "--", "sh", "-c", script);
  assertEquals(r.code, 0, r.stderr);
  await eventually(() => Deno.stat(`${out}.ready`).catch(() => null), 10_000, "recorder in raw mode");
}

/** The recording as one byte per char (latin1), once `end` has arrived. */
async function recorded(out: string, end: string): Promise<string> {
  return await eventually(
    async () => {
      const bytes = await Deno.readFile(out).catch(() => new Uint8Array());
      const text = new TextDecoder("utf-8").decode(bytes);
      return text.endsWith(end) ? text.slice(0, -end.length) : null;
    },
    30_000,
    "recorded bytes",
  );
}

/** xterm's modifier parameter: 1 + Shift + 2·Meta + 4·Ctrl. */
function modParam(prefix: string): number {
  return 1 + (prefix.includes("S-") ? 1 : 0) + (prefix.includes("M-") ? 2 : 0) + (prefix.includes("C-") ? 4 : 0);
}

const CURSOR: Record<string, string> = { Up: "A", Down: "B", Right: "C", Left: "D", Home: "H", End: "F" };
const TILDE: Record<string, number> = {
  Insert: 2,
  Delete: 3,
  PageUp: 5,
  PageDown: 6,
  F5: 15,
  F6: 17,
  F7: 18,
  F8: 19,
  F9: 20,
  F10: 21,
  F11: 23,
  F12: 24,
};
const SS3: Record<string, string> = { F1: "P", F2: "Q", F3: "R", F4: "S" };
const PLAIN: Record<string, string> = {
  Enter: "\r",
  Tab: "\t",
  BTab: `${ESC}[Z`,
  Escape: ESC,
  BSpace: "\x7f",
  Space: " ",
  KPEnter: "\n",
};

/** The bytes a VT/xterm terminal sends for a canonical key name (cursor and keypad in normal mode). */
function expectedBytes(name: string): string {
  const fn = name.match(/^F(\d+)$/);
  if (fn && Number(fn[1]) > 12) {
    const n = Number(fn[1]);
    const prefix = ["", "S-", "C-", "C-S-", "M-", "M-S-"][Math.floor((n - 1) / 12)]!;
    return expectedBytes(`${prefix}F${((n - 1) % 12) + 1}`);
  }
  const m = name.match(/^((?:[CMS]-)*)(.+)$/s)!;
  const prefix = m[1]!;
  const base = m[2]!;
  const mod = modParam(prefix);
  if (base in CURSOR && mod > 1) return `${ESC}[1;${mod}${CURSOR[base]}`;
  if (base === "Home" || base === "End") return `${ESC}[${base === "Home" ? 1 : 4}~`;
  if (base in CURSOR) return `${ESC}[${CURSOR[base]}`;
  if (base in TILDE) return mod === 1 ? `${ESC}[${TILDE[base]}~` : `${ESC}[${TILDE[base]};${mod}~`;
  if (base in SS3) return mod === 1 ? `${ESC}O${SS3[base]}` : `${ESC}[1;${mod}${SS3[base]}`;
  const meta = prefix.includes("M-") ? ESC : "";
  if (base in PLAIN) return meta + (prefix.includes("C-") ? "\0" : PLAIN[base]!);
  if (base.startsWith("KP") && base.length === 3) return meta + base[2];
  if (prefix.includes("C-")) {
    const ctrl: Record<string, string> = { "2": "\0", "6": "\x1e", "-": "\x1f", "/": "\x1f", "?": "\x7f" };
    return meta + (ctrl[base] ?? String.fromCharCode(base.toUpperCase().charCodeAt(0) & 0x1f));
  }
  return meta + base;
}

Deno.test(
  "every accepted key arrives as its terminal code through sendKeys, never as the letters of its name",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await Deno.mkdir(t.stateDir, { recursive: true });
    const out = `${t.root}/keys.bin`;
    await recorder(t, "k", out);
    const mux = createTmux({ socketPath: t.socketPath, scratchDir: t.root, env: t.env });
    const names = acceptedKeyNames();
    // Plus non-ASCII characters, which take the same forms as Tab.
    names.push("é", "M-é", "ж", "M-漢");
    for (const name of names) await mux.sendKeys("k", [resolveKey(name).muxKey, SEP]);
    await mux.sendKeys("k", ["E", "N", "D"]);
    const parts = (await recorded(out, "END")).split(SEP);
    assertEquals(parts.pop(), "");
    assertEquals(parts.length, names.length);
    const wrong: string[] = [];
    names.forEach((name, i) => {
      const got = parts[i]!;
      const want = expectedBytes(name);
      if (got !== want) wrong.push(`${name}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      if ([...name].length > 1 && got.includes(name)) wrong.push(`${name}: typed as its name`);
    });
    assertEquals(wrong, []);
  },
);

Deno.test("the representative keys of issue 15 map to these xterm sequences (checked against tmux above)", () => {
  const want: Record<string, string> = {
    "C-Left": `${ESC}[1;5D`,
    "M-x": `${ESC}x`,
    "S-Up": `${ESC}[1;2A`,
    "F13": `${ESC}[1;2P`,
    "F20": `${ESC}[19;2~`,
    "KPEnter": "\n",
    "C-M-S-Up": `${ESC}[1;8A`,
    "M-Enter": `${ESC}\r`,
    "C-Space": "\0",
    "M-;": `${ESC};`,
    ";": ";",
  };
  for (const [name, bytes] of Object.entries(want)) assertEquals(expectedBytes(resolveKey(name).name), bytes, name);
});

Deno.test("each refused combination is one tmux itself would type as letters or drop", opts, async () => {
  await using t = await makeTestEnv();
  await Deno.mkdir(t.stateDir, { recursive: true });
  const out = `${t.root}/refused.bin`;
  await recorder(t, "r", out);
  const refused = ["S-a", "C-S-a", "C-Enter", "S-Enter", "C-Tab", "C-Escape", "C-BSpace", "C-BTab", "C-1", "C-|"];
  refused.push("C-~", "C-M-2", "S-Space", "C-KP1", "S-KPEnter", "C-é", "S-F13", "Hyper-Q", "C-cc", "F64");
  for (const name of refused) {
    let code = "";
    try {
      resolveKey(name);
    } catch (err) {
      code = (err as { code?: string }).code ?? "";
    }
    assert(code === "KEY_UNSUPPORTED" || code === "KEY_UNKNOWN", `${name} was accepted`);
    // What bare tmux does with the same name (bypassing resolveKey).
    const r = await t.tmux("send-keys", "-t", "r", tmuxArg(name), SEP);
    assertEquals(r.code, 0, r.stderr);
  }
  await t.tmux("send-keys", "-t", "r", "-l", "END");
  const parts = (await recorded(out, "END")).split(SEP);
  parts.pop();
  refused.forEach((name, i) => {
    const got = parts[i]!;
    // Nothing, the letters of the name, or the bare character with its modifier silently dropped.
    const bare = [...name].at(-1)!;
    assert(got === "" || got === name || got === bare, `${name}: tmux sent ${JSON.stringify(got)}`);
  });
});

Deno.test("pty_key sends C-Left, M-x, S-Up, F13, KPEnter and M-; through MCP and refuses S-a", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id: id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  const out = `${t.root}/mcp.bin`;
  await c.ok("pty_send", {
    wait: false,
    session_id: id,
    text: `stty raw -echo -iexten && : > '${out}.ready' && exec cat > '${out}'`,
  });
  await eventually(() => Deno.stat(`${out}.ready`).catch(() => null), 10_000, "recorder in raw mode");
  const keys = ["C-Left", "M-x", "S-Up", "F13", "KPEnter", "M-;", "alt-x", "ctrl-c"];
  const pressed: string[] = [];
  for (const key of keys) {
    pressed.push((await c.ok<{ key: string }>("pty_key", { session_id: id, key })).key);
    await c.ok("pty_key", { session_id: id, key: SEP });
  }
  assertEquals(pressed, ["C-Left", "M-x", "S-Up", "F13", "KPEnter", "M-;", "M-x", "C-c"]);
  const refused = await c.err("pty_key", { session_id: id, key: "S-a" });
  assertEquals(refused.code, "KEY_UNSUPPORTED");
  const unknown = await c.err("pty_key", { session_id: id, key: "Entr" });
  assertEquals(unknown.code, "KEY_UNKNOWN");
  for (const k of ["E", "N", "D"]) await c.ok("pty_key", { session_id: id, key: k });
  const parts = (await recorded(out, "END")).split(SEP);
  assertEquals(parts, [`${ESC}[1;5D`, `${ESC}x`, `${ESC}[1;2A`, `${ESC}[1;2P`, "\n", `${ESC};`, `${ESC}x`, "\x03", ""]);
  await c.ok("pty_close", { session_id: id });
});
