/** The path check's rule on made-up texts, and on this repository (which must pass). */
import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { checkPaths, denoTasks, isChecked, missingIn, namedPaths } from "./check_paths.ts";

const names = (text: string) => namedPaths(text).map((p) => p.path);

Deno.test("namedPaths: known top folders and ./ or ../ with an extension; prose, templates and URLs are not paths", () => {
  assertEquals(
    names(
      "read `base/version.ts`, run tests/e2e/ and ./lib/version.ts; see ../main.ts. Also (docs/setup.md#hooks),\n" +
        '"scripts/compile.ts" and .github/workflows/release.yml:12',
    ),
    [
      "base/version.ts",
      "tests/e2e/",
      "./lib/version.ts",
      "../main.ts",
      "docs/setup.md",
      "scripts/compile.ts",
      ".github/workflows/release.yml",
    ],
  );
  assertEquals(
    names(
      [
        "harnesses/<vendor>/client/parent.ts", // a placeholder
        "tests/e2e/*_test.ts", // a glob
        "docs/${name}.md", // a template
        "$ROOT/lib/x.ts ~/lib/x.ts /abs/lib/x.ts", // variables, home, absolute
        "https://example.com/lib/x.ts npm:/lib/x.ts", // URLs and specifiers
        "mylib/x.ts sub.lib/x.ts", // a longer word that ends in a folder name
        "./README ../notes", // ./ without an extension
        "lib\\/agent\\/", // an escaped regular expression
        "library/x.ts and libs are words",
      ].join("\n"),
    ),
    [],
  );
});

Deno.test("namedPaths: line numbers, a trailing full stop dropped, an ignore mark skips its line", () => {
  assertEquals(namedPaths("a\nsee lib/mcp/server.ts.\nb"), [{ path: "lib/mcp/server.ts", line: 2 }]);
  assertEquals(namedPaths("git add docs/new_1.md # check_paths: ignore (a scratch repository)\nlib/x.ts"), [
    { path: "lib/x.ts", line: 2 },
  ]);
});

Deno.test("missingIn: a path is found from the repository root or from the naming file's folder", () => {
  const tree = new Set(["base/version.ts", "docs/setup.md", "docs/adr/0001-x.md", "lib", "lib/mcp", "tests/e2e"]);
  const exists = (p: string) => tree.has(p);
  assertEquals(
    missingIn(".github/workflows/release.yml", "v=$(deno eval 'import { VERSION } from \"./lib/version.ts\"')", exists),
    [{ file: ".github/workflows/release.yml", line: 1, path: "./lib/version.ts" }],
  );
  assertEquals(missingIn("docs/agents.md", "`base/version.ts`, ../docs/setup.md, tests/e2e/, lib/mcp/", exists), []);
  assertEquals(missingIn("docs/adr/0002-y.md", "../setup.md and ./0001-x.md", exists), []);
  // No escape from the repository: ../../ out of the root is missing, whatever is there.
  assertEquals(missingIn("docs/a.md", "../../base/version.ts", exists).map((m) => m.path), ["../../base/version.ts"]);
  assertEquals(missingIn("README.md", "lib/gone.ts", exists).map((m) => m.path), ["lib/gone.ts"]);
});

Deno.test("deno.json: only its tasks are read", () => {
  const json = JSON.stringify({
    imports: { "x": "npm:/lib/not-a-path.ts" },
    tasks: { a: "deno run -A scripts/gone.ts", b: "deno run -A main.ts" },
  });
  assertEquals(denoTasks(json), "deno run -A scripts/gone.ts\ndeno run -A main.ts");
  assertEquals(missingIn("deno.json", json, () => false).map((m) => m.path), ["scripts/gone.ts"]);
});

Deno.test("isChecked: workflows, scripts, tasks and documents; not tests of scripts, ADRs or generated docs", () => {
  for (const f of [".github/workflows/release.yml", ".ci/run", "scripts/compile.ts", "scripts/x.sh", "deno.json"]) {
    assert(isChecked(f), f);
  }
  for (const f of ["README.md", "README.ja.md", "docs/setup.md", "docs/harnesses/claude.md"]) assert(isChecked(f), f);
  for (
    const f of [
      "scripts/check_paths_test.ts",
      "docs/adr/0001-private-tmux-server.md",
      "docs/tools.md",
      "docs/errors.md",
      "CHANGELOG.md",
      "lib/mcp/server.ts",
      ".github/dependabot.yml",
    ]
  ) {
    assert(!isChecked(f), f);
  }
});

Deno.test("this repository: every named path exists (and the files read include the release workflow)", async () => {
  const root = new URL("..", import.meta.url).pathname;
  const { files, missing } = await checkPaths(root);
  assertEquals(missing, []);
  for (const f of [".github/workflows/release.yml", ".github/workflows/ci.yml", "deno.json", "docs/setup.md"]) {
    assert(files.includes(f), f);
  }
});
