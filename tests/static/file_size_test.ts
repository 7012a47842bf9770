/**
 * No source file of the product, the scripts or the kit is over 600 lines (issue 31): a file that grows past it
 * is split along a seam (ADR 0038). Tests, benches, fixtures and node_modules are not held to it.
 */
import { assert, assertEquals } from "../helpers/assert.ts";

const root = new URL("../../", import.meta.url).pathname;

/** The most lines a source file may have. */
const MAX_LINES = 600;

/** Top folders whose files are not held to {@link MAX_LINES}. */
const SKIPPED = new Set(["node_modules", "tests", "bench", ".git"]);

/** The repository's `.ts` files that are not tests, with their line counts. */
async function sourceFiles(): Promise<{ path: string; lines: number }[]> {
  const out: { path: string; lines: number }[] = [];
  const walk = async (rel: string): Promise<void> => {
    for await (const entry of Deno.readDir(`${root}${rel}`)) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory) {
        if (!(rel === "" && SKIPPED.has(entry.name))) await walk(path);
      } else if (entry.isFile && path.endsWith(".ts") && !path.endsWith("_test.ts")) {
        const text = await Deno.readTextFile(`${root}${path}`);
        out.push({ path, lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0) });
      }
    }
  };
  await walk("");
  return out;
}

Deno.test(`no source file is over ${MAX_LINES} lines`, async () => {
  const files = await sourceFiles();
  assert(files.some((f) => f.path === "lib/terminal/terminal.ts") && files.length > 200, `${files.length} files`);
  const over = files.filter((f) => f.lines > MAX_LINES).map((f) => `${f.path} (${f.lines})`).sort();
  assertEquals(over, [], "split these along a seam");
});
