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

Deno.test("hook flags are not available in this version: exit 2 with a clear message, nothing on stdout", async () => {
  for (
    const flag of [
      "--remove-claude-parent-hooks",
      "--remove-cursor-parent-hooks",
      "--codex-steer",
      "--codex-steer=enable",
    ]
  ) {
    const r = await run(flag);
    assertEquals(r.code, 2, flag);
    assertStringIncludes(r.stderr, "not available in this version");
    assertEquals(r.stdout, "");
  }
});

Deno.test("bad flags exit 2; --help exits 0 and names every flag", async () => {
  assertEquals((await run("--bogus")).code, 2);
  assertEquals((await run("--json", "--human")).code, 2);
  assertEquals((await run("extra")).code, 2);
  const help = await run("--help");
  assertEquals(help.code, 0);
  for (const f of ["--install-deps", "--dry-run", "--json", "--human"]) assertStringIncludes(help.stdout, f);
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
