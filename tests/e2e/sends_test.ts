/**
 * Sends to programs, through the real MCP client on real tmux (issue 15 items 2, 3, 4 and the env_vars part
 * of 9): `until` with a prompt's trailing space, REPL blocks keep their blank lines, `mark` only where a shell
 * reads the line (and a sentinel never outlives its program), env_vars naming an unset variable is skipped.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

function installed(bin: string): boolean {
  return new Deno.Command("sh", { args: ["-c", `command -v ${bin}`], stdout: "null" }).outputSync().success;
}

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };
const linux = { ...opts, ignore: !hasTmux || Deno.build.os !== "linux" };
const TIMEOUT = 10;

interface Read {
  text: string;
  is_complete: boolean | null;
  via: string | null;
  exit_status: number | null;
  waited_ms: number | null;
  hint: string | null;
}

async function open(c: TestClient, args: Record<string, unknown>): Promise<string> {
  return (await c.ok<{ session_id: string }>("pty_open", args)).session_id;
}

/** Sends `text` and waits until `until` (literal) shows up; asserts the verdict came well under the timeout. */
async function sendUntil(c: TestClient, id: string, text: string, until: string, regex = false): Promise<Read> {
  await c.ok("pty_send", { wait: false, session_id: id, text });
  const r = await c.ok<Read>("pty_read", { session_id: id, until, until_regex: regex, timeout: TIMEOUT });
  assertEquals([r.is_complete, r.via], [true, "until"], `${JSON.stringify(until)} after ${JSON.stringify(text)}`);
  assert((r.waited_ms ?? Infinity) < 5000, `until ${JSON.stringify(until)} took ${r.waited_ms} ms`);
  return r;
}

Deno.test(
  "until matches a prompt's trailing space: python3 `>>> `, `>>> $` as a regex, bash read -p",
  opts,
  async () => {
    if (!installed("python3")) return;
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const id = await open(c, { cwd: t.root });
    await sendUntil(c, id, "python3", ">>> ");
    const two = await sendUntil(c, id, "6*7", ">>> $", true);
    assertStringIncludes(two.text, "42");
    await c.ok("pty_send", { wait: false, session_id: id, text: "exit()" });
    assertEquals((await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT })).is_complete, true);
    await sendUntil(c, id, 'read -s -p "Password: " X; echo "got:${#X}"', "Password: ");
    // read -s echoes nothing, not even the newline, so this is read by wait (until skips one echo line).
    await c.ok("pty_send", { wait: false, session_id: id, text: "hunter2" });
    const got = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
    assertEquals([got.is_complete, got.exit_status], [true, 0]);
    assertStringIncludes(got.text, "got:7");
    assert(!got.text.includes("hunter2"), "read -s does not echo");
  },
);

Deno.test("a REPL block keeps its blank line: python3 runs `for …:\\n    print(i)\\n\\n`", opts, async () => {
  if (!installed("python3")) return;
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await sendUntil(c, id, "python3 -q", ">>> ");
  const r = await sendUntil(c, id, "for i in range(2):\n    print('row', i)\n\n", "^row 1$", true);
  assertStringIncludes(r.text, "row 0");
  // Python is still at its prompt afterwards, and no text was lost.
  const after = await sendUntil(c, id, "print('still', 'here')", "still here");
  assert(!/SyntaxError/.test(after.text), after.text);
});

Deno.test("a node REPL gets multi-line text exactly as given, blank lines included", opts, async () => {
  if (!installed("node")) return;
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await sendUntil(c, id, "node", "> ");
  const r = await sendUntil(c, id, "function f(n) {\n\n  return 'node-' + (n * 2)\n}\nf(21)\n\n", "node-42");
  assert(!/SyntaxError|Uncaught/.test(r.text), r.text);
});

Deno.test("at the session's own shell a trailing newline is the Enter: one command, one prompt", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await c.ok("pty_send", { wait: false, session_id: id, text: "echo own-shell\n\n" });
  const r = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
  assertEquals([r.is_complete, r.via, r.exit_status], [true, "shell_integration", 0]);
  // A second read right away finds nothing new: the extra newlines were not typed as empty commands.
  await new Promise((res) => setTimeout(res, 300));
  const more = await c.ok<{ text: string }>("pty_read", { session_id: id, raw: true });
  assertEquals(more.text.trim(), "", `empty commands ran: ${JSON.stringify(more.text)}`);
});

Deno.test("mark into python3 is MARK_UNAVAILABLE and nothing is typed; python keeps working", linux, async () => {
  if (!installed("python3")) return;
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const id = await open(c, { cwd: t.root });
  await sendUntil(c, id, "python3 -q", ">>> ");
  for (const mark of [true, "posix", "pwsh"]) {
    const e = await c.err("pty_send", { wait: false, session_id: id, text: "print('marked')", mark });
    assertEquals(e.code, "MARK_UNAVAILABLE", JSON.stringify(mark));
    assertMatch(e.text, /^MARK_UNAVAILABLE: .*python3/);
  }
  const screen = await c.ok<{ text: string }>("pty_read", { session_id: id, screen: true });
  assert(!screen.text.includes("printf") && !screen.text.includes("marked"), screen.text);
  const log = await c.ok<{ text: string }>("pty_read", { session_id: id, cursor: 0, raw: true });
  assert(!log.text.includes("printf") && !log.text.includes("__AITERM_"), "a sentinel reached python");
  const ok = await sendUntil(c, id, "print('py', 6*7)", "py 42");
  assert(!/SyntaxError/.test(ok.text), ok.text);
  // Back at the shell, a plain wait completes on the shell's own evidence.
  await c.ok("pty_send", { wait: false, session_id: id, text: "exit()" });
  const back = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
  assertEquals(back.is_complete, true, JSON.stringify(back));
  assert((back.waited_ms ?? Infinity) < 5000);
});

Deno.test(
  "a nested bash accepts mark; when it exits before its sentinel, the next wait at the outer prompt completes",
  linux,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const id = await open(c, { cwd: t.root });
    await c.ok("pty_send", { wait: false, session_id: id, text: "bash --norc" });
    const nested = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
    assertEquals([nested.is_complete, nested.via], [false, "nested"]);
    assertStringIncludes(nested.hint ?? "", "mark:true");
    const sent = await c.ok<{ marked: boolean }>("pty_send", {
      wait: false,
      session_id: id,
      text: "echo inner-$((6*7)); (exit 4)",
      mark: true,
    });
    assert(sent.marked);
    const inner = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
    assertEquals([inner.is_complete, inner.via, inner.exit_status], [true, "sentinel", 4]);
    assertStringIncludes(inner.text, "inner-42");
    // `exit` ends the nested bash before its sentinel can print: the wait must not hold out for it.
    await c.ok("pty_send", { wait: false, session_id: id, text: "exit", mark: true });
    const gone = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
    assertEquals(gone.is_complete, true, JSON.stringify(gone));
    assert(gone.via !== "sentinel" && gone.via !== "timeout", JSON.stringify(gone));
    assert((gone.waited_ms ?? Infinity) < 5000, `waited ${gone.waited_ms} ms`);
    // And the wait after that, at the outer prompt, is not blocked by the old record either.
    const again = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
    assertEquals(again.is_complete, true, JSON.stringify(again));
    assert((again.waited_ms ?? Infinity) < 5000, `waited ${again.waited_ms} ms`);
    await c.ok("pty_send", { wait: false, session_id: id, text: "echo outer-ok" });
    const outer = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
    assertEquals([outer.is_complete, outer.via], [true, "shell_integration"]);
    assertStringIncludes(outer.text, "outer-ok");
  },
);

Deno.test("a prompt host (a program named ssh) gets a mark only with a shell prompt on screen", linux, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const bash = new TextDecoder().decode(
    new Deno.Command("sh", { args: ["-c", "command -v bash"], stdout: "piped" }).outputSync().stdout,
  ).trim();
  // The kernel names the process after the link it was started through: comm "ssh", prompt "ssh-5.x$ ".
  await Deno.symlink(bash, `${t.root}/ssh`);
  await Deno.symlink(
    new TextDecoder().decode(
      new Deno.Command("sh", { args: ["-c", "command -v cat"], stdout: "piped" }).outputSync().stdout,
    ).trim(),
    `${t.root}/sudo`,
  );
  const id = await open(c, { cwd: t.root });
  await c.ok("pty_send", { wait: false, session_id: id, text: `${t.root}/sudo` });
  await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
  const refused = await c.err("pty_send", { wait: false, session_id: id, text: "echo x", mark: true });
  assertEquals(refused.code, "MARK_UNAVAILABLE");
  await c.ok("pty_key", { session_id: id, key: "C-d" });
  await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
  await c.ok("pty_send", { wait: false, session_id: id, text: `${t.root}/ssh --norc` });
  const n = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
  assertEquals([n.is_complete, n.via], [false, "nested"]);
  assertStringIncludes(n.hint ?? "", 'mark:"posix"');
  await c.ok("pty_send", { wait: false, session_id: id, text: "echo host-$((40+2))", mark: true });
  const r = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
  assertEquals([r.is_complete, r.via, r.exit_status], [true, "sentinel", 0]);
  assertStringIncludes(r.text, "host-42");
});

Deno.test("pty_open env_vars: an unset name is skipped and reported, the set ones are copied", opts, async () => {
  await using t = await makeTestEnv({ AITERM_SENDS_SET: "value-1" });
  await using c = await connect(t.env);
  const r = await c.call("pty_open", { cwd: t.root, env_vars: ["AITERM_SENDS_SET", "AITERM_SENDS_UNSET"] });
  assert(!r.isError, JSON.stringify(r.content));
  const receipt = r.structuredContent as { session_id: string; env_vars: string[]; env_vars_skipped: string[] };
  assertEquals(receipt.env_vars, ["AITERM_SENDS_SET"]);
  assertEquals(receipt.env_vars_skipped, ["AITERM_SENDS_UNSET"]);
  const first = r.content[0];
  assertStringIncludes(first && first.type === "text" ? first.text : "", "AITERM_SENDS_UNSET");
  assert(!JSON.stringify(r).includes("value-1"), "a value leaked into the receipt");
  const list = await c.ok("pty_list", {
    env_keys: ["AITERM_SENDS_SET", "AITERM_SENDS_UNSET"],
  });
  assertEquals(JSON.stringify(list).includes('"AITERM_SENDS_UNSET":true'), false, JSON.stringify(list));
  assertStringIncludes(JSON.stringify(list), '"AITERM_SENDS_SET":true');
  const id = receipt.session_id;
  await c.ok("pty_send", {
    wait: false,
    session_id: id,
    text: 'echo "[${AITERM_SENDS_SET}|${AITERM_SENDS_UNSET-unset}]"',
  });
  const out = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: TIMEOUT });
  assertStringIncludes(out.text, "[value-1|unset]");
});
