import { assert, assertEquals, assertStringIncludes } from "../tests/helpers/assert.ts";

const MOD = new URL("./mod.ts", import.meta.url).pathname;

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MOD, ...args],
    env: { HOME: "/nonexistent-aiterm-home", PATH: "/nonexistent" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

Deno.test("hook flags: bad combinations and values exit 2 with nothing on stdout", async () => {
  for (
    const args of [
      ["--codex-steer"],
      ["--codex-steer=on"],
      ["--remove-claude-parent-hooks", "--install-deps"],
      ["--remove-cursor-parent-hooks=yes"],
    ]
  ) {
    const r = await run(...args);
    assertEquals(r.code, 2, args.join(" "));
    assertEquals(r.stdout, "");
  }
});

Deno.test("hook commands print aiterm.setup-hooks-result.v1; removing from a home without files is a no-op", async () => {
  const r = await run("--remove-claude-parent-hooks", "--remove-cursor-parent-hooks", "--codex-steer", "status");
  const result = JSON.parse(r.stdout);
  assertEquals(result.schema, "aiterm.setup-hooks-result.v1");
  assertEquals(result.actions.map((a: { action: string; status: string }) => `${a.action}:${a.status}`), [
    "remove_claude_parent_hooks:not_installed",
    "remove_cursor_parent_hooks:not_installed",
    "codex_steer:ok",
  ]);
  assertEquals(r.code, 0);
  const enable = await run("--codex-steer=enable");
  assertEquals(enable.code, 1);
  assertEquals(JSON.parse(enable.stdout).status, "failed");
  const human = await run("--codex-steer", "disable", "--human");
  assertEquals(human.code, 0);
  assertStringIncludes(human.stdout, "codex_steer disable: ok");
});

Deno.test("bad flags exit 2; --help exits 0 and names every flag", async () => {
  assertEquals((await run("--bogus")).code, 2);
  assertEquals((await run("--json", "--human")).code, 2);
  assertEquals((await run("extra")).code, 2);
  const help = await run("--help");
  assertEquals(help.code, 0);
  for (
    const f of [
      "--install-deps",
      "--dry-run",
      "--json",
      "--human",
      "--remove-claude-parent-hooks",
      "--remove-cursor-parent-hooks",
      "--codex-steer",
    ]
  ) assertStringIncludes(help.stdout, f);
});

Deno.test("from a package manager's install hook setup refuses, in JSON, exit 1", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MOD],
    env: { HOME: "/nonexistent-aiterm-home", PATH: "/nonexistent", npm_lifecycle_event: "postinstall" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 1);
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  assertEquals([result.schema, result.status, result.reason_code], [
    "aiterm.setup-result.v1",
    "failed",
    "install_hook_refused",
  ]);
  assert(result.steps.every((s: { step: string; status: string }) => s.step === "preflight" || s.status === "skipped"));
});
