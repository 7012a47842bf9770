/**
 * `deno task check`'s import check: the layer rules of the product code (main.ts, wait.ts, lib/,
 * platform/, harnesses/, setup/; tests, benches, scripts and `*_test.ts` files are not product code).
 *
 * Each rule is one entry of {@link RULES}: an id, a sentence, whether it is enforced, and a function
 * from the parsed source tree to violations. Enforced rules fail the check (exit 1); the others are
 * printed as notes so a later issue can enforce them by flipping one flag. Enforced today (issue 17):
 *
 * - `agent-cycle`: no import cycle among the files of lib/agent/ (type-only imports count: a type that
 *   makes two modules need each other is a cycle all the same).
 * - `terminal-mux`: outside lib/terminal/ and platform/ nothing reaches the multiplexer: no `.mux`
 *   member access (a `Terminal`'s `mux`, or anything else named so) and no import of the `Multiplexer`
 *   type. Layers above lib/terminal go through `Terminal`'s methods. The composition root may still
 *   create a multiplexer (`selectMultiplexer()` in lib/app.ts) and hand it to `new Terminal`.
 *
 * Enforced since issue 19 (see docs/adr/0030-parent-integrations-per-vendor.md): the layer arrows
 * (`lib-setup`, `platform-lib`, `base-*`, `harnesses-lib`, …), `product-cycle`,
 * `folder-cycle` (no two folders import each other), `mod-boundary` (a folder with a mod.ts is entered
 * only through it, except {@link MOD_BOUNDARY_ALLOW}) and `vendor-literal` (no AI-client name in lib/
 * outside {@link VENDOR_LITERAL_ALLOW}: vendor logic lives in harnesses/<vendor>/).
 *
 * Since issue 31 the state layer is the top folder state/ (it was a folder of lib/, which harnesses/ imported
 * through an exception to `harnesses-lib`): state/ sits between platform/ and harnesses/ (`state-*`,
 * `platform-state`), and `harnesses-lib` has no exception.
 *
 * Usage: `deno run -A scripts/check_imports.ts [root]` (root defaults to the repository).
 */
import { dirname, join, normalize, relative, resolve } from "node:path";

/** One source file: its repository-relative path, its text with comments and strings blanked, its imports. */
export interface SourceFile {
  path: string;
  code: string;
  /** Repository-relative paths of the local modules it imports (static, type-only, re-export or dynamic). */
  imports: { target: string; names: string[]; line: number }[];
  /** The text with comments blanked but strings kept (for rules about literals). */
  literals: string;
}

/** A rule's finding. */
export interface Violation {
  rule: string;
  path: string;
  line: number;
  message: string;
}

/** One layer rule. */
export interface Rule {
  id: string;
  description: string;
  /** Enforced rules fail the check; others are printed only. */
  enforced: boolean;
  check(files: Map<string, SourceFile>): Violation[];
}

const PRODUCT_ROOTS = ["main.ts", "wait.ts", "base", "lib", "platform", "state", "harnesses", "setup"];
/** Read too, for the rules about them (bench ↛ tests), but not product code. */
const KIT_ROOTS = ["bench", "devkit", "tests"];

/** Whether a repository-relative path is product code (not a test, bench, kit or script). */
export function isProduct(path: string): boolean {
  return PRODUCT_ROOTS.some((r) => path === r || path.startsWith(`${r}/`)) && !path.endsWith("_test.ts");
}

/**
 * Blanks comments and the contents of string and template literals (keeping `${…}` code and every
 * newline), so a rule that looks for code never matches prose. Regular-expression literals are
 * recognised after an operator or keyword, the usual heuristic.
 */
export function stripNonCode(src: string): string {
  const out = src.split("");
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  let i = 0;
  /** Open template literals: the brace depth of each `${` we are inside. */
  const templates: number[] = [];
  let depth = 0;
  let lastSignificant = "";
  while (i < src.length) {
    const c = src[i]!;
    const next = src[i + 1];
    if (c === "/" && next === "/") {
      const end = src.indexOf("\n", i);
      const stop = end < 0 ? src.length : end;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (c === "/" && next === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end < 0 ? src.length : end + 2;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
      lastSignificant = c;
      continue;
    }
    if (c === "`" || (c === "}" && templates.length > 0 && templates[templates.length - 1] === depth)) {
      if (c === "}") templates.pop();
      let j = i + 1;
      while (j < src.length && src[j] !== "`" && !(src[j] === "$" && src[j + 1] === "{")) {
        j += src[j] === "\\" ? 2 : 1;
      }
      blank(i + 1, j);
      if (src[j] === "$") {
        templates.push(depth);
        i = j + 2;
      } else {
        i = j + 1;
      }
      lastSignificant = "`";
      continue;
    }
    if (c === "/" && /[(,=:[!&|?{};+\-*%<>~^]|^$|return|typeof|case/.test(lastSignificant)) {
      // A regular-expression literal: skip to its closing slash (outside a character class).
      let j = i + 1;
      let inClass = false;
      while (j < src.length && src[j] !== "\n") {
        if (src[j] === "\\") j++;
        else if (src[j] === "[") inClass = true;
        else if (src[j] === "]") inClass = false;
        else if (src[j] === "/" && !inClass) break;
        j++;
      }
      blank(i + 1, j);
      i = j + 1;
      lastSignificant = "/";
      continue;
    }
    if (c === "{") depth++;
    if (c === "}") depth--;
    if (!/\s/.test(c)) {
      if (/[A-Za-z_$]/.test(c)) {
        const m = /^[A-Za-z_$][\w$]*/.exec(src.slice(i, i + 40))!;
        lastSignificant = m[0];
        i += m[0].length;
        continue;
      }
      lastSignificant = c;
    }
    i++;
  }
  return out.join("");
}

const IMPORT_RE = /\b(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s*["']([^"']+)["']/g;
const DYNAMIC_RE = /\bimport\(\s*["']([^"']+)["']\s*\)/g;
const SIDE_EFFECT_RE = /\bimport\s*["']([^"']+)["']/g;

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** The names an import clause brings in (`{ a, type B as C }`, `* as ns`, a default). */
function clauseNames(clause: string): string[] {
  const names: string[] = [];
  const braces = /\{([\s\S]*)\}/.exec(clause);
  if (braces) {
    for (const part of braces[1]!.split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]!.trim();
      if (name) names.push(name);
    }
  }
  const head = clause.replace(/\{[\s\S]*\}/, "").replace(/,/g, " ").trim();
  for (const word of head.split(/\s+/)) if (/^[A-Za-z_$][\w$]*$/.test(word) && word !== "as") names.push(word);
  return names;
}

/** Parses one file's local imports (specifiers starting with `.`), resolved against its directory. */
export function parseImports(path: string, text: string): SourceFile["imports"] {
  const found: SourceFile["imports"] = [];
  const add = (spec: string, names: string[], index: number) => {
    if (!spec.startsWith(".")) return;
    found.push({ target: normalize(join(dirname(path), spec)), names, line: lineOf(text, index) });
  };
  for (const m of text.matchAll(IMPORT_RE)) add(m[3]!, clauseNames(m[2]!), m.index);
  for (const m of text.matchAll(DYNAMIC_RE)) add(m[1]!, [], m.index);
  for (const m of text.matchAll(SIDE_EFFECT_RE)) add(m[1]!, [], m.index);
  return found;
}

/** Builds a {@link SourceFile} from its path and text. */
export function sourceFile(path: string, text: string): SourceFile {
  // Imports are read from the code with comments blanked but strings kept (specifiers are strings).
  const noComments = text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, (_m, p: string) => p);
  return { path, code: stripNonCode(text), imports: parseImports(path, noComments), literals: noComments };
}

/** Import cycles among `scope`'s files: each cycle as its member paths, found with Tarjan's algorithm. */
export function findCycles(files: Map<string, SourceFile>, inScope: (path: string) => boolean): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const edges = (p: string) =>
    [...new Set(files.get(p)?.imports.map((i) => i.target) ?? [])].filter((t) => inScope(t) && files.has(t));
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edges(v).includes(v)) cycles.push(component.sort());
    }
  };
  for (const p of [...files.keys()].sort()) if (inScope(p) && !index.has(p)) visit(p);
  return cycles;
}

const under = (dir: string) => (p: string) => p.startsWith(`${dir}/`);

/** A rule that no file in `from` imports a module in `to` (or a file/folder of `allow`, which `to` contains). */
function noImport(id: string, from: string, to: string, allow: string[] = [], enforced = true): Rule {
  return {
    id,
    description: `${from}/ does not import ${to}/${allow.length ? ` (except ${allow.join(", ")})` : ""}`,
    enforced,
    check(files) {
      const out: Violation[] = [];
      for (const f of files.values()) {
        if (!under(from)(f.path)) continue;
        for (const imp of f.imports) {
          if (allow.some((a) => imp.target === a || under(a)(imp.target))) continue;
          if (under(to)(imp.target) || imp.target === `${to}.ts`) {
            out.push({ rule: id, path: f.path, line: imp.line, message: `imports ${imp.target}` });
          }
        }
      }
      return out;
    },
  };
}

/**
 * The node of `path` in the folder graph of `folder-cycle`: its folder, except that a folder's mod.ts is a
 * node of its own (the folder's door). A door may re-export a subfolder, and pick among its subfolders, while
 * that subfolder builds on its parent's other files (platform/mod.ts re-exports platform/tmux/, whose files
 * use platform/run.ts): no circle, since the parent's files themselves do not import the subfolder. A parent
 * file that imports the subfolder it is used by is still a circle, and so is a subfolder that imports its
 * parent's door.
 */
export function folderNode(path: string): string {
  return path.endsWith("/mod.ts") ? path : dirname(path);
}

/** The rules, in the order they are reported. */
export const RULES: Rule[] = [
  {
    id: "agent-cycle",
    description: "no import cycle among the files of lib/agent/ (type-only imports included)",
    enforced: true,
    check(files) {
      return findCycles(files, under("lib/agent")).map((members) => ({
        rule: "agent-cycle",
        path: members[0]!,
        line: 1,
        message: `import cycle: ${members.join(" ↔ ")}`,
      }));
    },
  },
  {
    id: "terminal-mux",
    description: "outside lib/terminal/ and platform/: no `.mux` member access and no import of `Multiplexer`",
    enforced: true,
    check(files) {
      const out: Violation[] = [];
      for (const f of files.values()) {
        if (!isProduct(f.path) || under("lib/terminal")(f.path) || under("platform")(f.path)) continue;
        for (const m of f.code.matchAll(/\.\s*mux\b(?![\w$])/g)) {
          out.push({
            rule: "terminal-mux",
            path: f.path,
            line: lineOf(f.code, m.index),
            message: "reaches the multiplexer through `.mux`: use Terminal's methods",
          });
        }
        for (const imp of f.imports) {
          if (imp.names.includes("Multiplexer")) {
            out.push({
              rule: "terminal-mux",
              path: f.path,
              line: imp.line,
              message: "imports the Multiplexer type: only lib/terminal/ drives the multiplexer",
            });
          }
        }
      }
      return out;
    },
  },
  noImport("lib-setup", "lib", "setup"),
  noImport("terminal-agent", "lib/terminal", "lib/agent"),
  noImport("agent-mcp", "lib/agent", "lib/mcp"),
  noImport("harnesses-lib", "harnesses", "lib"),
  noImport("platform-lib", "platform", "lib"),
  noImport("platform-state", "platform", "state"),
  noImport("state-lib", "state", "lib"),
  noImport("state-harnesses", "state", "harnesses"),
  noImport("state-setup", "state", "setup"),
  noImport("base-state", "base", "state"),
  noImport("base-up", "base", "lib"),
  noImport("base-platform", "base", "platform"),
  noImport("base-harnesses", "base", "harnesses"),
  noImport("platform-harnesses", "platform", "harnesses"),
  noImport("bench-tests", "bench", "tests"),
  noImport("devkit-tests", "devkit", "tests"),
  {
    id: "product-cycle",
    description: "no import cycle anywhere in the product code",
    enforced: true,
    check(files) {
      return findCycles(files, isProduct).map((members) => ({
        rule: "product-cycle",
        path: members[0]!,
        line: 1,
        message: `import cycle: ${members.join(" ↔ ")}`,
      }));
    },
  },
  {
    id: "folder-cycle",
    description:
      "no cycle between folders: with each folder one node (its mod.ts another), product imports form no circle",
    enforced: true,
    check(files) {
      const folders = new Map<string, SourceFile>();
      for (const f of files.values()) {
        if (!isProduct(f.path)) continue;
        const from = folderNode(f.path);
        const node = folders.get(from) ?? { path: from, code: "", literals: "", imports: [] };
        for (const imp of f.imports) {
          const to = folderNode(imp.target);
          if (isProduct(imp.target) && to !== from) node.imports.push({ target: to, names: [], line: imp.line });
        }
        folders.set(from, node);
      }
      return findCycles(folders, () => true).map((members) => ({
        rule: "folder-cycle",
        path: members[0]!,
        line: 1,
        message: `folders import each other: ${members.join(" ↔ ")}`,
      }));
    },
  },
  {
    id: "mod-boundary",
    description: "a folder with a mod.ts is entered through it: no import of another folder's inner file",
    enforced: true,
    check(files) {
      const out: Violation[] = [];
      const hasMod = (dir: string) => files.has(`${dir}/mod.ts`);
      for (const f of files.values()) {
        if (!isProduct(f.path) || MOD_BOUNDARY_ALLOW.has(f.path)) continue;
        const from = dirname(f.path);
        for (const imp of f.imports) {
          const dir = dirname(imp.target);
          if (!isProduct(imp.target) || imp.target === `${dir}/mod.ts`) continue;
          // Inside a folder (or below it) its own files are reachable; from outside only through mod.ts.
          if (from === dir || from.startsWith(`${dir}/`) || !hasMod(dir)) continue;
          out.push({
            rule: "mod-boundary",
            path: f.path,
            line: imp.line,
            message: `imports ${imp.target} past ${dir}/mod.ts`,
          });
        }
      }
      return out;
    },
  },
  {
    id: "vendor-literal",
    description: "no AI-client name in lib/ code or strings, except the files that spell public names",
    enforced: true,
    check(files) {
      const out: Violation[] = [];
      for (const f of files.values()) {
        if (!isProduct(f.path) || !under("lib")(f.path) || vendorAllowed(f.path)) continue;
        for (const m of f.literals.matchAll(VENDOR_WORD)) {
          out.push({
            rule: "vendor-literal",
            path: f.path,
            line: lineOf(f.literals, m.index),
            message: `names a vendor (${m[0]}): vendor rules live in harnesses/<vendor>/`,
          });
        }
      }
      return out;
    },
  },
];

/** Rules written for issue 19 and enforced once the restructuring that satisfies them lands. */
const NOT_YET = new Set<string>([]);
for (const rule of RULES) if (NOT_YET.has(rule.id)) rule.enforced = false;

/** Files that import past a mod.ts, each with the reason. */
const MOD_BOUNDARY_ALLOW = new Map<string, string>([
  [
    "lib/wait_cli.ts",
    "aiterm-wait imports the waiter alone: lib/agent/mod.ts also re-exports launch and dispatch, which would load " +
    "the MCP-side modules it must not carry (tests/static/wait_graph_test.ts)",
  ],
]);

/**
 * lib/ files (or folders, ending in `/`) that may name a vendor, each with the reason. Everything
 * else vendor-specific lives in harnesses/<vendor>/ (the child adapter and the parent integration).
 */
const VENDOR_LITERAL_ALLOW = new Map<string, string>([
  [
    "lib/mcp/tools/",
    "the public tool surface: tool names (the deprecated claude_agent/codex_agent/grok_agent/claude_approval " +
    "aliases), descriptions and schema rows (diagnostics' parent_delivery per client) that clients read and " +
    "docs/tools.md is generated from; handlers there never branch on a vendor",
  ],
]);

/** Whether `path` is in {@link VENDOR_LITERAL_ALLOW} (a file, or under a listed folder). */
function vendorAllowed(path: string): boolean {
  for (const entry of VENDOR_LITERAL_ALLOW.keys()) {
    if (entry.endsWith("/") ? path.startsWith(entry) : path === entry) return true;
  }
  return false;
}

/** A vendor's name as code or text: Claude, Codex, Grok; Cursor's harness and client names. */
const VENDOR_WORD = /[Cc]laude|[Cc]odex|[Gg]rok|cursor-(?:cli|agent)|\bCursor\b/g;

/** Reads the product code under `root` (repository-relative paths, `*_test.ts` excluded). */
export async function readProduct(root: string): Promise<Map<string, SourceFile>> {
  const files = new Map<string, SourceFile>();
  const walk = async (rel: string): Promise<void> => {
    const abs = join(root, rel);
    const st = await Deno.stat(abs).catch(() => null);
    if (!st) return;
    if (st.isFile) {
      if (rel.endsWith(".ts") && !rel.endsWith("_test.ts")) {
        files.set(rel, sourceFile(rel, await Deno.readTextFile(abs)));
      }
      return;
    }
    if (rel.split("/").some((part) => part === "testdata" || part === "node_modules")) return;
    for await (const entry of Deno.readDir(abs)) await walk(rel ? `${rel}/${entry.name}` : entry.name);
  };
  for (const r of [...PRODUCT_ROOTS, ...KIT_ROOTS]) await walk(r);
  return files;
}

/** Runs every rule; returns the enforced violations and the printed-only ones. */
export function runRules(files: Map<string, SourceFile>, rules = RULES): { failed: Violation[]; noted: Violation[] } {
  const failed: Violation[] = [];
  const noted: Violation[] = [];
  for (const rule of rules) (rule.enforced ? failed : noted).push(...rule.check(files));
  return { failed, noted };
}

if (import.meta.main) {
  const root = resolve(Deno.args[0] ?? join(dirname(new URL(import.meta.url).pathname), ".."));
  const files = await readProduct(root);
  const { failed, noted } = runRules(files);
  const show = (v: Violation) => `  ${relative(root, join(root, v.path))}:${v.line} [${v.rule}] ${v.message}`;
  const err = (line: string) => Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
  if (noted.length > 0) {
    err(`import check: ${noted.length} note(s) from rules not enforced yet:`);
    for (const v of noted) err(show(v));
  }
  if (failed.length > 0) {
    err(`import check FAILED: ${failed.length} violation(s):`);
    for (const v of failed) err(show(v));
    Deno.exit(1);
  }
  err(`import check: ${files.size} files, ${RULES.filter((r) => r.enforced).length} enforced rules pass`);
}
