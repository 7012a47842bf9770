/**
 * `deno task check`'s path check: every repository path that the CI workflows, the scripts, the deno.json
 * tasks and the documents name exists, so a moved file cannot leave a release step or a document pointing
 * at nothing (issue 31 item 8: release.yml still read the version from lib/ a reorganisation after the file
 * had moved to base/version.ts).
 *
 * What is read: `.github/workflows/*.yml`, `.ci/run`, `scripts/*` (not their `*_test.ts`, whose made-up
 * trees are not paths of this repository), the `tasks` of deno.json, `README.md`, `README.ja.md` and
 * `docs/**.md` except `docs/adr/` (a decision record names the files of its day) and the generated
 * `docs/tools.md`/`docs/errors.md`. CHANGELOG.md is a history and is not read.
 *
 * What counts as a path (the rule, deliberately narrow so prose never trips it): a maximal run of
 * `[A-Za-z0-9._/-]` characters that
 * 1. starts with one of {@link TOP_FOLDERS} and a slash (`base/errors.ts`, `tests/e2e/`), or with `./` or
 *    `../` and ends in one of {@link EXTENSIONS} (`./base/version.ts`, `../main.ts`);
 * 2. is not glued to something that makes it a template, a URL or a pattern: the character before it is not
 *    `$ / \ @ : ~ .` or a letter, digit, `_` or `-`, and the character after it is not `* < { $ \`.
 * A trailing `.` (end of a sentence) is dropped. A path is found when it exists relative to the repository
 * root or to the naming file's own folder. Placeholders (`harnesses/<vendor>/`), globs (`tests/e2e/*`),
 * template strings (`docs/${name}.md`) and absolute paths are not checked. A line that holds
 * `check_paths: ignore` is skipped (for a path in some other tree, e.g. a scratch repository a script builds).
 *
 * Usage: `deno run --allow-read scripts/check_paths.ts [root]`.
 */
import { dirname, join, normalize, relative, resolve } from "node:path";

/** The repository's top folders whose paths are checked (docs/development.md, Layout). */
export const TOP_FOLDERS = [
  ".ci",
  ".github",
  "base",
  "bench",
  "devkit",
  "docs",
  "harnesses",
  "lib",
  "platform",
  "scripts",
  "setup",
  "state",
  "tests",
] as const;

/** Extensions that make a `./` or `../` run a path. */
export const EXTENSIONS = [".ts", ".js", ".md", ".json", ".yml", ".yaml", ".sh", ".toml", ".txt"] as const;

/** One named path that does not exist. */
export interface Missing {
  /** The file that names it (repository-relative). */
  file: string;
  line: number;
  path: string;
}

/** A line holding this is not checked. */
export const IGNORE_MARK = "check_paths: ignore";

const RUN = /[A-Za-z0-9._/-]+/g;
const BEFORE_NOT = /[$/\\@:~.A-Za-z0-9_-]/;
const AFTER_NOT = /[*<{$\\]/;

/** The path-like runs of `text` by the rule in the module doc, with their line numbers. */
export function namedPaths(text: string): { path: string; line: number }[] {
  const out: { path: string; line: number }[] = [];
  for (const m of text.matchAll(RUN)) {
    const at = m.index;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    const lineEnd = text.indexOf("\n", at);
    if (text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd).includes(IGNORE_MARK)) continue;
    const before = at > 0 ? text[at - 1]! : "";
    const after = text[at + m[0].length] ?? "";
    if (before && BEFORE_NOT.test(before)) continue;
    if (after && AFTER_NOT.test(after)) continue;
    const path = m[0].replace(/\.+$/, "");
    const top = TOP_FOLDERS.some((f) => path.startsWith(`${f}/`));
    const dotted = (path.startsWith("./") || path.startsWith("../")) && EXTENSIONS.some((e) => path.endsWith(e));
    if (!top && !dotted) continue;
    out.push({ path, line: text.slice(0, at).split("\n").length });
  }
  return out;
}

/** The text of deno.json's tasks (one per line), which is all of deno.json that names paths to run. */
export function denoTasks(json: string): string {
  const tasks = (JSON.parse(json) as { tasks?: Record<string, string> }).tasks ?? {};
  return Object.values(tasks).join("\n");
}

/** Whether `file` (repository-relative) is one the check reads. */
export function isChecked(file: string): boolean {
  if (/^\.github\/workflows\/[^/]+\.ya?ml$/.test(file)) return true;
  if (file === ".ci/run" || file === "deno.json" || file === "README.md" || file === "README.ja.md") return true;
  if (/^scripts\/[^/]+$/.test(file)) return !file.endsWith("_test.ts");
  if (/^docs\/.+\.md$/.test(file)) {
    return !file.startsWith("docs/adr/") && file !== "docs/tools.md" && file !== "docs/errors.md";
  }
  return false;
}

/** The missing paths `file` names; `exists` answers for a repository-relative path. */
export function missingIn(file: string, text: string, exists: (path: string) => boolean): Missing[] {
  const body = file === "deno.json" ? denoTasks(text) : text;
  const out: Missing[] = [];
  for (const { path, line } of namedPaths(body)) {
    const candidates = [normalize(path), normalize(join(dirname(file), path))];
    if (candidates.some((c) => !c.startsWith("..") && exists(c.replace(/\/$/, "") || "."))) continue;
    out.push({ file, line: file === "deno.json" ? 0 : line, path });
  }
  return out;
}

/** Every file under `root` that the check reads (repository-relative, sorted). */
export async function checkedFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for await (const e of Deno.readDir(join(root, rel))) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory) {
        if (["docs", "scripts", ".github", ".ci"].includes(path) || /^(docs|\.github)\//.test(path)) await walk(path);
      } else if (isChecked(path)) {
        files.push(path);
      }
    }
  };
  await walk("");
  return files.sort();
}

/** Runs the check over the repository at `root`. */
export async function checkPaths(root: string): Promise<{ files: string[]; missing: Missing[] }> {
  const files = await checkedFiles(root);
  const exists = (p: string) => {
    try {
      Deno.statSync(join(root, p));
      return true;
    } catch {
      return false;
    }
  };
  const missing: Missing[] = [];
  for (const f of files) missing.push(...missingIn(f, await Deno.readTextFile(join(root, f)), exists));
  return { files, missing };
}

if (import.meta.main) {
  const root = resolve(Deno.args[0] ?? join(dirname(new URL(import.meta.url).pathname), ".."));
  const { files, missing } = await checkPaths(root);
  const err = (line: string) => Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
  if (missing.length > 0) {
    err(`path check FAILED: ${missing.length} named path(s) do not exist:`);
    for (const m of missing) err(`  ${relative(root, join(root, m.file))}:${m.line} names ${m.path}`);
    Deno.exit(1);
  }
  err(`path check: ${files.length} files, every named repository path exists`);
}
