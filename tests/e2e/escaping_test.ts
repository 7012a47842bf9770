/**
 * Issue 14 items 1 and 2 through the real MCP client on real tmux: no caller string (cwd, env value,
 * state root, session name) reaches tmux's format or command parser, and no env value reaches any
 * process's argv or any result.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux || Deno.build.os !== "linux", sanitizeOps: false, sanitizeResources: false };

/** Every character tmux's parsers treat specially, alone and in combination. `MARK` becomes a marker path. */
const HOSTILE = [
  "x#(touch MARK)",
  "y#{session_name}",
  "ends;",
  "ends\\;",
  "a;b ; c",
  "## #",
  "back\\slash\\",
  "$HOME `id` $(id) 'q' \"d\"",
  "{ } ( ) ; \\ $ ' \"",
  "日本語 🎉 ünï",
  "two\nlines",
  "#{?pane_dead,1,0}}",
  "100% %d %Y",
];

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function panePid(t: TestEnv, id: string): Promise<number> {
  const out = await t.tmux("display-message", "-p", "-t", `=${id}:`, "#{pane_pid}");
  const pid = Number(out.stdout.trim());
  assert(pid > 0, `no pane pid for ${id}: ${out.stderr}`);
  return pid;
}

async function environOf(pid: number): Promise<Map<string, string>> {
  const raw = await Deno.readTextFile(`/proc/${pid}/environ`);
  const env = new Map<string, string>();
  for (const entry of raw.split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/** Every process's argv as text (NULs as spaces), for leak scans. */
async function allCmdlines(): Promise<{ pid: number; argv: string }[]> {
  const out: { pid: number; argv: string }[] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const bytes = await Deno.readFile(`/proc/${e.name}/cmdline`).catch(() => null);
    if (bytes) out.push({ pid: Number(e.name), argv: new TextDecoder().decode(bytes).replaceAll("\0", " ") });
  }
  return out;
}

/** Every file under `dir` whose content contains `needle`. */
async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) hits.push(...await filesContaining(path, needle));
    else if (e.isFile && (await Deno.readTextFile(path).catch(() => "")).includes(needle)) hits.push(path);
  }
  return hits;
}

/** Sends a command and waits for its output through the log (proves the output sink works). */
async function roundTrip(c: TestClient, session_id: string, tag: string): Promise<void> {
  await c.ok("pty_send", { wait: false, session_id, text: `echo ${tag}-$((40+2))` });
  const r = await c.ok<{ text: string; is_complete: boolean }>("pty_read", { session_id, wait: true, timeout: 30 });
  assertStringIncludes(r.text, `${tag}-42`);
}

Deno.test("pty_open: hostile cwd and env values arrive exactly in the shell, and no #(…) runs", opts, async () => {
  await using t = await makeTestEnv();
  const marker = `${t.root}/PWNED`;
  const values = HOSTILE.map((v) => v.replaceAll("MARK", marker));
  values.forEach((v, i) => (t.env[`AITERM_T_H${i}`] = v));
  const names = values.map((_v, i) => `AITERM_T_H${i}`);
  await using c = await connect(t.env);
  for (const [i, value] of values.entries()) {
    const cwd = `${t.root}/c${i}/${value}`;
    await Deno.mkdir(cwd, { recursive: true });
    const opened = await c.ok<{ session_id: string; cwd: string }>("pty_open", { cwd, env_vars: names });
    assertEquals(opened.cwd, cwd);
    const pid = await panePid(t, opened.session_id);
    assertEquals(await Deno.readLink(`/proc/${pid}/cwd`), cwd, `cwd ${JSON.stringify(value)}`);
    const env = await environOf(pid);
    for (const [j, want] of values.entries()) {
      assertEquals(env.get(names[j]!), want, `env ${JSON.stringify(want)} in session for ${JSON.stringify(value)}`);
    }
    assertEquals(env.get("AITERM_SESSION_ID"), opened.session_id);
  }
  await roundTrip(c, "t1", "alive");
  assertEquals(await exists(marker), false, "a #(…) in a caller string ran");
});

Deno.test("a state root holding # % ; \\ $ and spaces: sessions open, the log works, nothing runs", opts, async () => {
  // `cd;touch PWNED` writes into HOME (the test home), where we look for it.
  await using t = await makeTestEnv({}, { stateName: "s #{session_name} ;x\\ $q %d #(cd;touch PWNED) ;" });
  await using c = await connect(t.env);
  const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root });
  await roundTrip(c, session_id, "state-root");
  assertEquals(await exists(`${t.home}/PWNED`), false, "a #(…) in the state root ran");
  assert(await exists(`${t.stateDir}/sessions/${session_id}/log`), "the log is not under the state root as given");
});

Deno.test("hostile session names are INVALID_ARGUMENT and start nothing", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  for (const name of ["x;y", "a#b", "#{pid}", "../x", "a b", "x".repeat(65), "日本", "t1;", "a:b", "a.b"]) {
    assertEquals((await c.err("pty_open", { name, cwd: t.root })).code, "INVALID_ARGUMENT", name);
    assertEquals(
      (await c.err("pty_send", { wait: false, session_id: name, text: "x" })).code,
      "INVALID_ARGUMENT",
      name,
    );
  }
  const ls = await t.tmux("list-sessions", "-F", "#{session_name}");
  assertEquals(ls.code === 0 ? ls.stdout : "", "", "a session was started");
});

/** A tmux that logs every argv it is run with (one JSON array per line) before running the real one. */
async function tmuxShim(t: TestEnv): Promise<string> {
  const real = new TextDecoder().decode(
    (await new Deno.Command("sh", { args: ["-c", "command -v tmux"], stdout: "piped" }).output()).stdout,
  ).trim();
  const log = `${t.root}/tmux-argv.log`;
  const shim = `${t.root}/tmux-shim`;
  await Deno.writeTextFile(
    shim,
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done >> '${log}'\nprintf '\\n' >> '${log}'\nexec '${real}' "$@"\n`,
    { mode: 0o755 },
  );
  t.env.AITERM_TMUX_BIN = shim;
  return log;
}

Deno.test("env_vars values never appear in any argv, any file left behind, or any result", opts, async () => {
  await using t = await makeTestEnv();
  const secret = `sk-live-${crypto.randomUUID()}`;
  t.env.AITERM_TEST_API_KEY = secret;
  const argvLog = await tmuxShim(t);
  await using c = await connect(t.env);
  const opened = await c.ok("pty_open", { name: "sec", cwd: t.root, env_vars: ["AITERM_TEST_API_KEY"] });
  assert(!JSON.stringify(opened).includes(secret), "the receipt holds the value");
  const pid = await panePid(t, "sec");
  assertEquals((await environOf(pid)).get("AITERM_TEST_API_KEY"), secret);
  const leaks = (await allCmdlines()).filter((p) => p.argv.includes(secret));
  assertEquals(leaks, [], "a process's argv holds the value");
  assert(!(await Deno.readTextFile(argvLog)).includes(secret), "a tmux argv held the value");
  assertEquals(await filesContaining(t.stateDir, secret), [], "a file under the state root holds the value");
  const listed = await c.ok<{ sessions: { session_id: string; environment?: Record<string, unknown> }[] }>(
    "pty_list",
    { env_keys: ["AITERM_TEST_API_KEY", "AITERM_SESSION_ID", "PATH"] },
  );
  const row = listed.sessions.find((s) => s.session_id === "sec");
  assertEquals(row?.environment, { AITERM_TEST_API_KEY: true, AITERM_SESSION_ID: true, PATH: false });
  const text = await c.call("pty_list", { env_keys: ["AITERM_TEST_API_KEY"] });
  assert(!JSON.stringify(text).includes(secret), "pty_list returned the value");
  await roundTrip(c, "sec", "secret-session");
});

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;

Deno.test(
  "agent_launch: a hostile cwd is the agent's real cwd, and env_vars values stay out of argv",
  opts,
  async () => {
    await using t = await makeTestEnv();
    const secret = `sk-agent-${crypto.randomUUID()}`;
    Object.assign(t.env, { CLAUDE_BIN: `${FIXTURE_BIN}claude`, AITERM_TEST_API_KEY: secret });
    const marker = `${t.root}/PWNED`;
    const cwd = `${t.root}/p #(touch ${marker}) #{session_name} ;`;
    await Deno.mkdir(cwd, { recursive: true });
    await using c = await connect(t.env);
    const l = await c.ok<{ session_id: string }>("agent_launch", {
      harness: "claude-code",
      cwd,
      env_vars: ["AITERM_TEST_API_KEY"],
      session_name: "agent_sec",
    });
    const pid = await panePid(t, l.session_id);
    assertEquals(await Deno.readLink(`/proc/${pid}/cwd`), cwd);
    assertEquals((await environOf(pid)).get("AITERM_TEST_API_KEY"), secret);
    assertEquals((await allCmdlines()).filter((p) => p.argv.includes(secret)), [], "an argv holds the value");
    assertEquals(await filesContaining(t.stateDir, secret), [], "a file under the state root holds the value");
    assertEquals(await exists(marker), false, "a #(…) in the cwd ran");
  },
);
