/**
 * No function of the terminal or agent layers (lib/terminal/, lib/agent/) takes more than four positional
 * parameters (issue 31): a fifth travels in an options object, so a call names what it passes. Counted by a
 * small parser over the source (comments and strings blanked): function declarations, methods (`#private`,
 * `static`, `async`, getters/setters, constructors), function expressions, arrow functions and function types
 * (a callback's type says how it is called). A rest parameter counts as one; TypeScript's `this` parameter
 * does not count.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { readProduct, stripNonCode } from "../../scripts/check_imports.ts";

const root = new URL("../../", import.meta.url).pathname;

/** The most positional parameters a function of these layers may take. */
export const MAX_POSITIONAL = 4;

/** The folders held to {@link MAX_POSITIONAL}. */
const SCOPE = ["lib/terminal/", "lib/agent/"];

/**
 * `path: name` → why it may still take more. Each entry must still be over the limit (a fixed one is taken
 * off the list).
 */
const KNOWN: Record<string, string> = {};

const KEYWORDS = new Set(["if", "for", "while", "switch", "catch", "return", "typeof", "await", "new", "function"]);

/** One function found in a source text: its name (or `<arrow>`), line and positional parameter count. */
export interface FunctionShape {
  name: string;
  line: number;
  positional: number;
}

/** The index of the `)` that closes the `(` at `open`, or -1. */
function closing(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code[i];
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

/** How many positional parameters a parameter list (the text between its parentheses) declares. */
export function countParams(list: string): number {
  const parts: string[] = [];
  let depth = 0;
  let part = "";
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (c === "=" && list[i + 1] === ">") {
      part += "=>";
      i++;
      continue;
    }
    if ("([{<".includes(c)) depth++;
    if (")]}>".includes(c)) depth--;
    if (c === "," && depth === 0) {
      parts.push(part);
      part = "";
      continue;
    }
    part += c;
  }
  parts.push(part);
  return parts.map((p) => p.trim()).filter((p) => p !== "" && !/^this\s*:/.test(p)).length;
}

/** The functions of one source text with their positional parameter counts. */
export function functionShapes(text: string): FunctionShape[] {
  const code = stripNonCode(text);
  const found: FunctionShape[] = [];
  const lineAt = (index: number) => code.slice(0, index).split("\n").length;
  const add = (name: string, open: number) => {
    const close = closing(code, open);
    if (close < 0) return;
    found.push({ name, line: lineAt(open), positional: countParams(code.slice(open + 1, close)) });
  };
  // Declarations and expressions: `function name(`, `function* name<T>(`, `function (`.
  for (const m of code.matchAll(/\bfunction\b\s*\*?\s*([A-Za-z_$][\w$]*)?\s*(?:<[^()]*?>)?\s*\(/g)) {
    add(m[1] ?? "<function>", m.index + m[0].length - 1);
  }
  // Methods and constructors: a name at the start of a line, its list, then `{` or a return type and `{`.
  const method =
    /^[ \t]*(?:(?:public|private|protected|static|async|override|get|set)\s+)*\*?\s*(#?[A-Za-z_$][\w$]*)\s*(?:<[^()]*?>)?\s*\(/gm;
  for (const m of code.matchAll(method)) {
    const name = m[1]!;
    if (KEYWORDS.has(name)) continue;
    const open = m.index + m[0].length - 1;
    const close = closing(code, open);
    if (close < 0) continue;
    const after = code.slice(close + 1, close + 400);
    if (!/^\s*(?::[^;=]*?)?\{/.test(after)) continue;
    // A return type holds no `(`…`)` call or `;` before the body: `: Promise<X> {`, `: { a: number } {`.
    found.push({ name, line: lineAt(open), positional: countParams(code.slice(open + 1, close)) });
  }
  // Arrow functions: `(…) =>` or `(…): Type =>`.
  for (let i = code.indexOf("("); i >= 0; i = code.indexOf("(", i + 1)) {
    const close = closing(code, i);
    if (close < 0) continue;
    if (!/^\s*(?::[^;{}()=]*?)?=>/.test(code.slice(close + 1, close + 200))) continue;
    const before = /([A-Za-z_$][\w$]*)\s*(?::[^=;]*)?=\s*(?:async\s*)?(?:<[^()]*?>)?\s*$/.exec(
      code.slice(Math.max(0, i - 120), i),
    );
    found.push({ name: before?.[1] ?? "<arrow>", line: lineAt(i), positional: countParams(code.slice(i + 1, close)) });
  }
  return found;
}

Deno.test("functionShapes counts declarations, methods and arrows; types, defaults and `this` do not add", () => {
  const src = [
    "export function a(x: number, y = [1, 2], z?: Map<string, number>, w: (p: string, q: number) => void, v = {}) {}",
    "class K {",
    "  async #b(this: K, one: string, two: { a: number; b: string }, ...rest: number[]): Promise<void> {",
    "  }",
    "  constructor(readonly p: number, private q: string) {}",
    "  c(): { x: number } {",
    "    foo(1, 2, 3, 4, 5);",
    "    if (x) {",
    "    }",
    "  }",
    "}",
    "const d = async (a: string, b: string, c: string, e: string, f: string): Promise<void> => {};",
    "const s = '(a, b, c, d, e) => 1'; // function f(a, b, c, d, e) {}",
  ].join("\n");
  const shapes = functionShapes(src).map((f) => `${f.name}/${f.positional}`).sort();
  // `w`'s type is a function type of two.
  assertEquals(shapes, ["#b/3", "<arrow>/2", "a/5", "c/0", "constructor/2", "d/5"].sort());
});

Deno.test("no function of lib/terminal/ or lib/agent/ takes more than four positional parameters", async () => {
  const files = await readProduct(root);
  const over: string[] = [];
  const stillOver = new Set<string>();
  let scanned = 0;
  for (const path of [...files.keys()].sort()) {
    if (!SCOPE.some((s) => path.startsWith(s))) continue;
    scanned++;
    for (const f of functionShapes(await Deno.readTextFile(`${root}${path}`))) {
      if (f.positional <= MAX_POSITIONAL) continue;
      const key = `${path}: ${f.name}`;
      if (KNOWN[key]) stillOver.add(key);
      else over.push(`${path}:${f.line} ${f.name} (${f.positional})`);
    }
  }
  assert(scanned > 50, `only ${scanned} files scanned`);
  assertEquals(over, [], `take more than ${MAX_POSITIONAL} positional parameters: use an options object`);
  assertEquals(Object.keys(KNOWN).filter((k) => !stillOver.has(k)), [], "a known exception no longer needed");
});
