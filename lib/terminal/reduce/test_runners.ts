/**
 * Reducers for pytest, cargo test and go test: every failure's name, its assertion message and
 * location, and the summary counts survive; passing-test lines and progress do not.
 */

import { cargoDiagnostics } from "./builds.ts";
import { findIndex, plural, type Reducer } from "./util.ts";

const PYTEST_FINAL_RE =
  /^=+ .*\b(passed|failed|errors?|skipped|deselected|xfailed|xpassed|no tests ran)\b.* in [\d.]+s.* =+$/;
const PYTEST_SECTION_RE = /^=+ ([A-Za-z ]+?) =+$/;

/** Shorten pytest's `===== text =====` banners to `== text ==`. */
function shortBanner(line: string): string {
  return line.replace(/^=+ /, "== ").replace(/ =+$/, " ==");
}

/** pytest: failure/error blocks reduced to `E` lines + location, the short summary, the final count line. */
export function reducePytest(lines: readonly string[]): string[] | null {
  const finalAt = findIndex(lines, PYTEST_FINAL_RE);
  const hasSession = lines.some((l) => /^=+ test session starts =+$/.test(l));
  if (finalAt < 0 && !hasSession) return null;
  const out: string[] = [];
  let section = "";
  const hasShortSummary = lines.some((l) => /^=+ short test summary info =+$/.test(l));
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const banner = PYTEST_SECTION_RE.exec(line);
    if (banner !== null || PYTEST_FINAL_RE.test(line)) {
      section = banner?.[1] ?? "";
      if (section !== "test session starts") out.push("", shortBanner(line));
      continue;
    }
    if (section === "test session starts") {
      if (/^(collected|collecting) .*(error|items?)/.test(line) && /error/.test(line)) out.push(line);
      // Verbose mode: only non-passing results, and only when no short summary repeats them.
      if (!hasShortSummary && /::\S+ (FAILED|ERROR)\b/.test(line)) out.push(line.replace(/\s+\[\s*\d+%\]$/, ""));
      continue;
    }
    if (section === "FAILURES" || section === "ERRORS") {
      const head = /^_{3,} (.+?) _{3,}$/.exec(line);
      if (head !== null) {
        out.push(`__ ${head[1]}`);
        let end = i + 1;
        while (end < lines.length && !/^_{3,} .+ _{3,}$/.test(lines[end] ?? "") && !/^=+ /.test(lines[end] ?? "")) {
          end++;
        }
        const block = lines.slice(i + 1, end);
        const errors = block.filter((l) => /^E\s/.test(l)).slice(0, 5);
        const location = block.filter((l) => /^\S+:\d+: \S/.test(l)).pop();
        out.push(...errors);
        if (location !== undefined) out.push(location);
        i = end - 1;
      }
      continue;
    }
    if (section === "warnings summary") {
      if (/^\S.*:\d+(: \w+)?/.test(line) && out.filter((l) => l.startsWith("  ")).length < 3) out.push(`  ${line}`);
      continue;
    }
    if (section === "short test summary info" || section === "") {
      if (line.trim() !== "") out.push(line);
    }
  }
  return out;
}

/** cargo test: compile diagnostics, each panicking test's message and location, all `test result:` lines. */
export function reduceCargoTest(lines: readonly string[]): string[] | null {
  const hasResult = lines.some((l) => /^test result: (ok|FAILED)\./.test(l));
  const diags = cargoDiagnostics(lines);
  if (!hasResult && diags === null) return null;
  const out: string[] = diags?.lines ?? [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const block = /^---- (.+) stdout ----$/.exec(line);
    if (block !== null) {
      let end = i + 1;
      while (end < lines.length && !/^---- .+ stdout ----$/.test(lines[end] ?? "") && lines[end] !== "failures:") {
        end++;
      }
      const body = lines.slice(i + 1, end);
      const msg: string[] = [];
      let inBacktrace = false;
      for (const b of body) {
        if (/^stack backtrace:$/.test(b)) inBacktrace = true;
        else if (/^note: /.test(b)) inBacktrace = false;
        else if (!inBacktrace && b.trim() !== "" && msg.length < 5) {
          msg.push(b.replace(/ \(\d+\) panicked at /, " panicked at "));
        }
      }
      out.push("", `---- ${block[1]}`, ...msg);
      i = end - 1;
      continue;
    }
    if (/^\s+Running /.test(line) || /^\s+Doc-tests /.test(line)) {
      out.push("", line.trim().replace(/ \(target\/[^)]*\)$/, ""));
      continue;
    }
    if (/^test result: /.test(line) || /^error: (test failed|\d+ targets? failed)/.test(line)) out.push(line);
    if (/^test .+ \.\.\. FAILED$/.test(line) && !lines.includes(`---- ${line.slice(5, -10)} stdout ----`)) {
      out.push(line);
    }
  }
  return out;
}

/** go test (plain and -v): failing tests with their log lines, package result lines and a count line. */
export function reduceGoTest(lines: readonly string[]): string[] | null {
  const recognised = lines.some((l) => /^(ok|FAIL|---)\s/.test(l) || /^(=== RUN|--- (PASS|FAIL))/.test(l));
  if (!recognised) return null;
  const out: string[] = [];
  let pending: string[] = [];
  let inTest = false;
  let afterFail = 0;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const line of lines) {
    const result = /^(\s*)--- (PASS|FAIL|SKIP): (\S+)/.exec(line);
    if (/^\s*=== (RUN|PAUSE|CONT|NAME)\s/.test(line)) {
      inTest = true;
      pending = [];
      afterFail = 0;
      continue;
    }
    if (result !== null) {
      const topLevel = result[1] === "";
      if (result[2] === "PASS") passed += topLevel ? 1 : 0;
      else if (result[2] === "SKIP") skipped += topLevel ? 1 : 0;
      else {
        failed += topLevel ? 1 : 0;
        out.push(line, ...pending.slice(0, 5));
        afterFail = 5;
      }
      pending = [];
      inTest = false;
      continue;
    }
    if (/^(PASS|FAIL)$/.test(line) || /^\?\s+\S+\s+\[no test files\]$/.test(line)) continue;
    if (/^(ok|FAIL)\s+\S+/.test(line) || /^panic: /.test(line) || /^# \S+/.test(line)) {
      out.push(line);
      afterFail = /^panic: /.test(line) ? 6 : 0;
      inTest = false;
      continue;
    }
    if (inTest) pending.push(line);
    else if (afterFail > 0 && /^\s+\S/.test(line)) {
      out.push(line);
      afterFail--;
    } else if (/^\S+\.go:\d+(:\d+)?: /.test(line)) out.push(line);
  }
  const counts = [passed > 0 ? `${passed} passed` : "", `${failed} failed`, skipped > 0 ? `${skipped} skipped` : ""];
  if (passed > 0) {
    out.push(
      "",
      `go test: ${counts.filter((c) => c !== "").join(", ")} (top-level ${plural(passed + failed + skipped, "test")})`,
    );
  }
  return out;
}

/** pytest, cargo test and go test reducers by name. */
export const OTHER_RUNNERS: Record<string, Reducer> = {
  pytest: reducePytest,
  "cargo-test": reduceCargoTest,
  "go-test": reduceGoTest,
};
