/**
 * Reducers for JavaScript/TypeScript test runners: deno test, node --test, jest, vitest.
 * Each keeps the summary counts and every failing test with the first lines of its assertion message.
 */

import { condenseBlock, findIndex, findLastIndex, isStackLine, type Reducer } from "./util.ts";

const DENO_SUMMARY_RE = /^(?:ok|FAILED) \| \d+ passed/;
const DENO_TS_ERROR_RE = /^(?:TS\d+ \[ERROR\]|error: TS\d+ )/;

/** deno test (and deno check): failures with their assertion, type-check errors, the summary line. */
export function reduceDenoTest(lines: readonly string[]): string[] | null {
  const hasSummary = lines.some((l) => DENO_SUMMARY_RE.test(l));
  const hasTypeErrors = lines.some((l) => DENO_TS_ERROR_RE.test(l) || /^error: Type checking failed/.test(l));
  if (!hasSummary && !hasTypeErrors) return null;
  const out: string[] = [];
  const errorsAt = findIndex(lines, /^ ?ERRORS ?$/);
  const failuresAt = findIndex(lines, /^ ?FAILURES ?$/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (DENO_TS_ERROR_RE.test(line)) {
      // Type error: message, then source, caret and `at file:line:col`.
      const at = findIndex(lines, /^\s+at /, i + 1);
      const loc = at > i && at <= i + 4 ? ` (${(lines[at] ?? "").trim().replace(/^at\s+/, "")})` : "";
      out.push(`${line}${loc}`);
      continue;
    }
    if (errorsAt >= 0 && i > errorsAt && (failuresAt < 0 || i < failuresAt)) {
      if (/ => \S+:\d+:\d+$/.test(line)) {
        out.push("", line);
        let end = i + 1;
        while (end < lines.length && !/ => \S+:\d+:\d+$/.test(lines[end] ?? "") && end !== failuresAt) end++;
        out.push(...condenseBlock(lines.slice(i + 1, end), 5).map((l) => `  ${l.trimStart()}`));
        i = end - 1;
      }
      continue;
    }
    if (failuresAt >= 0 && i >= failuresAt && !DENO_SUMMARY_RE.test(line)) {
      // The FAILURES list repeats the ERRORS headers; keep it only when ERRORS is missing.
      if (errorsAt < 0 && / => /.test(line)) out.push(line);
      if (/^error: /.test(line)) out.push(line);
      continue;
    }
    if (DENO_SUMMARY_RE.test(line) || /^Found \d+ errors?\.?$/.test(line) || /^error: /.test(line)) {
      out.push("", line);
    }
  }
  return out;
}

const NODE_SUMMARY_RE = /^[ℹ#] (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/;

/** node --test (spec and TAP reporters): failing tests with their assertion and the non-zero counts. */
export function reduceNodeTest(lines: readonly string[]): string[] | null {
  if (!lines.some((l) => /^[ℹ#] tests \d+$/.test(l))) return null;
  const out: string[] = [];
  const failingAt = findIndex(lines, /^✖ failing tests:$/);
  const from = failingAt >= 0 ? failingAt + 1 : 0;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const spec = /^(\s*)✖ /.exec(line);
    const tap = /^(\s*)not ok \d+ - /.exec(line);
    if (spec !== null || tap !== null) {
      const indent = (spec ?? tap)?.[1]?.length ?? 0;
      let end = i + 1;
      while (end < lines.length) {
        const next = lines[end] ?? "";
        if (next.trim() !== "" && next.search(/\S/) <= indent && !/^\s*\.\.\.$/.test(next)) break;
        end++;
      }
      const prev = lines[i - 1] ?? "";
      if (/^test at /.test(prev)) out.push(prev);
      out.push(line);
      const body = withoutTapStack(lines.slice(i + 1, end)).filter((l) =>
        !/^\s+(generatedMessage|code|operator|failureType|stack|duration_ms):/.test(l) && !/^\s*[{}]\s*$/.test(l) &&
        !/^\s+(error: [|>]-?|name: '\w*Error')$/.test(l) &&
        !/^\s*(---|\.\.\.)$/.test(l)
      );
      out.push(...condenseBlock(body, 5));
      i = end - 1;
      continue;
    }
    if (NODE_SUMMARY_RE.test(line)) {
      const m = /^[ℹ#] (\w+) ([\d.]+)$/.exec(line);
      const keep = m !== null && (m[2] !== "0" || m[1] === "fail" || m[1] === "pass");
      if (keep) out.push(line);
    }
  }
  if (failingAt >= 0) {
    // The summary precedes the failing list: move it to the end like the other runners.
    const summary = out.filter((l) => NODE_SUMMARY_RE.test(l));
    const rest = out.filter((l) => !NODE_SUMMARY_RE.test(l));
    for (const l of lines.slice(0, failingAt)) {
      const m = /^[ℹ#] (\w+) ([\d.]+)$/.exec(l);
      if (m !== null && (m[2] !== "0" || m[1] === "fail" || m[1] === "pass")) summary.push(l);
    }
    return [...rest, "", ...summary];
  }
  return out;
}

/** A TAP YAML block's `stack: |-` and the frames under it become one `at <first frame>` line. */
function withoutTapStack(body: readonly string[]): string[] {
  const at = body.findIndex((l) => /^\s+stack: [|>]-?$/.test(l));
  if (at < 0) return [...body];
  const indent = (body[at] ?? "").search(/\S/);
  let end = at + 1;
  while (end < body.length && (body[end] ?? "").search(/\S/) > indent) end++;
  const first = (body[at + 1] ?? "").trim();
  const frame = end > at + 1 && first !== "" ? [`${" ".repeat(indent)}at ${first}`] : [];
  return [...body.slice(0, at), ...frame, ...body.slice(end)];
}

const JEST_SUMMARY_RE = /^(Test Suites|Tests|Snapshots|Time):\s/;

/** jest: FAIL file lines, every `● suite › test` block condensed, the final summary block. */
export function reduceJest(lines: readonly string[]): string[] | null {
  const testsAt = findLastIndex(lines, /^Tests:\s+.*\d+ total/);
  if (testsAt < 0) return null;
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const bullet = /^(\s*)● /.exec(line);
    if (bullet !== null) {
      const indent = bullet[1]?.length ?? 0;
      let end = i + 1;
      while (end < lines.length) {
        const next = lines[end] ?? "";
        if (/^ (FAIL|PASS|RUNS) {2}/.test(next) || JEST_SUMMARY_RE.test(next)) break;
        if (next.trim() !== "" && next.search(/\S/) <= indent && !isStackLine(next)) break;
        end++;
      }
      out.push(line.trim());
      const body = condenseBlock(lines.slice(i + 1, end), 7).map((l) => `  ${l.trim()}`);
      // `Expected: x` and `Received: y` on one line.
      for (let k = 0; k < body.length; k++) {
        const cur = body[k] ?? "";
        const next = body[k + 1] ?? "";
        if (/^\s*Expected/.test(cur) && /^\s*Received/.test(next)) {
          out.push(`${cur} | ${next.trim()}`);
          k++;
        } else out.push(cur);
      }
      i = end - 1;
      continue;
    }
    if (/^\s+● Test suite failed to run/.test(line)) out.push(line.trim());
  }
  const summaryStart = findLastIndex(lines.slice(0, testsAt + 1), /^Test Suites:/);
  out.push("");
  for (let i = summaryStart >= 0 ? summaryStart : testsAt; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (JEST_SUMMARY_RE.test(line) && !/^Snapshots:\s+0 total$/.test(line)) out.push(line);
  }
  return out;
}

/** vitest: the Failed Tests section condensed (name, assertion, location) and the final counts. */
export function reduceVitest(lines: readonly string[]): string[] | null {
  const testsAt = findLastIndex(lines, /^\s+Tests\s+.*\(\d+\)$/);
  const filesAt = findLastIndex(lines, /^\s*Test Files\s+.*\(\d+\)$/);
  if (testsAt < 0 || filesAt < 0) return null;
  const out: string[] = [];
  const sectionAt = findIndex(lines, /⎯ (Failed Tests|Failed Suites|Unhandled Errors?) \d+ ⎯/);
  if (sectionAt >= 0) {
    for (let i = sectionAt; i < filesAt; i++) {
      const line = lines[i] ?? "";
      if (/⎯ (Failed Tests|Failed Suites|Unhandled Errors?) \d+ ⎯/.test(line)) {
        out.push(line.replace(/⎯{3,}/g, "⎯⎯⎯"));
        continue;
      }
      if (/^ FAIL {2}/.test(line)) {
        let end = i + 1;
        while (end < filesAt && !/^ FAIL {2}/.test(lines[end] ?? "") && !/⎯{5,}/.test(lines[end] ?? "")) end++;
        const body = withoutTapStack(lines.slice(i + 1, end)).filter((l) =>
          !/^\s*\d+\|/.test(l) && !/^\s*[-+] (Expected|Received)/.test(l)
        );
        out.push("", line.trim(), ...condenseBlock(body, 5).map((l) => `  ${l.trim()}`));
        i = end - 1;
      }
    }
  } else {
    // No failure section: keep failing test lines from the per-file listing, if any.
    for (const line of lines.slice(0, filesAt)) if (/^\s+[×✗] /.test(line)) out.push(line.trim());
  }
  out.push("");
  for (let i = filesAt; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (/^\s*(Test Files|Tests|Duration|Errors|Type Errors)\s/.test(line)) out.push(line.trim());
  }
  return out;
}

/** All JavaScript runner reducers by name. */
export const JS_RUNNERS: Record<string, Reducer> = {
  "deno-test": reduceDenoTest,
  "node-test": reduceNodeTest,
  jest: reduceJest,
  vitest: reduceVitest,
};
