/**
 * Prompts that are not a fresh command prompt (issue 15 item 7), C-c at an idle prompt (item 9) and
 * shell integration inside nested shells (item 1): real bash, zsh and dash in tmux, through the MCP client.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const linux = Deno.build.os === "linux";
const opts = { ignore: !hasTmux || !linux, sanitizeOps: false, sanitizeResources: false };

function installed(bin: string): boolean {
  return new Deno.Command("sh", { args: ["-c", `command -v ${bin}`], stdout: "null" }).outputSync().success;
}

interface Read {
  is_complete: boolean;
  via: string;
  prompt?: string | null;
  exit_status: number | null;
  waited_ms: number;
  hint: string | null;
  text: string;
}
interface Obs {
  state: string;
  reason: string;
  prompt?: string | null;
}

async function waitRead(c: TestClient, session_id: string): Promise<Read> {
  return await c.ok<Read>("pty_read", { session_id, wait: true, timeout: 10 });
}

/** Sends `text`, waits, and asserts an input_prompt verdict of `kind` well under the timeout, and observe's state. */
async function expectPrompt(c: TestClient, session_id: string, text: string, kind: string, label: string) {
  await c.ok("pty_send", { wait: false, session_id, text });
  const r = await waitRead(c, session_id);
  assertEquals([r.is_complete, r.via, r.prompt], [false, "input_prompt", kind], `${label}: ${JSON.stringify(r)}`);
  assert(r.waited_ms < 5000, `${label}: verdict after ${r.waited_ms} ms`);
  assert(r.hint && r.hint.length > 0, `${label}: no hint`);
  if (kind !== "continuation") assert(!/C-c/.test(r.hint), `${label}: the hint invites C-c: ${r.hint}`);
  const o = await c.ok<Obs>("pty_observe", { session_id });
  assertEquals([o.state, o.prompt], ["input_prompt", kind], `${label}: observe ${JSON.stringify(o)}`);
}

async function expectDone(c: TestClient, session_id: string, status: number, label: string): Promise<Read> {
  const r = await waitRead(c, session_id);
  assertEquals(
    [r.is_complete, r.via, r.exit_status],
    [true, "shell_integration", status],
    `${label}: ${JSON.stringify(r)}`,
  );
  assertEquals(r.prompt ?? null, null);
  return r;
}

for (const shell of ["bash", "zsh"]) {
  Deno.test(`${shell}: continuation, read and password prompts are reported, then complete when answered`, {
    ...opts,
    ignore: opts.ignore || !installed(shell),
  }, async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell });
    await expectPrompt(c, session_id, 'echo "open', "continuation", `${shell} PS2`);
    await c.ok("pty_send", { wait: false, session_id, text: 'closed"' });
    const r = await expectDone(c, session_id, 0, `${shell} closing the quote`);
    assert(/closed/.test(r.text), r.text);
    // A second continuation line is still a continuation; C-c abandons it with status 130.
    await expectPrompt(c, session_id, "for i in 1 2; do", "continuation", `${shell} for`);
    await expectPrompt(c, session_id, "echo i=$i", "continuation", `${shell} for body`);
    await c.ok("pty_key", { session_id, key: "C-c" });
    await expectDone(c, session_id, 130, `${shell} C-c at PS2`);

    await expectPrompt(c, session_id, "read X", "read", `${shell} read`);
    await c.ok("pty_send", { wait: false, session_id, text: "answer" });
    await expectDone(c, session_id, 0, `${shell} read answered`);

    await expectPrompt(c, session_id, "read -s X", "password", `${shell} read -s`);
    await c.ok("pty_send", { wait: false, session_id, text: "s3cret" });
    await expectDone(c, session_id, 0, `${shell} read -s answered`);

    if (installed("python3")) {
      await expectPrompt(
        c,
        session_id,
        `python3 -c 'import getpass; print("got", len(getpass.getpass()))'`,
        "password",
        `${shell} getpass`,
      );
      await c.ok("pty_send", { wait: false, session_id, text: "hunter2" });
      const g = await expectDone(c, session_id, 0, `${shell} getpass answered`);
      assert(/got 7/.test(g.text) && !/hunter2/.test(g.text), g.text);
    }
    // A script's read (a bash child, canonical): read, not nested.
    await expectPrompt(c, session_id, `bash -c 'read -p "name? " n; echo "hi $n"'`, "read", `${shell} script read`);
    await c.ok("pty_send", { wait: false, session_id, text: "bob" });
    await expectDone(c, session_id, 0, `${shell} script read answered`);

    // Back at a fresh prompt: idle_shell, no prompt.
    const o = await c.ok<Obs>("pty_observe", { session_id });
    assertEquals([o.state, o.prompt ?? null], ["idle_shell", null]);
    await c.ok("pty_close", { session_id });
  });

  Deno.test(`${shell}: C-c at an idle prompt reports exit status 130, not the previous command's`, {
    ...opts,
    ignore: opts.ignore || !installed(shell),
  }, async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell });
    await c.ok("pty_send", { wait: false, session_id, text: "false" });
    await expectDone(c, session_id, 1, `${shell} false`);
    for (let i = 0; i < 3; i++) {
      await c.ok("pty_key", { session_id, key: "C-c" });
      await expectDone(c, session_id, 130, `${shell} C-c #${i + 1}`);
    }
    await c.ok("pty_send", { wait: false, session_id, text: "echo after" });
    await expectDone(c, session_id, 0, `${shell} after C-c`);
    await c.ok("pty_close", { session_id });
  });
}

Deno.test("C-c at an idle prompt reports 130 even when the user's prompt hook is slow", {
  ...opts,
  ignore: opts.ignore || !installed("zsh"),
}, async () => {
  await using t = await makeTestEnv();
  // The marks come after the user's hooks: a slow one used to let the wait find the previous command's mark.
  await Deno.writeTextFile(`${t.home}/.bashrc`, "PROMPT_COMMAND='sleep 0.3'\n");
  await Deno.writeTextFile(`${t.home}/.zshrc`, "precmd() { sleep 0.3; }\n");
  await using c = await connect(t.env);
  for (const shell of ["bash", "zsh"]) {
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell });
    await c.ok("pty_send", { wait: false, session_id, text: "false" });
    await expectDone(c, session_id, 1, `${shell} false`);
    await c.ok("pty_key", { session_id, key: "C-c" });
    await expectDone(c, session_id, 130, `${shell} C-c with a slow prompt`);
    await c.ok("pty_close", { session_id });
  }
});

Deno.test("dash: a password prompt is reported; its continuation and read cannot be told from a prompt", {
  ...opts,
  ignore: opts.ignore || !installed("dash") || !installed("python3"),
}, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: "dash" });
  await expectPrompt(c, session_id, `python3 -c 'import getpass; getpass.getpass()'`, "password", "dash getpass");
  await c.ok("pty_send", { wait: false, session_id, text: "x" });
  const r = await waitRead(c, session_id);
  assertEquals([r.is_complete, r.via], [true, "quiescent"], JSON.stringify(r));
  // dash has no line editor: its PS2 and its read are canonical with echo, like its fresh prompt.
  await c.ok("pty_send", { wait: false, session_id, text: "stty -echo; read X; stty echo" });
  const p = await waitRead(c, session_id);
  assertEquals([p.via, p.prompt], ["input_prompt", "password"], JSON.stringify(p));
  await c.ok("pty_send", { wait: false, session_id, text: "y" });
  await c.ok("pty_close", { session_id });
});

for (const outer of ["bash", "zsh"]) {
  Deno.test(`nested shells started from a ${outer} session report their commands through shell integration`, {
    ...opts,
    ignore: opts.ignore || !installed(outer),
  }, async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: outer });
    const children = ["bash", "bash --norc", ...(installed("zsh") ? ["zsh", "zsh -l"] : [])];
    for (const child of children) {
      const label = `${outer} > ${child}`;
      await c.ok("pty_send", { wait: false, session_id, text: child });
      // The child's first prompt is not the end of the command "bash": still nested, quickly.
      const started = await waitRead(c, session_id);
      assertEquals([started.is_complete, started.via], [false, "nested"], `${label}: ${JSON.stringify(started)}`);
      assert(started.waited_ms < 5000, `${label}: ${started.waited_ms} ms`);
      await c.ok("pty_send", { wait: false, session_id, text: "echo in-$((6*7)); false" });
      const inner = await expectDone(c, session_id, 1, `${label} command`);
      assert(/in-42/.test(inner.text), inner.text);
      // The prompts work inside, too.
      await expectPrompt(c, session_id, 'echo "x', "continuation", `${label} PS2`);
      await c.ok("pty_key", { session_id, key: "C-c" });
      await expectDone(c, session_id, 130, `${label} C-c`);
      await expectPrompt(c, session_id, "read X", "read", `${label} read`);
      await c.ok("pty_send", { wait: false, session_id, text: "a" });
      await expectDone(c, session_id, 0, `${label} read answered`);
      // Leaving it: the session's shell reports the child's exit status.
      await c.ok("pty_send", { wait: false, session_id, text: "exit 7" });
      await expectDone(c, session_id, 7, `${label} exit`);
    }
    // Without rc files there is nothing to install: nested, never a false completion.
    if (installed("zsh")) {
      await c.ok("pty_send", { wait: false, session_id, text: "zsh -f" });
      const r = await waitRead(c, session_id);
      assertEquals([r.is_complete, r.via], [false, "nested"], JSON.stringify(r));
      await c.ok("pty_send", { wait: false, session_id, text: "echo plain" });
      const r2 = await waitRead(c, session_id);
      assertEquals([r2.is_complete, r2.via], [false, "nested"], JSON.stringify(r2));
      await c.ok("pty_send", { wait: false, session_id, text: "exit" });
      await expectDone(c, session_id, 0, "zsh -f exit");
    }
    await c.ok("pty_close", { session_id });
  });
}

/** Every file under `dir` whose bytes contain `needle`. */
async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  const bytes = new TextEncoder().encode(needle);
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (e.isFile) {
        const data = await Deno.readFile(p).catch(() => new Uint8Array());
        const text = new TextDecoder("latin1").decode(data);
        if (text.includes(new TextDecoder("latin1").decode(bytes))) hits.push(p);
      }
    }
  };
  await walk(dir);
  return hits;
}

Deno.test("a password sent to a prompt with echo off is not written anywhere under the state root", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: "bash" });
  await expectPrompt(c, session_id, "read -s -p 'Secret: ' s", "password", "read -s");
  const secret = "hunter2-" + crypto.randomUUID().slice(0, 8);
  await c.ok("pty_send", { wait: false, session_id, text: secret });
  await expectDone(c, session_id, 0, "answered");
  assertEquals(await filesContaining(t.stateDir, secret), []);
  // The shell has it (echo off, so the log does not); nothing aiterm wrote does.
  await c.ok("pty_send", { wait: false, session_id, text: 'echo "len=${#s}"' });
  const r = await expectDone(c, session_id, 0, "length");
  assert(r.text.includes(`len=${secret.length}`), r.text);
  assertEquals(await filesContaining(t.stateDir, secret), []);
});
