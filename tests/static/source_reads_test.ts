/**
 * The compiled binary carries only its module graph: nothing may read a file relative to a module's
 * own location at run time (import.meta.url / dirname / filename), and nothing may import lazily
 * (the compiler keeps only what is statically imported). Scans every local module the two entry
 * points reach, as `deno info` resolves them.
 */
import { assert, assertEquals } from "../helpers/assert.ts";

const root = new URL("../../", import.meta.url).pathname;

/** Modules allowed to mention import.meta.url, and why (each use is outside the compiled path). */
const ALLOWED: Record<string, string> = {
  // serverCommand() builds the `deno run -A <main.ts>` registration only when not compiled (isCompiled() guards it).
  "setup/server_command.ts": "source-run registration path, guarded by isCompiled()",
};

async function graph(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: { specifier: string }[] };
  return info.modules.map((m) => m.specifier).filter((s) => s.startsWith(`file://${root}`)).map((s) =>
    s.slice(`file://${root}`.length)
  );
}

Deno.test("no module of aiterm-mcp or aiterm-wait reads files next to its source, or imports lazily", async () => {
  const modules = [...new Set([...(await graph("main.ts")), ...(await graph("wait.ts"))])].sort();
  assert(modules.length > 50, `the graph was resolved (${modules.length} modules)`);
  assert(modules.includes("lib/agent/delivery/cli.ts"), "the hook subcommands are in the binary");
  assert(
    modules.includes("harnesses/grok/adapter.ts") && modules.includes("harnesses/cursor/adapter.ts"),
    "every harness is static",
  );
  const offenders: string[] = [];
  for (const path of modules) {
    const text = await Deno.readTextFile(`${root}${path}`);
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    const selfRelative = /import\.meta\.(url|dirname|filename)/.test(code);
    const lazy = /\bawait\s+import\s*\(|\bimport\s*\(\s*[^)]/.test(code);
    if (selfRelative && !ALLOWED[path]) offenders.push(`${path}: import.meta location`);
    if (lazy) offenders.push(`${path}: dynamic import`);
  }
  assertEquals(offenders, []);
});
