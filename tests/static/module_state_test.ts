/**
 * No module-level mutable state in product code (issue 19): the state of a process lives in objects the
 * composition root builds (lib/app.ts buildDeps, main.ts, wait.ts) and passes down. Flagged at the top
 * level of a module (outside every function and class body):
 *
 * - a `let` or `var` binding;
 * - a `const` bound to a Map, Set, WeakMap, WeakSet, array or object literal that the module changes
 *   anywhere (`.set(`, `.add(`, `.push(`, `.splice(`, `name[…] =`, `name.x =`, …).
 *
 * A few bindings are allowed, each with its reason in {@link ALLOWED}.
 */
import { assertEquals } from "../helpers/assert.ts";
import { readProduct, stripNonCode } from "../../scripts/check_imports.ts";

const root = new URL("../../", import.meta.url).pathname;

/** `path: name` → why that binding may stay module state. */
const ALLOWED: Record<string, string> = {
  "base/log.ts: threshold": "stderr is process-wide; each program root sets the level once",
  "state/owner.ts: self": "facts about this process (pid, start identity), read once on first use",
  "platform/process.ts: clockTicks": "an OS constant (CLK_TCK), read once on first use",
  "platform/paths.ts: uid": "this process's user id (a Deno process cannot change it), read once on first use",
  "platform/tmux/tmux_control.ts: deathSignal": "whether this OS's setpriv supports --pdeathsig, probed once",
};

const MUTATORS = "set|add|delete|clear|push|pop|shift|unshift|splice|sort|reverse|fill|copyWithin";
/** An assignment or update after a member: `=` (not `==`), `+=`, `??=`, …, `++`, `--`. */
const ASSIGN = "(?:(?:[-+*/%&|^]|\\*\\*|<<|>>>?|\\?\\?|&&|\\|\\|)?=(?!=)|\\+\\+|--)";

/** The module-level mutable bindings of one source text, as `name` (line). */
export function moduleState(text: string): { name: string; line: number }[] {
  const code = stripNonCode(text);
  const found: { name: string; line: number }[] = [];
  const containers: { name: string; line: number }[] = [];
  let depth = 0;
  let line = 1;
  let lineStart = true;
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (c === "\n") {
      line++;
      lineStart = true;
      continue;
    }
    if (lineStart && depth === 0 && c !== " " && c !== "\t") {
      const rest = code.slice(i, code.indexOf("\n", i) < 0 ? code.length : code.indexOf("\n", i));
      const binding = /^(?:export\s+)?(let|var)\s+([A-Za-z_$][\w$]*)/.exec(rest);
      if (binding) found.push({ name: binding[2]!, line });
      const container =
        /^(?:export\s+)?const\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:new\s+(?:Map|Set|WeakMap|WeakSet|Array)\b|\[|\{)/
          .exec(rest);
      if (container) containers.push({ name: container[1]!, line });
    }
    if (c !== " " && c !== "\t") lineStart = false;
    if (c === "{" || c === "(" || c === "[") depth++;
    if (c === "}" || c === ")" || c === "]") depth--;
  }
  for (const c of containers) {
    const name = c.name.replace(/\$/g, "\\$");
    const changed = new RegExp(
      `(?<![\\w$.])${name}\\s*(?:\\.\\s*(?:${MUTATORS})\\s*\\(|(?:\\[[^\\]]*\\]|\\.\\s*[A-Za-z_$][\\w$]*)\\s*${ASSIGN})`,
    );
    if (changed.test(code)) found.push(c);
  }
  return found;
}

Deno.test("moduleState() finds a planted let, var and a changed module-level Map, and nothing in functions", () => {
  const planted = [
    "let count = 0;",
    "export var legacy = 1;",
    "const cache = new Map<string, number>();",
    "const FIXED = new Set(['a']);",
    "const list: string[] = [];",
    "function f(): void {",
    "  let local = 1;",
    "  cache.set('x', local);",
    "  list.push('y');",
    "}",
    "const shape = { a: 1 };",
    "// let commented = 1;",
    "const s = `",
    "let inTemplate = 1;`;",
  ].join("\n");
  assertEquals(moduleState(planted).map((f) => `${f.name}:${f.line}`).sort(), [
    "cache:3",
    "count:1",
    "legacy:2",
    "list:5",
  ]);
  assertEquals(moduleState("const o = {};\no.k = 1;\n").map((f) => f.name), ["o"]);
  assertEquals(moduleState("const o = {};\nif (o.k == 1) {}\n").map((f) => f.name), []);
  assertEquals(moduleState("const o = { n: 0 };\nfunction f() { o.n++; }\n").map((f) => f.name), ["o"]);
  assertEquals(moduleState("const a: number[] = [];\nfunction f() { a[0] += 1; }\n").map((f) => f.name), ["a"]);
});

Deno.test("product code keeps no module-level mutable state (outside the allow-list)", async () => {
  const files = await readProduct(root);
  const offenders: string[] = [];
  const used = new Set<string>();
  for (const path of [...files.keys()].sort()) {
    if (!/^(main\.ts|wait\.ts|base\/|lib\/|platform\/|state\/|harnesses\/|setup\/)/.test(path)) continue;
    const text = await Deno.readTextFile(`${root}${path}`);
    for (const f of moduleState(text)) {
      const key = `${path}: ${f.name}`;
      if (ALLOWED[key]) used.add(key);
      else offenders.push(`${path}:${f.line} ${f.name}`);
    }
  }
  assertEquals(offenders, []);
  assertEquals(Object.keys(ALLOWED).filter((k) => !used.has(k)), [], "every allowed binding still exists");
});
