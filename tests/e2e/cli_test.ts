/** The command line: `--help` lists every subcommand, `--version` works, and the README names them all. */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { SUBCOMMANDS } from "../../main.ts";
import { VERSION } from "../../base/version.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

Deno.test("aiterm-mcp --help lists every subcommand with one line; --version and version print the version", async () => {
  for (const flag of ["--help", "-h", "help"]) {
    const r = await run(flag);
    assertEquals(r.code, 0, r.stderr);
    for (const [name, c] of Object.entries(SUBCOMMANDS)) {
      assert(new RegExp(`^  ${name} +${c.summary.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m").test(r.stdout), name);
    }
  }
  for (const flag of ["--version", "-V", "version"]) {
    const r = await run(flag);
    assertEquals([r.code, r.stdout], [0, `${VERSION}\n`]);
  }
  const bad = await run("bogus");
  assertEquals(bad.code, 2);
  assertStringIncludes(bad.stderr, 'unknown subcommand "bogus"');
  assertEquals(bad.stdout, "");
});

Deno.test("every subcommand answers --help with its own text, on stdout, exit 0", async () => {
  for (const name of Object.keys(SUBCOMMANDS)) {
    const r = await run(name, "--help");
    assertEquals(r.code, 0, `${name}: ${r.stderr}`);
    assertStringIncludes(r.stdout + r.stderr, name === "cursor-parent-receive" ? "cursor-parent-receive" : name);
  }
});

Deno.test("the README and README.ja list every subcommand in their command-line section", async () => {
  for (const file of ["README.md", "README.ja.md"]) {
    const text = await Deno.readTextFile(new URL(`../../${file}`, import.meta.url));
    const start = text.indexOf("<!-- subcommands -->");
    const end = text.indexOf("<!-- /subcommands -->");
    assert(start >= 0 && end > start, `${file}: no subcommands section`);
    const section = text.slice(start, end);
    for (const name of Object.keys(SUBCOMMANDS)) {
      assert(section.includes(`\`${name}\``), `${file} does not list ${name}`);
    }
  }
});
