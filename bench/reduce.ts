/**
 * Benchmark of the output reducers over the captured corpus (tests/fixtures/reduce).
 *
 *   deno run -A bench/reduce.ts [--show NAME]
 *
 * Prints one row per fixture: reducer, raw tokens, reduced tokens, ratio, generic-only ratio
 * (baseline) and verdict lines kept (k/n); then a summary per category and overall. Exits 1 when
 * any verdict line was lost or the wrong reducer was chosen.
 */

import { reduceOutput } from "../lib/terminal/reduce/mod.ts";

interface Sidecar {
  command: string;
  reducer: string;
  verdict: string[];
  min_ratio?: number;
}

const encoder = new TextEncoder();
/** Write one line to stdout (the lint config forbids console). */
function print(text: string): void {
  Deno.stdout.writeSync(encoder.encode(`${text}\n`));
}

const DIR = new URL("../tests/fixtures/reduce/", import.meta.url);
const TEST_RUNNERS = new Set(["deno-test", "node-test", "jest", "vitest", "pytest", "cargo-test", "go-test"]);
const BUILDS = new Set(["tsc", "gcc", "cargo-build"]);

interface Row {
  name: string;
  category: string;
  reducer: string;
  raw: number;
  reduced: number;
  generic: number;
  kept: number;
  total: number;
  ok: boolean;
}

function category(reducer: string): string {
  if (TEST_RUNNERS.has(reducer)) return "test runners";
  if (BUILDS.has(reducer)) return "builds";
  return "other";
}

function pad(s: string | number, n: number, left = false): string {
  const str = String(s);
  return left ? str.padStart(n) : str.padEnd(n);
}

const showIndex = Deno.args.indexOf("--show");
const show = showIndex >= 0 ? Deno.args[showIndex + 1] : undefined;
const names = [...Deno.readDirSync(DIR)]
  .filter((e) => e.name.endsWith(".json"))
  .map((e) => e.name.slice(0, -5))
  .sort();

const rows: Row[] = [];
for (const name of names) {
  const sidecar = JSON.parse(Deno.readTextFileSync(new URL(`${name}.json`, DIR))) as Sidecar;
  const raw = Deno.readTextFileSync(new URL(`${name}.txt`, DIR));
  const result = reduceOutput(raw, { sessionId: "bench", command: sidecar.command });
  const generic = reduceOutput(raw, { sessionId: "bench", command: null });
  const kept = sidecar.verdict.filter((v) => result.text.includes(v));
  if (name === show) {
    print(`${result.meta}\n${result.text}\n`);
    for (const v of sidecar.verdict) if (!result.text.includes(v)) print(`LOST: ${v}`);
  }
  rows.push({
    name,
    category: category(sidecar.reducer),
    reducer: result.reducer,
    raw: result.rawTokens,
    reduced: result.tokens,
    generic: generic.tokens,
    kept: kept.length,
    total: sidecar.verdict.length,
    ok: kept.length === sidecar.verdict.length && result.reducer === sidecar.reducer,
  });
}

const header = `${pad("fixture", 22)} ${pad("reducer", 13)} ${pad("raw tok", 8, true)} ${pad("reduced", 8, true)} ` +
  `${pad("ratio", 7, true)} ${pad("generic", 8, true)} ${pad("verdict", 8, true)}`;
print(header);
print("-".repeat(header.length));
for (const r of rows) {
  print(
    `${pad(r.name, 22)} ${pad(r.reducer, 13)} ${pad(r.raw, 8, true)} ${pad(r.reduced, 8, true)} ` +
      `${pad((r.raw / r.reduced).toFixed(1) + "x", 7, true)} ${pad((r.raw / r.generic).toFixed(1) + "x", 8, true)} ` +
      `${pad(`${r.kept}/${r.total}`, 8, true)}${r.ok ? "" : "  <-- LOST"}`,
  );
}
print("-".repeat(header.length));
function summary(label: string, group: Row[]): void {
  const raw = group.reduce((n, r) => n + r.raw, 0);
  const reduced = group.reduce((n, r) => n + r.reduced, 0);
  const generic = group.reduce((n, r) => n + r.generic, 0);
  const kept = group.reduce((n, r) => n + r.kept, 0);
  const total = group.reduce((n, r) => n + r.total, 0);
  print(
    `${pad(label, 22)} ${pad(`${group.length} fixtures`, 13)} ${pad(raw, 8, true)} ${pad(reduced, 8, true)} ` +
      `${pad((raw / Math.max(1, reduced)).toFixed(1) + "x", 7, true)} ` +
      `${pad((raw / Math.max(1, generic)).toFixed(1) + "x", 8, true)} ${pad(`${kept}/${total}`, 8, true)}`,
  );
}
for (const cat of ["test runners", "builds", "other"]) summary(cat, rows.filter((r) => r.category === cat));
summary("overall", rows);
const lost = rows.filter((r) => !r.ok);
if (lost.length > 0) {
  print(`\nFAIL: verdict lost or wrong reducer in ${lost.map((r) => r.name).join(", ")}`);
  Deno.exit(1);
}
