/** The pane launcher (ADR 0033): what its file holds, how its report is read, and its failures on real tmux. */
import { assert, assertEquals, assertRejects } from "../tests/helpers/assert.ts";
import { hasTmux, makeTestEnv, type TestEnv } from "../tests/helpers/env.ts";
import { AppError } from "../base/errors.ts";
import { envFileText, LAUNCH_CWD_FAILED, parseLaunchReport } from "./pane_launch.ts";
import { createTmux } from "./tmux/tmux.ts";
import type { NewSessionSpec } from "./multiplexer.ts";

Deno.test("envFileText(): the opener's environment less tmux's, the shell's and unexportable names; aiterm's on top", () => {
  const text = envFileText(
    {
      PATH: "/bin",
      FOO: "it's $(id) `x`\nline2",
      TERM: "xterm-opener",
      TMUX: "/other,1,0",
      TMUX_PANE: "%9",
      TERM_PROGRAM: "iTerm",
      PWD: "/opener",
      OLDPWD: "/before",
      SHELLOPTS: "braceexpand",
      "BASH_FUNC_f%%": "() { echo; }",
      "a-b": "x",
      PAGER: "less",
    },
    { PAGER: "cat", AITERM_SESSION_ID: "t1" },
  );
  const lines = text.split("\n");
  assert(lines[0]!.startsWith("# aiterm launch"), lines[0]);
  assertEquals(lines.slice(1), [
    "export PATH='/bin'",
    "export FOO='it'\\''s $(id) `x`",
    "line2'",
    "export PAGER='cat'",
    "export AITERM_SESSION_ID='t1'",
    "",
  ]);
  const e = (() => {
    try {
      envFileText({}, { "BAD-NAME": "x" });
    } catch (err) {
      return err;
    }
  })();
  assert(e instanceof AppError && e.code === "INVALID_ARGUMENT", String(e));
});

Deno.test("parseLaunchReport() reads only a finished report", () => {
  assertEquals(parseLaunchReport(null), { state: "pending" });
  assertEquals(parseLaunchReport("# aiterm launch\nexport A='/x'\n"), { state: "pending" });
  assertEquals(parseLaunchReport(""), { state: "pending" });
  assertEquals(parseLaunchReport("/half/written"), { state: "pending" });
  assertEquals(parseLaunchReport(LAUNCH_CWD_FAILED), { state: "cwd_failed" });
  assertEquals(parseLaunchReport("/a\nb/#[x]\n"), { state: "started", cwd: "/a\nb/#[x]" });
});

/** The tmux backend on `t`'s private socket (its directory made, as the state layout does). */
async function tmuxOn(t: TestEnv, bin?: string) {
  await Deno.mkdir(t.stateDir, { recursive: true, mode: 0o700 });
  return createTmux({ socketPath: t.socketPath, scratchDir: t.root, env: t.env, ...(bin ? { bin } : {}) });
}

function spec(t: TestEnv, name: string, cwd: string, over: Partial<NewSessionSpec> = {}): NewSessionSpec {
  return {
    name,
    cwd,
    argv: ["/bin/sh", "-c", "sleep 30"],
    baseEnv: { PATH: t.env.PATH ?? "/usr/bin:/bin" },
    env: {},
    privateDir: `${t.root}/p-${name}`,
    width: 80,
    height: 24,
    outputSink: "cat >/dev/null",
    ...over,
  };
}

for (const keepOnExit of [false, true]) {
  Deno.test({
    name:
      `newSession() (keepOnExit ${keepOnExit}): a directory the launcher cannot enter is CWD_UNUSABLE and nothing is left`,
    ignore: !hasTmux,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await using t = await makeTestEnv();
      const mux = await tmuxOn(t);
      // A first session keeps the server up, so the failed ones are judged on a running server.
      await Deno.mkdir(`${t.root}/p-ok`);
      assertEquals((await mux.newSession(spec(t, "ok", t.root))).cwd, t.root);
      // Missing (removed after the caller checked it), and a file where a directory should be.
      await Deno.writeTextFile(`${t.root}/file`, "");
      for (const [i, cwd] of [`${t.root}/gone #[x]`, `${t.root}/file`].entries()) {
        const name = `bad${i}`;
        await Deno.mkdir(`${t.root}/p-${name}`);
        const err = await assertRejects(() => mux.newSession(spec(t, name, cwd, { keepOnExit })));
        assertEquals(err instanceof AppError && err.code, "CWD_UNUSABLE", String(err));
        assertEquals(await mux.hasSession(name), false, "a session was left open");
        assertEquals([...Deno.readDirSync(`${t.root}/p-${name}`)], [], "the launch file was left behind");
      }
      assertEquals((await mux.listSessions()).map((s) => s.name), ["ok"]);
    },
  });
}

/** A tmux that runs the real one with the launch file's path replaced by a missing file (the launcher cannot source it). */
async function missingFileTmux(t: TestEnv): Promise<string> {
  const real = new TextDecoder().decode(
    (await new Deno.Command("sh", { args: ["-c", "command -v tmux"], stdout: "piped" }).output()).stdout,
  ).trim();
  const shim = `${t.root}/tmux-shim`;
  await Deno.writeTextFile(
    shim,
    `#!/bin/sh\nfor a; do shift; case $a in */launch-env.*) set -- "$@" /nonexistent/launch;; *) set -- "$@" "$a";; esac; done\nexec '${real}' "$@"\n`,
    { mode: 0o755 },
  );
  return shim;
}

for (const keepOnExit of [false, true]) {
  Deno.test({
    name: `newSession() (keepOnExit ${keepOnExit}): a launcher that ends without a report is an error, nothing left`,
    ignore: !hasTmux,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await using t = await makeTestEnv();
      const mux = await tmuxOn(t, await missingFileTmux(t));
      // A first session keeps the server up, so the failure is judged on a running server.
      await Deno.mkdir(`${t.root}/p-ok`);
      await (await tmuxOn(t)).newSession(spec(t, "ok", t.root));
      await Deno.mkdir(`${t.root}/p-x`);
      const started = performance.now();
      const err = await assertRejects(() => mux.newSession(spec(t, "x", t.root, { keepOnExit })));
      assertEquals(err instanceof AppError && err.code, "TMUX_COMMAND_FAILED", String(err));
      assert(performance.now() - started < 10_000, "the failure was found by the timeout, not by the dead pane");
      assertEquals(await mux.hasSession("x"), false, "a session was left open");
      assertEquals((await mux.listSessions()).map((s) => s.name), ["ok"]);
      assertEquals([...Deno.readDirSync(`${t.root}/p-x`)], [], "the launch file was left behind");
    },
  });
}
