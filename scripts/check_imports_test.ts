/** The import check's rules on small made-up trees, and on this repository (which must pass). */
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { readProduct, RULES, runRules, sourceFile, stripNonCode } from "./check_imports.ts";

const tree = (files: Record<string, string>) =>
  new Map(Object.entries(files).map(([p, text]) => [p, sourceFile(p, text)]));
const enforced = (files: Record<string, string>) => runRules(tree(files)).failed.map((v) => `${v.rule} ${v.path}`);

Deno.test("agent-cycle: a cycle in lib/agent fails, type-only imports included; outside it is only noted", () => {
  assertEquals(
    enforced({
      "lib/agent/a.ts": 'import { b } from "./b.ts";\nexport const a = 1;',
      "lib/agent/b.ts": 'import type { A } from "./c.ts";\nexport const b = 1;',
      "lib/agent/c.ts": 'export type { X } from "./a.ts";',
    }),
    ["agent-cycle lib/agent/a.ts"],
  );
  assertEquals(enforced({ "lib/agent/a.ts": 'import "./b.ts";', "lib/agent/b.ts": "export {};" }), []);
  const r = runRules(tree({ "lib/x/a.ts": 'import "./b.ts";', "lib/x/b.ts": 'import "./a.ts";' }));
  assertEquals([r.failed.length, r.noted.map((v) => v.rule)], [0, ["product-cycle"]]);
});

Deno.test("terminal-mux: `.mux` and the Multiplexer type outside lib/terminal fail; prose and strings do not", () => {
  assertEquals(
    enforced({
      "lib/agent/a.ts": "await deps.terminal.mux.capture(id);",
      "lib/mcp/b.ts": 'import type { Multiplexer } from "../../platform/mod.ts";',
      "lib/agent/c.ts": '// the terminal.mux of old\nconst s = "x.mux"; const t = `${a}.mux`; const r = /\\.mux/;',
      "lib/terminal/d.ts": "this.#mux.capture(id); deps.mux;",
      "platform/e.ts": "x.mux;",
    }),
    ["terminal-mux lib/agent/a.ts", "terminal-mux lib/mcp/b.ts"],
  );
  // Code inside a template's ${…} is code.
  assertEquals(enforced({ "lib/agent/f.ts": "const s = `${deps.terminal.mux.kind}`;" }), [
    "terminal-mux lib/agent/f.ts",
  ]);
});

Deno.test("stripNonCode keeps code and newlines, blanks comments and string contents", () => {
  const out = stripNonCode('a.b("x.mux") // y.mux\n/* z.mux */ c.d');
  assertEquals(out.split("\n").length, 2);
  assert(!out.includes("mux"), out);
  assert(out.includes("a.b(") && out.includes("c.d"), out);
});

Deno.test("this repository passes the enforced rules", async () => {
  const root = new URL("..", import.meta.url).pathname;
  const files = await readProduct(root);
  assert(files.size > 50, `only ${files.size} product files found`);
  assertEquals(runRules(files, RULES).failed, []);
});
