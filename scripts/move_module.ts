/**
 * Moves modules and rewrites every relative import of them, and their own relative imports:
 *
 *   deno run -A scripts/move_module.ts <from> <to> [<from> <to> …]
 *
 * Paths are repository-relative files. A `<from>`'s `*_test.ts` sibling moves with it when `<to>`
 * names no test of its own. Specifiers rewritten: `from "…"`, `import "…"`, `import("…")` and
 * `// @ts-types="…"` lines, in every `.ts` file outside node_modules/ and tests/fixtures/.
 */
import { dirname, join, normalize, relative, resolve } from "node:path";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");

function logLine(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
}

function walk(dir: string, out: string[]): void {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    const rel = relative(root, path);
    if (entry.isDirectory) {
      if (rel === "node_modules" || rel === "tests/fixtures" || entry.name.startsWith(".")) continue;
      walk(path, out);
    } else if (entry.isFile && entry.name.endsWith(".ts")) out.push(rel);
  }
}

function specifierFor(fromFile: string, target: string): string {
  let spec = relative(dirname(fromFile), target);
  if (!spec.startsWith(".")) spec = `./${spec}`;
  return spec;
}

const SPEC = /(from\s+|import\s+|import\(\s*|@ts-types=)(["'])(\.{1,2}\/[^"']+)\2/g;

function main(args: string[]): void {
  if (args.length === 0 || args.length % 2 !== 0) {
    logLine("usage: move_module.ts <from> <to> [<from> <to> …]");
    Deno.exit(2);
  }
  const moves = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) {
    const from = normalize(args[i]!), to = normalize(args[i + 1]!);
    moves.set(from, to);
    const test = from.replace(/\.ts$/, "_test.ts");
    const toTest = to.replace(/\.ts$/, "_test.ts");
    if (!from.endsWith("_test.ts") && !moves.has(test)) {
      try {
        Deno.statSync(join(root, test));
        moves.set(test, toTest);
      } catch { /* no test sibling */ }
    }
  }
  const files: string[] = [];
  walk(root, files);
  const contents = new Map(files.map((f) => [f, Deno.readTextFileSync(join(root, f))]));
  for (const [file, text] of contents) {
    const newFile = moves.get(file) ?? file;
    const rewritten = text.replace(SPEC, (whole, lead: string, quote: string, spec: string) => {
      const target = normalize(join(dirname(file), spec));
      const newTarget = moves.get(target) ?? target;
      if (newTarget === target && newFile === file) return whole;
      return `${lead}${quote}${specifierFor(newFile, newTarget)}${quote}`;
    });
    if (newFile !== file) {
      Deno.mkdirSync(dirname(join(root, newFile)), { recursive: true });
      Deno.writeTextFileSync(join(root, newFile), rewritten);
      Deno.removeSync(join(root, file));
      logLine(`moved ${file} -> ${newFile}`);
    } else if (rewritten !== text) {
      Deno.writeTextFileSync(join(root, file), rewritten);
    }
  }
}

if (import.meta.main) main(Deno.args);
