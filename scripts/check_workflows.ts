/**
 * `deno task check`'s workflow check: every `.github/workflows/*.yml` is validated by action-validator
 * (npm `@action-validator/core`, a devDependency: the SchemaStore workflow schema plus its own checks such as
 * `needs` naming a job that exists, compiled to WebAssembly and shipped inside the package). It runs with
 * read permission only: no network, once `deno install` has put it in node_modules.
 *
 * Usage: `deno run --allow-read scripts/check_workflows.ts [root]`.
 */
import { validateWorkflow, type ValidationError } from "@action-validator/core";
import { dirname, join, resolve } from "node:path";

/** One line per problem action-validator finds in a workflow's text (nested one-of branches flattened). */
export function workflowErrors(text: string): string[] {
  const out: string[] = [];
  const walk = (errors: ValidationError[], depth: number) => {
    for (const e of errors) {
      const where = "path" in e && e.path
        ? `${e.path}: `
        : "location" in e && e.location
        ? `line ${e.location.line}: `
        : "";
      out.push(`${"  ".repeat(depth)}${where}${e.title}${e.detail ? ` (${e.detail})` : ""} [${e.code}]`);
      if ("states" in e && e.states) { for (const s of e.states) walk(s.errors, depth + 1); }
    }
  };
  walk(validateWorkflow(text).errors, 0);
  return out;
}

/** The workflow files under `root` (repository-relative, sorted). */
export async function workflowFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  for await (const e of Deno.readDir(join(root, ".github/workflows"))) {
    if (e.isFile && /\.ya?ml$/.test(e.name)) files.push(`.github/workflows/${e.name}`);
  }
  return files.sort();
}

if (import.meta.main) {
  const root = resolve(Deno.args[0] ?? join(dirname(new URL(import.meta.url).pathname), ".."));
  const err = (line: string) => Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
  const files = await workflowFiles(root);
  let failed = 0;
  for (const f of files) {
    const errors = workflowErrors(await Deno.readTextFile(join(root, f)));
    if (errors.length === 0) continue;
    failed++;
    err(`workflow check FAILED: ${f}:`);
    for (const line of errors) err(`  ${line}`);
  }
  if (failed > 0) Deno.exit(1);
  err(`workflow check: ${files.length} workflow(s) valid (action-validator)`);
}
