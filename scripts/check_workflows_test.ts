/** The workflow check: action-validator's verdicts on broken workflows, and this repository's (which must pass). */
import { assert, assertEquals, assertMatch } from "../tests/helpers/assert.ts";
import { workflowErrors, workflowFiles } from "./check_workflows.ts";

const JOB = "    runs-on: ubuntu-latest\n    steps:\n      - run: echo ok\n";

Deno.test("workflowErrors: a sound workflow passes; a broken one names each problem", () => {
  assertEquals(workflowErrors(`name: x\non: push\njobs:\n  a:\n${JOB}  b:\n    needs: a\n${JOB}`), []);
  const joined = (text: string) => workflowErrors(text).join("\n");
  // A job that needs a job that does not exist.
  assertMatch(joined(`on: push\njobs:\n  a:\n    needs: build\n${JOB}`), /unresolved job build/);
  // A step that both uses an action and runs a script; a job without runs-on.
  assertMatch(
    joined("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: a/b@v1\n        run: echo\n"),
    /steps\/0/,
  );
  assertMatch(joined("on: push\njobs:\n  a:\n    steps:\n      - run: echo\n"), /runs-on/);
  // Not YAML at all.
  assertMatch(joined("jobs: [\n"), /line 2: Parse Error/);
  // No jobs.
  assert(workflowErrors("on: push\n").length > 0);
});

Deno.test("this repository's workflows are valid", async () => {
  const root = new URL("..", import.meta.url).pathname;
  const files = await workflowFiles(root);
  assertEquals(files, [".github/workflows/ci.yml", ".github/workflows/release.yml"]);
  for (const f of files) assertEquals(workflowErrors(await Deno.readTextFile(`${root}${f}`)), [], f);
});
