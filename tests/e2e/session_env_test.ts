/**
 * Issue 29 items 1 and 2 through the real MCP client on real tmux: a session (and an agent) starts with the
 * environment of the aiterm process that opens it, whichever process started the private tmux server and
 * whichever is alive beside it; and it starts in exactly the directory asked for, or the call is a coded error.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux || Deno.build.os !== "linux", sanitizeOps: false, sanitizeResources: false };
const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;

async function panePid(t: TestEnv, id: string): Promise<number> {
  const out = await t.tmux("display-message", "-p", "-t", `=${id}:`, "#{pane_pid}");
  const pid = Number(out.stdout.trim());
  assert(pid > 0, `no pane pid for ${id}: ${out.stderr}`);
  return pid;
}

/**
 * The environment the pane's program was started with. pty_open of a shell without integration (sh) returns once the
 * launcher reported its directory, which can be a moment before it execs the shell with the session's environment:
 * until then /proc shows the launcher's own, so this waits (up to 5 s) for the exec'd one (it has AITERM_SESSION_ID).
 */
async function environOf(pid: number): Promise<Map<string, string>> {
  for (let i = 0; i < 100; i++) {
    const env = await environOnce(pid);
    if (env.has("AITERM_SESSION_ID")) return env;
    await new Promise((r) => setTimeout(r, 50));
  }
  return await environOnce(pid);
}

async function environOnce(pid: number): Promise<Map<string, string>> {
  const raw = await Deno.readTextFile(`/proc/${pid}/environ`);
  const env = new Map<string, string>();
  for (const entry of raw.split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/** Every process's argv as text (NULs as spaces). */
async function allCmdlines(): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const bytes = await Deno.readFile(`/proc/${e.name}/cmdline`).catch(() => null);
    if (bytes) out.push(new TextDecoder().decode(bytes).replaceAll("\0", " "));
  }
  return out;
}

/** One aiterm server's environment: its own FOO, PATH (with a directory only it has) and a variable only it has. */
async function serverEnv(t: TestEnv, tag: string): Promise<Record<string, string>> {
  const bin = `${t.root}/bin-${tag}`;
  await Deno.mkdir(bin, { recursive: true });
  return {
    ...t.env,
    FOO: `${tag}-${crypto.randomUUID()}`,
    PATH: `${bin}:${t.env.PATH}`,
    [`ONLY_${tag.toUpperCase()}`]: `only-${tag}-${crypto.randomUUID()}`,
    // What an aiterm started inside a person's own tmux has: tmux's variables of *that* server.
    TMUX: `/tmp/someone-elses-tmux-${tag},1,0`,
    TMUX_PANE: "%99",
    TERM: "xterm-opener",
  };
}

/** Asserts the pane's environment is `want`'s (less tmux's own variables), and tmux's own variables are its server's. */
async function assertPaneEnv(t: TestEnv, id: string, want: Record<string, string>, others: Record<string, string>[]) {
  const env = await environOf(await panePid(t, id));
  assertEquals(env.get("FOO"), want.FOO, `FOO in ${id}`);
  assertEquals(env.get("PATH"), want.PATH, `PATH in ${id}`);
  for (const [k, v] of Object.entries(want)) {
    if (k.startsWith("ONLY_")) assertEquals(env.get(k), v, `${k} in ${id}`);
  }
  for (const other of others) {
    for (const k of Object.keys(other)) {
      if (k.startsWith("ONLY_") && !(k in want)) assertEquals(env.get(k), undefined, `${k} leaked into ${id}`);
    }
  }
  assertEquals(env.get("AITERM_SESSION_ID"), id);
  // tmux's own variables are the private server's, never the opener's.
  assert(env.get("TMUX")?.startsWith(`${t.socketPath},`), `TMUX in ${id}: ${env.get("TMUX")}`);
  assert(/^%\d+$/.test(env.get("TMUX_PANE") ?? "") && env.get("TMUX_PANE") !== "%99", `TMUX_PANE in ${id}`);
  const term = (await t.tmux("show-options", "-gv", "default-terminal")).stdout.trim();
  assertEquals(env.get("TERM"), term, `TERM in ${id}`);
}

async function echoFoo(c: TestClient, session_id: string): Promise<string> {
  await c.ok("pty_send", { wait: false, session_id, text: 'printf "<%s>\\n" "$FOO"' });
  const r = await c.ok<{ text: string }>("pty_read", { session_id, wait: true, timeout: 30 });
  return r.text.match(/<([^>\n]*)>/)?.[1] ?? "";
}

Deno.test("a session has the environment of the server that opens it: one server after the other", opts, async () => {
  await using t = await makeTestEnv();
  const envA = await serverEnv(t, "first");
  const envB = await serverEnv(t, "second");
  {
    await using a = await connect(envA);
    const s = await a.ok<{ session_id: string }>("pty_open", { cwd: t.root });
    await assertPaneEnv(t, s.session_id, envA, [envB]);
    await a.ok("pty_close", { session_id: s.session_id });
  }
  // The private tmux server outlives A (exit-empty off): B's session lands on the server A started.
  assertEquals((await t.tmux("show-options", "-gv", "exit-empty")).stdout.trim(), "off", "the server did not stay up");
  await using b = await connect(envB);
  const s = await b.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  await assertPaneEnv(t, s.session_id, envB, [envA]);
  assertEquals(await echoFoo(b, s.session_id), envB.FOO);
  const argvs = await allCmdlines();
  for (const v of [envA.FOO, envB.FOO, envA.ONLY_FIRST, envB.ONLY_SECOND]) {
    assertEquals(argvs.filter((a) => a.includes(v!)), [], "an argv holds an environment value");
  }
});

Deno.test("a session has the environment of the server that opens it: two servers at once", opts, async () => {
  await using t = await makeTestEnv();
  const envA = await serverEnv(t, "first");
  const envB = await serverEnv(t, "second");
  await using a = await connect(envA);
  await using b = await connect(envB);
  const a1 = await a.ok<{ session_id: string }>("pty_open", { name: "a1", cwd: t.root });
  const b1 = await b.ok<{ session_id: string }>("pty_open", { name: "b1", cwd: t.root });
  const a2 = await a.ok<{ session_id: string }>("pty_open", { name: "a2", cwd: t.root, shell: "sh" });
  const b2 = await b.ok<{ session_id: string }>("pty_open", { name: "b2", cwd: t.root, shell: "sh" });
  for (const id of [a1.session_id, a2.session_id]) await assertPaneEnv(t, id, envA, [envB]);
  for (const id of [b1.session_id, b2.session_id]) await assertPaneEnv(t, id, envB, [envA]);
  assertEquals(await echoFoo(a, "a1"), envA.FOO);
  assertEquals(await echoFoo(b, "b1"), envB.FOO);
  // env_vars and the pager defaults still apply on top of the opener's environment.
  const pagerA = { ...envA, PAGER: "less-first" };
  await using a3srv = await connect(pagerA);
  const a3 = await a3srv.ok<{ env_vars: string[] }>("pty_open", { name: "a3", cwd: t.root, shell: "sh" });
  assertEquals((await environOf(await panePid(t, "a3"))).get("PAGER"), "cat", "PAGER without env_vars");
  assertEquals(a3.env_vars, []);
  await a3srv.ok("pty_open", { name: "a4", cwd: t.root, shell: "sh", env_vars: ["PAGER"] });
  assertEquals((await environOf(await panePid(t, "a4"))).get("PAGER"), "less-first", "PAGER with env_vars");
});

Deno.test("an agent launched under a second server has that server's environment", opts, async () => {
  await using t = await makeTestEnv();
  await Deno.mkdir(`${t.root}/proj`);
  const envA: Record<string, string> = { ...(await serverEnv(t, "first")), CLAUDE_BIN: `${FIXTURE_BIN}claude` };
  const envB: Record<string, string> = { ...(await serverEnv(t, "second")), CLAUDE_BIN: `${FIXTURE_BIN}claude` };
  {
    await using a = await connect(envA);
    await a.ok("pty_open", { name: "keep", cwd: t.root, shell: "sh" });
  }
  await using b = await connect(envB);
  const l = await b.ok<{ session_id: string }>("agent_launch", { harness: "claude-code", cwd: `${t.root}/proj` });
  const pid = await panePid(t, l.session_id);
  const env = await environOf(pid);
  assertEquals(env.get("FOO"), envB.FOO);
  assertEquals(env.get("PATH"), envB.PATH);
  assertEquals(env.get("ONLY_SECOND"), envB.ONLY_SECOND);
  assertEquals(env.get("ONLY_FIRST"), undefined, "the first server's variable leaked into the agent");
  assertEquals(env.get("AITERM_SESSION_ID"), l.session_id);
  assertEquals(await Deno.readLink(`/proc/${pid}/cwd`), `${t.root}/proj`);
});

/** A small deterministic PRNG (mulberry32), so a failing name can be reproduced. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "#[fg=red]",
  "#[",
  "##[",
  "#{",
  "#{session_name}",
  "#(",
  "#(id)",
  "#",
  "##",
  "]",
  "}",
  ")",
  ";",
  " ; ",
  "\\;",
  "$",
  "$HOME",
  "${X}",
  "$(id)",
  "`id`",
  "\n",
  "\t",
  "%",
  "%d",
  "'",
  '"',
  "\\",
  " ",
  "~",
  "-",
  "*",
  "?",
  "{a,b}",
  "é",
  "日本",
  "x",
  "..",
];

const FIXED = ["#[fg=red]x", "x#[", "##[y", "#[]", "#{", "#(", ";", "$", "a\nb", "-c", "~", "#[fg=red]x;"];

function hostileNames(n: number): string[] {
  const next = rng(29);
  const names = [...FIXED];
  while (names.length < n) {
    let name = "";
    const parts = 1 + Math.floor(next() * 5);
    for (let i = 0; i < parts; i++) name += PIECES[Math.floor(next() * PIECES.length)];
    if (name === "." || name === ".." || name.includes("/")) continue;
    names.push(name);
  }
  return names;
}

Deno.test("property: a session's working directory is exactly the one asked for, whatever its name", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const names = hostileNames(60);
  for (const [i, name] of names.entries()) {
    const cwd = `${t.root}/w${i}/${name}`;
    await Deno.mkdir(cwd, { recursive: true });
    const shell = i % 5 === 0 ? "bash" : "sh";
    const opened = await c.ok<{ session_id: string; cwd: string }>("pty_open", { cwd, shell });
    const real = await Deno.readLink(`/proc/${await panePid(t, opened.session_id)}/cwd`);
    assertEquals(real, cwd, `pane cwd for ${JSON.stringify(name)}`);
    assertEquals(opened.cwd, real, `receipt cwd for ${JSON.stringify(name)}`);
    await c.ok("pty_close", { session_id: opened.session_id });
  }
  // Nothing ran: `#(id)` never became a file name or a process.
  assertEquals((await t.tmux("list-sessions")).stdout, "");
});

Deno.test("the receipt's cwd is the pane's: a link to a directory opens in the directory it names", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  const real = `${t.root}/real #[fg=red]dir`;
  await Deno.mkdir(real);
  await Deno.symlink(real, `${t.root}/link`);
  const opened = await c.ok<{ session_id: string; cwd: string }>("pty_open", { cwd: `${t.root}/link`, shell: "sh" });
  assertEquals(await Deno.readLink(`/proc/${await panePid(t, opened.session_id)}/cwd`), real);
  assertEquals(opened.cwd, real);
});

Deno.test("property: agent_launch starts the agent in exactly the directory asked for", opts, async () => {
  await using t = await makeTestEnv();
  t.env.CLAUDE_BIN = `${FIXTURE_BIN}claude`;
  await using c = await connect(t.env);
  for (const [i, name] of ["#[fg=red]x", "p #[bold]#{session_name} ;", "##[z", "n\nl$(id)#(id)"].entries()) {
    const cwd = `${t.root}/a${i}/${name}`;
    await Deno.mkdir(cwd, { recursive: true });
    const l = await c.ok<{ session_id: string }>("agent_launch", { harness: "claude-code", cwd });
    const real = await Deno.readLink(`/proc/${await panePid(t, l.session_id)}/cwd`);
    assertEquals(real, cwd, `agent cwd for ${JSON.stringify(name)}`);
    await c.ok("pty_close", { session_id: l.session_id });
  }
});
