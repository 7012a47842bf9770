/**
 * The documents stay short, in step and connected: README.md and README.ja.md fit in 200 lines and mirror
 * each other section for section (same `##`/`###` headings in the same order, the same links in each
 * section), and every relative link in the READMEs and docs/*.md names a file that exists and, with a
 * `#anchor`, a heading in it.
 */
import { assert, assertEquals } from "../helpers/assert.ts";

const root = new URL("../../", import.meta.url);
const README_LIMIT = 200;

async function read(path: string): Promise<string> {
  return await Deno.readTextFile(new URL(path, root));
}

/** The text without fenced code blocks and inline code spans (links and headings there are not ones). */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "``");
}

/** Markdown headings (outside code blocks): level and text. */
function headings(text: string): { level: number; text: string }[] {
  const out: { level: number; text: string }[] = [];
  for (const line of text.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, "").split("\n")) {
    const m = /^(#{1,6}) (.+?)\s*$/.exec(line);
    if (m) out.push({ level: m[1]!.length, text: m[2]! });
  }
  return out;
}

/** GitHub's anchor for a heading: lower case, inline markup and punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Every anchor a file offers (duplicates get -1, -2, … as on GitHub). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(text)) {
    const base = slug(h.text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The targets of the inline links `[text](target)` in a text, in order. */
function links(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target);
}

/** `##` sections of a README: each heading's level sequence and the links inside it (the part before the first `##` is left out: it links to the other language). */
function sections(text: string): { levels: number[]; links: string[] }[] {
  const parts = text.split(/^(?=## )/m).slice(1);
  return parts.map((part) => ({ levels: headings(part).map((h) => h.level), links: links(part) }));
}

async function markdownFiles(): Promise<string[]> {
  const files = ["README.md", "README.ja.md"];
  for await (const entry of Deno.readDir(new URL("docs/", root))) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  return files.sort();
}

Deno.test("README.md and README.ja.md are at most 200 lines", async () => {
  for (const file of ["README.md", "README.ja.md"]) {
    const lines = (await read(file)).split("\n").length - 1;
    assert(lines <= README_LIMIT, `${file} has ${lines} lines (limit ${README_LIMIT}): move detail to docs/`);
  }
});

Deno.test("README.ja.md mirrors README.md: the same sections in the same order, with the same links", async () => {
  const en = sections(await read("README.md"));
  const ja = sections(await read("README.ja.md"));
  assertEquals(ja.length, en.length, "number of ## sections");
  assert(en.length >= 5, `README.md has ${en.length} sections`);
  for (let i = 0; i < en.length; i++) {
    assertEquals(ja[i]!.levels, en[i]!.levels, `section ${i + 1}: heading levels`);
    assertEquals(ja[i]!.links, en[i]!.links, `section ${i + 1}: links`);
  }
});

Deno.test("every relative link in the READMEs and docs/*.md resolves to a file, and #anchors to a heading", async () => {
  const broken: string[] = [];
  const anchorCache = new Map<string, Set<string> | null>();
  async function anchorsOf(url: URL): Promise<Set<string> | null> {
    const key = url.pathname;
    if (!anchorCache.has(key)) {
      anchorCache.set(key, key.endsWith(".md") ? anchors(await Deno.readTextFile(url)) : null);
    }
    return anchorCache.get(key)!;
  }
  const files = await markdownFiles();
  assert(files.includes("docs/tools.md") && files.length >= 10, `documents found: ${files.join(", ")}`);
  for (const file of files) {
    const base = new URL(file, root);
    for (const target of links(await read(file))) {
      if (isExternal(target)) continue;
      const [path, anchor] = target.split("#", 2) as [string, string | undefined];
      const url = path ? new URL(path, base) : base;
      let stat: Deno.FileInfo;
      try {
        stat = await Deno.stat(url);
      } catch {
        broken.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (anchor === undefined || !stat.isFile) continue;
      const known = await anchorsOf(url);
      if (known && !known.has(decodeURIComponent(anchor))) broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  assertEquals(broken, []);
});

Deno.test("slug() spells anchors as GitHub does", () => {
  assertEquals(slug("How completion is decided (`pty_read wait:true`)"), "how-completion-is-decided-pty_read-waittrue");
  assertEquals(
    slug("Codex steer: the answer joins the running turn (macOS, Windows)"),
    "codex-steer-the-answer-joins-the-running-turn-macos-windows",
  );
  assertEquals(slug("`agent_approval` — answer once"), "agent_approval--answer-once");
});
