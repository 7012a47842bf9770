/**
 * Reducers for git: status (grouped, compact file lists), log (one line per commit) and diff --stat
 * (largest changes first plus the summary line).
 */

import { plural, type Reducer } from "./util.ts";

const MAX_NAMES_PER_GROUP = 30;
const MAX_NAMES_PER_DIR = 12;

/** git status (long format): branch/tracking lines, then one compact line per change group. */
export function reduceGitStatus(lines: readonly string[]): string[] | null {
  if (!lines.some((l) => /^(On branch |HEAD detached |Not currently on any branch|nothing to commit)/.test(l))) {
    return null;
  }
  const out: string[] = [];
  let section = "";
  const groups = new Map<string, string[]>();
  const order: string[] = [];
  const add = (key: string, name: string): void => {
    let g = groups.get(key);
    if (g === undefined) {
      g = [];
      groups.set(key, g);
      order.push(key);
    }
    g.push(name);
  };
  for (const line of lines) {
    if (/^\s+\(use "git /.test(line) || /^\s*\(commit or discard/.test(line) || line.trim() === "") continue;
    const header =
      /^(Changes to be committed|Changes not staged for commit|Untracked files|Unmerged paths|Ignored files):$/
        .exec(line);
    if (header !== null) {
      section = header[1] === "Changes to be committed"
        ? "staged"
        : header[1] === "Changes not staged for commit"
        ? "unstaged"
        : (header[1] ?? "").toLowerCase().replace(" files", "").replace(" paths", "");
      continue;
    }
    const entry = /^\t(?:([a-z ]+):\s+)?(.+)$/.exec(line);
    if (entry !== null && section !== "") {
      const kind = entry[1]?.trim();
      add(kind !== undefined ? `${section} ${kind}` : section, entry[2] ?? "");
      continue;
    }
    out.push(line);
  }
  for (const key of order) {
    const names = groups.get(key) ?? [];
    if (names.length <= MAX_NAMES_PER_GROUP) {
      out.push(`${key} (${names.length}): ${names.join(", ")}`);
      continue;
    }
    // Long groups: one line per directory, each capped.
    out.push(`${key} (${names.length}):`);
    const dirs = new Map<string, string[]>();
    for (const name of names) {
      const slash = name.replace(/\/$/, "").lastIndexOf("/");
      const dir = slash >= 0 ? name.slice(0, slash + 1) : "./";
      dirs.set(dir, [...(dirs.get(dir) ?? []), name]);
    }
    for (const [dir, files] of dirs) {
      const shown = files.slice(0, MAX_NAMES_PER_DIR).join(", ");
      const more = files.length > MAX_NAMES_PER_DIR ? `, … +${files.length - MAX_NAMES_PER_DIR} more` : "";
      out.push(`  ${dir} (${files.length}): ${shown}${more}`);
    }
  }
  return out;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `Sun Jan 21 10:00:00 2024 +0000` → `2024-01-21`; other formats are returned trimmed. */
function shortDate(date: string): string {
  const m = /^\w{3} (\w{3}) (\d{1,2}) [\d:]+ (\d{4})/.exec(date.trim());
  const month = m === null ? -1 : MONTHS.indexOf(m[1] ?? "");
  if (m === null || month < 0) return date.trim();
  return `${m[3]}-${String(month + 1).padStart(2, "0")}-${(m[2] ?? "").padStart(2, "0")}`;
}

/** git log (medium/full format): `<short hash> <date> <author>: <subject> (refs)` per commit. */
export function reduceGitLog(lines: readonly string[]): string[] | null {
  if (!lines.some((l) => /^commit [0-9a-f]{7,64}\b/.test(l))) return null;
  const out: string[] = [];
  let hash = "";
  let refs = "";
  let author = "";
  let date = "";
  let subject: string | null = null;
  let stat = "";
  let commits = 0;
  const flush = (): void => {
    if (hash === "") return;
    const who = author.replace(/\s*<[^>]*>$/, "");
    const parts = [hash, date, who !== "" ? `${who}:` : "", subject ?? "", refs, stat].filter((p) => p !== "");
    out.push(parts.join(" "));
    commits++;
  };
  for (const line of lines) {
    const c = /^commit ([0-9a-f]{7,64})(?: \((.*)\))?/.exec(line);
    if (c !== null) {
      flush();
      hash = (c[1] ?? "").slice(0, 7);
      refs = c[2] !== undefined ? `(${c[2]})` : "";
      author = "";
      date = "";
      subject = null;
      stat = "";
      continue;
    }
    if (hash === "") {
      out.push(line);
      continue;
    }
    const a = /^Author:\s+(.*)$/.exec(line);
    if (a !== null) author = a[1] ?? "";
    const d = /^(?:Author)?Date:\s+(.*)$/.exec(line);
    if (d !== null) date = shortDate(d[1] ?? "");
    if (subject === null && /^ {4}\S/.test(line)) subject = line.trim();
    const s = /^ \d+ files? changed/.exec(line);
    if (s !== null) stat = `[${line.trim()}]`;
  }
  flush();
  return [...out, `(${plural(commits, "commit")}; \`git show <hash>\` for details)`];
}

/** git diff --stat: largest changes first (up to 25), then the `N files changed` summary line. */
export function reduceGitDiffStat(lines: readonly string[]): string[] | null {
  const summaryAt = lines.findIndex((l) => /^ \d+ files? changed/.test(l));
  if (summaryAt < 0) return null;
  const entries: { line: string; weight: number }[] = [];
  const other: string[] = [];
  for (const line of lines) {
    const m = /^ (.+?)\s+\|\s+(\d+|Bin.*)\s*([+-]*)$/.exec(line);
    if (m !== null) {
      const n = Number(m[2]);
      entries.push({ line: ` ${(m[1] ?? "").trim()} | ${m[2]} ${m[3] ?? ""}`.trimEnd(), weight: isNaN(n) ? 0 : n });
    } else if (!/^ \d+ files? changed/.test(line)) other.push(line);
  }
  const sorted = [...entries].sort((x, y) => y.weight - x.weight);
  const shown = sorted.slice(0, 25).map((e) => e.line);
  const rest = sorted.slice(25);
  if (rest.length > 0) {
    const lines = rest.reduce((sum, e) => sum + e.weight, 0);
    shown.push(` … ${plural(rest.length, "more file")} (${lines} changed lines; the largest are listed above)`);
  }
  return [...other, ...shown, lines[summaryAt] ?? ""];
}

/** git reducers by name. */
export const GIT_REDUCERS: Record<string, Reducer> = {
  "git-status": reduceGitStatus,
  "git-log": reduceGitLog,
  "git-diff-stat": reduceGitDiffStat,
};
