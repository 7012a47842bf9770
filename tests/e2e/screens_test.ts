/**
 * Full-screen programs and screen reads, live (issue 15 items 5, 6 and two parts of 9): vim, less, top,
 * man and git through the MCP client in a real tmux pane. A wait on a full-screen program ends with
 * `screen_settled` well under its timeout; plain commands never open a pager; a screen read is trimmed
 * and has a meta line; a session a person made on the socket can be read.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const linux = Deno.build.os === "linux";
const opts = { ignore: !hasTmux || !linux, sanitizeOps: false, sanitizeResources: false };

function installed(bin: string): boolean {
  return new Deno.Command("sh", { args: ["-c", `command -v ${bin}`], stdout: "null" }).outputSync().success;
}

interface Read {
  text: string;
  view: string;
  meta: string | null;
  is_complete: boolean | null;
  via: string | null;
  waited_ms: number | null;
  hint: string | null;
}
interface Obs {
  state: string;
  reason: string;
}

/** Sends `text`, waits (timeout 10 s) and returns the verdict. */
async function sendAndWait(c: TestClient, session_id: string, text: string): Promise<Read> {
  await c.ok("pty_send", { wait: false, session_id, text });
  return await c.ok<Read>("pty_read", { session_id, wait: true, timeout: 10 });
}

/** Asserts a `screen_settled` verdict that came well under the timeout and does not invite C-c. */
function assertSettled(r: Read, what: string): void {
  assertEquals([r.is_complete, r.via], [false, "screen_settled"], `${what}: ${JSON.stringify(r).slice(0, 400)}`);
  assert(r.waited_ms !== null && r.waited_ms < 5000, `${what}: verdict after ${r.waited_ms} ms`);
  assert(!/C-c/.test(r.hint ?? ""), `${what}: the hint invites C-c: ${r.hint}`);
  assertStringIncludes(r.hint ?? "", "screen:true");
}

/** Back at the shell: the next wait completes. */
async function assertBackAtShell(c: TestClient, session_id: string, what: string): Promise<void> {
  const r = await c.ok<Read>("pty_read", { session_id, wait: true, timeout: 10 });
  assert(r.is_complete === true, `${what}: not back at the shell: ${JSON.stringify(r).slice(0, 300)}`);
}

async function open(c: TestClient, t: TestEnv, extra: Record<string, unknown> = {}): Promise<string> {
  return (await c.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: "bash", ...extra })).session_id;
}

/** A git repository with `n` commits under `dir`. */
async function makeRepo(t: TestEnv, dir: string, n: number): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const env = {
    ...t.env,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.invalid",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.invalid",
  };
  const git = (...args: string[]) =>
    new Deno.Command("git", { args, cwd: dir, env, clearEnv: true, stdout: "null", stderr: "piped" }).output();
  assert((await git("init", "-q")).success);
  for (let i = 1; i <= n; i++) assert((await git("commit", "-q", "--allow-empty", "-m", `change number ${i}`)).success);
}

Deno.test(
  "vim: wait ends with screen_settled; observe says full_screen; the screen read is trimmed",
  opts,
  async () => {
    if (!installed("vim")) return;
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const id = await open(c, t);
    assertSettled(await sendAndWait(c, id, "vim -u NONE -N note.txt"), "vim");
    const o = await c.ok<Obs>("pty_observe", { session_id: id });
    assertEquals([o.state, o.reason], ["full_screen", "alternate_screen"]);
    const raw = await c.ok<Read>("pty_read", { session_id: id, screen: true, raw: true });
    const screen = await c.ok<Read>("pty_read", { session_id: id, screen: true });
    // Today's 200×50 capture is about 10,000 characters, 46 rows of them `~` and padding.
    assert(raw.text.length > 9000, `raw screen ${raw.text.length}`);
    assert(screen.text.length * 20 < raw.text.length, `screen ${screen.text.length} of ${raw.text.length}`);
    assertStringIncludes(screen.text, "~  (×");
    assertStringIncludes(screen.text, "note.txt");
    assertStringIncludes(screen.meta ?? "", "screen 50 rows as ");
    assertStringIncludes(screen.meta ?? "", `(raw ${raw.text.length} chars`);
    // After a key the screen changes and settles again.
    await c.ok("pty_send", { wait: false, session_id: id, text: "ihello from vim", enter: false });
    const typed = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: 10 });
    assertSettled(typed, "vim insert");
    assertStringIncludes((await c.ok<Read>("pty_read", { session_id: id, screen: true })).text, "hello from vim");
    await c.ok("pty_key", { session_id: id, key: "Escape" });
    await c.ok("pty_send", { wait: false, session_id: id, text: ":q!" });
    await assertBackAtShell(c, id, "vim");
    const after = await c.ok<Obs>("pty_observe", { session_id: id });
    assertEquals(after.state, "idle_shell");
  },
);

Deno.test("less and top: wait ends with screen_settled well under the timeout", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, t);
  await Deno.writeTextFile(`${t.root}/long.txt`, Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join("\n"));
  if (installed("less")) {
    assertSettled(await sendAndWait(c, id, "less long.txt"), "less");
    assertEquals((await c.ok<Obs>("pty_observe", { session_id: id })).state, "full_screen");
    assertStringIncludes((await c.ok<Read>("pty_read", { session_id: id, screen: true })).text, "line 1\n");
    await c.ok("pty_key", { session_id: id, key: "q" });
    await assertBackAtShell(c, id, "less");
  }
  if (installed("top")) {
    // procps top draws on the normal screen and refreshes every 3 s: settled between two refreshes.
    assertSettled(await sendAndWait(c, id, "top"), "top");
    const o = await c.ok<Obs>("pty_observe", { session_id: id });
    assertEquals(o.state, "full_screen");
    assertStringIncludes((await c.ok<Read>("pty_read", { session_id: id, screen: true })).text, "PID");
    await c.ok("pty_key", { session_id: id, key: "q" });
    await assertBackAtShell(c, id, "top");
  }
});

Deno.test("git log never opens a pager by default; with the caller's GIT_PAGER it does", opts, async () => {
  if (!installed("git") || !installed("less")) return;
  await using t = await makeTestEnv({ GIT_PAGER: "less", PAGER: "less" });
  await using c = await connect(t.env);
  await makeRepo(t, `${t.root}/repo`, 40);
  const id = await open(c, t, { cwd: `${t.root}/repo` });
  const r = await sendAndWait(c, id, "git log -n 15");
  assertEquals(r.is_complete, true, JSON.stringify(r).slice(0, 400));
  assert(r.waited_ms !== null && r.waited_ms < 5000, `git log after ${r.waited_ms} ms`);
  assertStringIncludes(r.text, "change number 40");
  assertStringIncludes(r.text, "change number 26");
  // The next command is the shell's, not less's: it runs.
  const next = await sendAndWait(c, id, "echo next-is-shell");
  assertEquals(next.is_complete, true);
  assertStringIncludes(next.text, "next-is-shell");
  assertEquals((await c.ok<Obs>("pty_observe", { session_id: id })).state, "idle_shell");
  await c.ok("pty_close", { session_id: id });

  // The caller copies the server's GIT_PAGER (less; git's LESS=FRX draws on the normal screen).
  const paged = await open(c, t, { cwd: `${t.root}/repo`, env_vars: ["GIT_PAGER"] });
  assertSettled(await sendAndWait(c, paged, "git log"), "git log with GIT_PAGER=less");
  await c.ok("pty_key", { session_id: paged, key: "q" });
  await assertBackAtShell(c, paged, "git log pager");
});

Deno.test("man prints the page without a pager; with MANPAGER=less it settles on the screen", opts, async () => {
  if (!installed("man") || !installed("less")) return;
  const page = new Deno.Command("man", { args: ["-w", "ls"], stdout: "null", stderr: "null" }).outputSync();
  if (!page.success) return;
  await using t = await makeTestEnv({ MANPAGER: "less" });
  await using c = await connect(t.env);
  const id = await open(c, t);
  const r = await sendAndWait(c, id, "man ls");
  assertEquals(r.is_complete, true, JSON.stringify(r).slice(0, 400));
  assert(r.waited_ms !== null && r.waited_ms < 5000, `man after ${r.waited_ms} ms`);
  assertStringIncludes(r.text, "ls");
  const paged = await open(c, t, { env_vars: ["MANPAGER"] });
  assertSettled(await sendAndWait(c, paged, "man ls"), "man with MANPAGER=less");
  const o = await c.ok<Obs>("pty_observe", { session_id: paged });
  assertEquals([o.state, o.reason], ["full_screen", "alternate_screen"]);
  await c.ok("pty_key", { session_id: paged, key: "q" });
  await assertBackAtShell(c, paged, "man pager");
});

Deno.test("screen reads: blank rows below the prompt are left out; lines means the last N rows", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, t);
  await sendAndWait(c, id, "clear; for i in $(seq 1 80); do echo row-$i; done");
  const screen = await c.ok<Read>("pty_read", { session_id: id, screen: true });
  const rows = screen.text.split("\n");
  assert(rows.every((r) => r === r.trimEnd()), "a row kept its padding");
  assert(rows.at(-2)?.startsWith("row-80"), rows.slice(-3).join("|"));
  const last = await c.ok<Read>("pty_read", { session_id: id, screen: true, lines: 3 });
  assertEquals(last.text.split("\n").slice(0, 2), ["row-79", "row-80"]);
  assertStringIncludes(last.meta ?? "", "last 3 of");
  // More rows than the screen reach into the scrollback.
  const deep = await c.ok<Read>("pty_read", { session_id: id, screen: true, lines: 70 });
  assertEquals(deep.text.split("\n")[0], "row-12");
});

Deno.test("a session a person made on the socket: screen and plain reads work, waits settle", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  await open(c, t); // starts aiterm's private server
  const made = await t.tmux("new-session", "-d", "-s", "person", "-x", "100", "-y", "30", "--", "bash", "--norc");
  assertEquals(made.code, 0, made.stderr);
  await t.tmux("send-keys", "-t", "=person:", "-l", "echo hello-person");
  await t.tmux("send-keys", "-t", "=person:", "Enter");
  const screen = await eventually(async () => {
    const s = await c.ok<Read>("pty_read", { session_id: "person", screen: true });
    return s.text.includes("\nhello-person") ? s : null;
  });
  assertEquals(screen.view, "screen");
  assertStringIncludes(screen.meta ?? "", "[aiterm person: screen 30 rows");
  const plain = await c.ok<Read>("pty_read", { session_id: "person" });
  assertEquals(plain.view, "screen");
  assertStringIncludes(plain.meta ?? "", "no log");
  assertEquals((await c.err("pty_read", { session_id: "person", full: true })).code, "LOG_UNAVAILABLE");
  // A full-screen program in it settles on captures alone (no log to watch).
  await Deno.writeTextFile(`${t.root}/p.txt`, Array.from({ length: 200 }, (_, i) => `p ${i}`).join("\n"));
  await t.tmux("send-keys", "-t", "=person:", "-l", `less ${t.root}/p.txt`);
  await t.tmux("send-keys", "-t", "=person:", "Enter");
  await eventually(async () => (await c.ok<Obs>("pty_observe", { session_id: "person" })).state === "full_screen");
  const r = await c.ok<Read>("pty_read", { session_id: "person", wait: true, screen: true, timeout: 10 });
  assertSettled(r, "less in a person's session");
  // The formatted verdict of a screen read ends at the time: no dangling ";".
  const formatted = await c.call("pty_read", { session_id: "person", wait: true, screen: true, timeout: 10 });
  const text = formatted.content[0]?.type === "text" ? formatted.content[0].text : "";
  assert(/\[is_complete=false via screen_settled in \d+ ms\]/.test(text), text.slice(-300));
});
