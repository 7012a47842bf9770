/**
 * Every `AITERM_*` variable is named in base/config.ts only: product code gets a user knob from the
 * Config its root loaded (or `knobFrom`), and a child variable through `CHILD_VARS` / `childVar()`.
 * A read of `env.AITERM_X`, `env["AITERM_X"]`, `Deno.env.get("AITERM_X")`, an object key or a
 * constant holding a whole `AITERM_X` name anywhere else fails this test. Prose that mentions a
 * variable (messages, comments, shell scripts in template literals) is fine.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { isProduct, sourceFile } from "../../scripts/check_imports.ts";

const root = new URL("../../", import.meta.url).pathname;

/** The one product file that spells the names. */
const HOME = "base/config.ts";

/** Where `text` (at `path`) names an AITERM_ variable in code: `path:line: what`. */
export function aitermNames(path: string, text: string): string[] {
  const f = sourceFile(path, text);
  const out: string[] = [];
  const lineAt = (s: string, i: number) => s.slice(0, i).split("\n").length;
  // Code with strings blanked: an identifier (env.AITERM_X, { AITERM_X: … }, const { AITERM_X } = env).
  for (const m of f.code.matchAll(/(?<![\w$])AITERM_[A-Z0-9_]*/g)) {
    out.push(`${path}:${lineAt(f.code, m.index)}: ${m[0]} as an identifier`);
  }
  // Code with comments blanked but strings kept: a literal that is a whole name ("AITERM_X", 'AITERM_', `AITERM_X`).
  for (const m of f.literals.matchAll(/(["'`])(AITERM_[A-Z0-9_]*)\1/g)) {
    out.push(`${path}:${lineAt(f.literals, m.index)}: ${m[2]} as a string`);
  }
  return out;
}

async function productFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${root}${dir}`)) {
    const path = dir === "" ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory && !["node_modules", "testdata", "fixtures"].includes(e.name)) {
      out.push(...await productFiles(path));
    } else if (e.isFile && path.endsWith(".ts") && isProduct(path)) out.push(path);
  }
  return out;
}

Deno.test("no product file but base/config.ts names an AITERM_ variable in code", async () => {
  const files = (await productFiles("")).filter((p) => p !== HOME).sort();
  assert(files.includes("lib/terminal/terminal.ts") && files.length > 100, `scanned ${files.length} files`);
  const found: string[] = [];
  for (const path of files) found.push(...aitermNames(path, await Deno.readTextFile(`${root}${path}`)));
  assertEquals(found, []);
});

Deno.test("the scan finds each form of a read, and leaves prose alone", () => {
  const planted = [
    "const a = env.AITERM_LOG;",
    'const b = env["AITERM_TMUX_BIN"];',
    'const c = Deno.env.get("AITERM_STATE_DIR");',
    "const d = { AITERM_SESSION_ID: id };",
    "const e = 'AITERM_SSH_CONFIG';",
    "if (k.startsWith(`AITERM_`)) skip();",
  ].join("\n");
  assertEquals(aitermNames("lib/x.ts", planted).length, 6);
  const prose = [
    "// AITERM_LOG is read by the root",
    "/** set AITERM_STATE_DIR to a shorter directory */",
    'throw new Error("set AITERM_STATE_DIR to a shorter directory");',
    'const script = `ZDOTDIR="${"$"}{AITERM_USER_ZDOTDIR:-$HOME}"`;',
    "const marker = /^__AITERM_[0-9a-f]{8,}__$/;",
    "const sentinel = `__AITERM_${nonce}__`;",
  ].join("\n");
  assertEquals(aitermNames("lib/x.ts", prose), []);
});
