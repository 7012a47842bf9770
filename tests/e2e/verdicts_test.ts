/**
 * Issue 29 items 3 and 4, through the MCP client with the real programs: "waiting for input" needs the kernel's
 * evidence that the program reads the terminal, never its name or its silence.
 * - ssh after a rejected password works (about 2 s under PAM, echo back on) before it asks again: the wait reports the
 *   real prompt (`input_prompt`/password) with the server's message, never `nested` while ssh works.
 * - `python3 -m http.server` waits on its socket: `timeout`, like a node server, not `nested`.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import { filesContaining, hasSshd, hasUseradd, processes, startPasswordSshd } from "../helpers/sshd.ts";

const linux = Deno.build.os === "linux";
const opts = { sanitizeOps: false, sanitizeResources: false };

function installed(bin: string): boolean {
  return new Deno.Command("sh", { args: ["-c", `command -v ${bin}`], stdout: "null" }).outputSync().success;
}

interface Read {
  is_complete: boolean;
  via: string;
  prompt?: string | null;
  exit_status?: number | null;
  waited_ms: number;
  hint?: string | null;
  text: string;
}

async function waitRead(c: TestClient, session_id: string, timeout = 20): Promise<Read> {
  return await c.ok<Read>("pty_read", { session_id, wait: true, timeout });
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The echo flag of the terminal the ssh of `sshCommand` runs on, right now (`stty`: a second witness of the verdict). */
async function echoOn(user: string): Promise<boolean> {
  const ssh = (await processes()).find((p) => p.argv[0] === "ssh" && p.argv.includes(`${user}@127.0.0.1`));
  assert(ssh, "the ssh process");
  const tty = await Deno.readLink(`/proc/${ssh.pid}/fd/0`);
  const out = await new Deno.Command("stty", { args: ["-F", tty, "-a"], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).split(/[\s;]+/).includes("echo");
}

// Without root there is no throwaway user to log in as: the test is ignored, and says so in the listing.
Deno.test(
  "ssh: a rejected password waits for the next real prompt (input_prompt/password, the server's message kept)",
  {
    ...opts,
    ignore: !hasTmux || !linux || !hasSshd || !hasUseradd,
  },
  async () => {
    await using sshd = await startPasswordSshd();
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: "bash" });
    await c.ok("pty_send", { wait: false, session_id, text: sshd.sshCommand });
    const first = await waitRead(c, session_id);
    assertEquals(
      [first.is_complete, first.via, first.prompt],
      [false, "input_prompt", "password"],
      JSON.stringify(first),
    );
    assert(/password:/i.test(first.text), first.text);
    assertEquals(await echoOn(sshd.user), false, "the first prompt: echo is off");

    const wrong = `Wrong-${crypto.randomUUID().slice(0, 8)}`;
    await c.ok("pty_send", { wait: false, session_id, text: wrong });
    // While sshd delays its answer, ssh works with echo back on: no verdict may come before the next prompt.
    const again = await waitRead(c, session_id);
    assertEquals(
      [again.is_complete, again.via, again.prompt],
      [false, "input_prompt", "password"],
      JSON.stringify(again),
    );
    assert(again.text.includes("Permission denied, please try again."), `the server's message: ${again.text}`);
    assert(/password:\s*$/i.test(again.text.trimEnd() + " "), `the new prompt ends the text: ${again.text}`);
    assertEquals(await echoOn(sshd.user), false, "the verdict came when ssh had turned echo off again");
    const o = await c.ok<{ state: string; prompt?: string }>("pty_observe", { session_id });
    assertEquals([o.state, o.prompt], ["input_prompt", "password"], JSON.stringify(o));

    await c.ok("pty_send", { wait: false, session_id, text: sshd.password });
    // Logged in: ssh reads the terminal and its connection at once; whether the remote shell waits is a guess.
    const remote = await c.ok<Read>("pty_read", { session_id, wait: true, timeout: 20, until: "$ " });
    assertEquals(remote.via, "until", JSON.stringify(remote));
    const nested = await waitRead(c, session_id, 10);
    assertEquals([nested.is_complete, nested.via], [false, "nested"], JSON.stringify(nested));
    assert(nested.hint?.includes("guessed from its name"), `a name-only guess says so: ${nested.hint}`);
    await c.ok("pty_send", { wait: false, session_id, text: "exit" });
    const back = await waitRead(c, session_id);
    assertEquals([back.is_complete, back.via], [true, "shell_integration"], JSON.stringify(back));

    // Neither password was echoed into the log (nor written anywhere under the state root).
    assertEquals(await filesContaining(t.root, wrong), []);
    assertEquals(await filesContaining(t.root, sshd.password), []);
    await c.ok("pty_close", { session_id });
  },
);

Deno.test("servers waiting on a socket are not waiting for input: python3 -m http.server and node stay timeout", {
  ...opts,
  ignore: !hasTmux || !linux || !installed("python3") || !installed("node"),
}, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: "bash" });
  const servers = [
    { name: "python3", command: (port: number) => `python3 -m http.server --bind 127.0.0.1 ${port}` },
    {
      name: "node",
      command: (port: number) =>
        `node -e 'require("http").createServer((q, s) => s.end("ok")).listen(${port}, "127.0.0.1")'`,
    },
  ];
  for (const s of servers) {
    const port = freePort();
    await c.ok("pty_send", { wait: false, session_id, text: s.command(port) });
    // Serving: a request is answered while the wait runs.
    const answered = (async () => {
      for (let i = 0; i < 50; i++) {
        const r = await fetch(`http://127.0.0.1:${port}/`).catch(() => null);
        if (r) {
          await r.body?.cancel();
          return r.status;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      return 0;
    })();
    const r = await waitRead(c, session_id, 3);
    assertEquals([r.is_complete, r.via], [false, "timeout"], `${s.name}: ${JSON.stringify(r)}`);
    assert(r.waited_ms >= 3000, `${s.name}: ${r.waited_ms} ms`);
    assertEquals(await answered, 200, `${s.name} serves`);
    const o = await c.ok<{ state: string }>("pty_observe", { session_id });
    assertEquals(o.state, "running", `${s.name}: observe ${JSON.stringify(o)}`);
    await c.ok("pty_key", { session_id, key: "C-c" });
    const stopped = await waitRead(c, session_id);
    assertEquals(
      [stopped.is_complete, stopped.via],
      [true, "shell_integration"],
      `${s.name}: ${JSON.stringify(stopped)}`,
    );
  }
  // The terminal and a socket at once, in line mode with echo: the kernel cannot tell, and nothing holds the keyboard
  // the way a prompt does, so the name (python3) does not make it nested.
  await c.ok("pty_send", {
    wait: false,
    session_id,
    text: "python3 -c 'import socket, select; a, b = socket.socketpair(); select.select([0, a], [], [])'",
  });
  const both = await waitRead(c, session_id, 3);
  assertEquals([both.is_complete, both.via], [false, "timeout"], JSON.stringify(both));
  await c.ok("pty_key", { session_id, key: "C-c" });
  await waitRead(c, session_id);
  // The same python3 at its own prompt does read the terminal: nested, on the kernel's evidence (no guess).
  await c.ok("pty_send", { wait: false, session_id, text: "python3 -q" });
  const repl = await waitRead(c, session_id);
  assertEquals([repl.is_complete, repl.via], [false, "nested"], JSON.stringify(repl));
  assert(!repl.hint?.includes("guessed"), `a kernel verdict is not called a guess: ${repl.hint}`);
  await c.ok("pty_send", { wait: false, session_id, text: "exit()" });
  await waitRead(c, session_id);
  await c.ok("pty_close", { session_id });
});
