/** The import check's rules on small made-up trees, and on this repository (which must pass). */
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { readProduct, RULES, runRules, sourceFile, stripNonCode } from "./check_imports.ts";

const tree = (files: Record<string, string>) =>
  new Map(Object.entries(files).map(([p, text]) => [p, sourceFile(p, text)]));
const enforced = (files: Record<string, string>) => runRules(tree(files)).failed.map((v) => `${v.rule} ${v.path}`);

Deno.test("agent-cycle and product-cycle: a cycle fails, type-only imports included", () => {
  assertEquals(
    enforced({
      "lib/agent/a.ts": 'import { b } from "./b.ts";\nexport const a = 1;',
      "lib/agent/b.ts": 'import type { A } from "./c.ts";\nexport const b = 1;',
      "lib/agent/c.ts": 'export type { X } from "./a.ts";',
    }),
    ["agent-cycle lib/agent/a.ts", "product-cycle lib/agent/a.ts"],
  );
  assertEquals(enforced({ "lib/agent/a.ts": 'import "./b.ts";', "lib/agent/b.ts": "export {};" }), []);
  assertEquals(
    enforced({ "lib/x/a.ts": 'import "./b.ts";', "lib/x/b.ts": 'import "./a.ts";' }),
    ["product-cycle lib/x/a.ts"],
  );
  // Tests and benches are not product code: their cycles are not the product's.
  assertEquals(enforced({ "bench/a.ts": 'import "./b.ts";', "bench/b.ts": 'import "./a.ts";' }), []);
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

/** Enforces every rule, also those still listed as not yet enforced in the repository. */
const strict = (files: Record<string, string>) =>
  runRules(tree(files), RULES.map((r) => ({ ...r, enforced: true }))).failed.map((v) => `${v.rule} ${v.path}`);

Deno.test("folder-cycle: two folders importing each other fail, even without a file-level cycle", () => {
  assertEquals(
    strict({
      "lib/a/x.ts": 'import "../b/y.ts";',
      "lib/b/y.ts": "export {};",
      "lib/b/z.ts": 'import "../a/w.ts";',
      "lib/a/w.ts": "export {};",
    }),
    ["folder-cycle lib/a"],
  );
  assertEquals(strict({ "lib/a/x.ts": 'import "../b/y.ts";', "lib/b/y.ts": "export {};" }), []);
});

Deno.test("folder-cycle: a folder's mod.ts is its own node, so it may re-export a subfolder that builds on the parent", () => {
  // platform/mod.ts re-exports platform/tmux/, whose files use platform/run.ts: no circle.
  assertEquals(
    strict({
      "platform/mod.ts": 'export * from "./tmux/mod.ts";\nexport * from "./run.ts";',
      "platform/run.ts": "export {};",
      "platform/tmux/mod.ts": 'export * from "./tmux.ts";',
      "platform/tmux/tmux.ts": 'import "../run.ts";',
    }),
    [],
  );
  // A parent's own file that imports the subfolder which uses the parent: a circle.
  assertEquals(
    strict({
      "platform/psmux.ts": 'import "./tmux/mod.ts";',
      "platform/run.ts": "export {};",
      "platform/tmux/mod.ts": 'export * from "./tmux.ts";',
      "platform/tmux/tmux.ts": 'import "../run.ts";',
    }),
    ["folder-cycle platform"],
  );
  // A subfolder that imports its parent's door, which re-exports the subfolder: a circle.
  assertEquals(
    strict({
      "platform/mod.ts": 'export * from "./tmux/mod.ts";',
      "platform/tmux/mod.ts": 'export * from "./tmux.ts";',
      "platform/tmux/tmux.ts": "export {};",
      "platform/tmux/args.ts": 'import "../mod.ts";',
    }).sort(),
    ["folder-cycle platform/mod.ts"],
  );
});

Deno.test("mod-boundary: platform/tmux/ is entered through its mod.ts, from platform/ itself too", () => {
  assertEquals(
    strict({
      "platform/tmux/mod.ts": 'export * from "./tmux.ts";',
      "platform/tmux/tmux.ts": 'import "./tmux_control.ts";',
      "platform/tmux/tmux_control.ts": "export {};",
      "platform/psmux.ts": 'import "./tmux/tmux.ts";',
      "platform/mod.ts": 'export * from "./tmux/mod.ts";',
      "lib/terminal/x.ts": 'import "../../platform/tmux/tmux_control.ts";',
    }).sort(),
    ["mod-boundary lib/terminal/x.ts", "mod-boundary platform/psmux.ts"],
  );
});

Deno.test("mod-boundary: another folder's inner file fails; its mod.ts, own and parent files pass", () => {
  assertEquals(
    strict({
      "state/mod.ts": 'export * from "./atomic.ts";',
      "state/atomic.ts": "export {};",
      "state/inner/deep.ts": 'import "../atomic.ts";',
      "lib/agent/a.ts": 'import "../../state/atomic.ts";\nimport "../../state/mod.ts";',
      "lib/agent/b.ts": 'import "../terminal/x.ts";',
      "lib/terminal/x.ts": "export {};",
    }),
    ["mod-boundary lib/agent/a.ts"],
  );
});

Deno.test("layer directions: lib ↛ setup, platform ↛ lib or state, base ↛ anything, bench ↛ tests; harnesses ↛ lib (state/ is below them)", () => {
  assertEquals(
    strict({
      "lib/a.ts": 'import "../setup/run.ts";\nimport "../state/atomic.ts";',
      "setup/run.ts": "export {};",
      "platform/p.ts": 'import "../lib/b.ts";\nimport "../state/atomic.ts";',
      "lib/b.ts": "export {};",
      "base/c.ts": 'import "../platform/q.ts";\nimport "../state/atomic.ts";',
      "platform/q.ts": "export {};",
      "bench/d.ts": 'import "../tests/helpers/mcp.ts";',
      "tests/helpers/mcp.ts": "export {};",
      "harnesses/claude/e.ts": 'import "../../state/atomic.ts";\nimport "../../lib/b.ts";',
      "state/atomic.ts": "export {};",
    }).sort(),
    [
      "base-platform base/c.ts",
      "base-state base/c.ts",
      "bench-tests bench/d.ts",
      "harnesses-lib harnesses/claude/e.ts",
      "lib-setup lib/a.ts",
      "platform-lib platform/p.ts",
      "platform-state platform/p.ts",
    ],
  );
});

Deno.test("state/ imports platform/ and base/ only: lib, harnesses and setup are above it", () => {
  assertEquals(
    strict({
      "state/up.ts": 'import "../lib/b.ts";\nimport "../harnesses/grok/g.ts";\nimport "../setup/run.ts";',
      "state/down.ts": 'import "../platform/q.ts";\nimport "../base/x.ts";',
      "lib/b.ts": "export {};",
      "harnesses/grok/g.ts": "export {};",
      "setup/run.ts": "export {};",
      "platform/q.ts": "export {};",
      "base/x.ts": "export {};",
    }).sort(),
    ["state-harnesses state/up.ts", "state-lib state/up.ts", "state-setup state/up.ts"],
  );
});

Deno.test("harnesses-lib has no exception: the old lib/state/ path is an upward import like any other", () => {
  assertEquals(
    strict({
      "harnesses/common/client/r.ts": 'import "../../../lib/state/mod.ts";',
      "lib/state/mod.ts": "export {};",
    }),
    ["harnesses-lib harnesses/common/client/r.ts"],
  );
});

Deno.test("vendor-literal: a vendor's name in lib/ code or strings fails; comments, read cursors, harnesses/ and the allowed tool surface pass", () => {
  assertEquals(
    strict({
      "lib/agent/a.ts": 'if (kind === "claude-code") x();',
      "lib/agent/b.ts": "const codexHome = 1;",
      "lib/agent/c.ts": "// Claude Code writes its transcript here\nconst cursor = readCursor();",
      "lib/terminal/d.ts": "class Cursor {}",
      "harnesses/grok/e.ts": 'const name = "grok";',
      "lib/mcp/tools/f.ts": 'const description = "harness claude-code or codex-cli";',
    }).sort(),
    ["vendor-literal lib/agent/a.ts", "vendor-literal lib/agent/b.ts", "vendor-literal lib/terminal/d.ts"],
  );
});

Deno.test("this repository passes the enforced rules", async () => {
  const root = new URL("..", import.meta.url).pathname;
  const files = await readProduct(root);
  assert(files.size > 50, `only ${files.size} product files found`);
  assertEquals(runRules(files, RULES).failed, []);
});
