/**
 * Corpus tests: every captured fixture in tests/fixtures/reduce keeps its verdict lines, is reduced
 * by the expected reducer, gets smaller than raw, and (where marked) reaches its minimum ratio.
 */
import assert from "node:assert/strict";
import { reduceOutput } from "./mod.ts";

interface Sidecar {
  command: string;
  reducer: string;
  verdict: string[];
  min_ratio?: number;
}

const DIR = new URL("../../../tests/fixtures/reduce/", import.meta.url);
const names = [...Deno.readDirSync(DIR)]
  .filter((e) => e.isFile && e.name.endsWith(".json"))
  .map((e) => e.name.slice(0, -".json".length))
  .sort();

Deno.test("the corpus is present and small", () => {
  assert.ok(names.length >= 20, `expected at least 20 fixtures, found ${names.length}`);
  let bytes = 0;
  for (const e of Deno.readDirSync(DIR)) bytes += Deno.statSync(new URL(e.name, DIR)).size;
  assert.ok(bytes < 2 * 1024 * 1024, `corpus is ${bytes} bytes`);
});

for (const name of names) {
  Deno.test(`fixture ${name}`, () => {
    const sidecar = JSON.parse(Deno.readTextFileSync(new URL(`${name}.json`, DIR))) as Sidecar;
    const raw = Deno.readTextFileSync(new URL(`${name}.txt`, DIR));
    const result = reduceOutput(raw, { sessionId: "t1", command: sidecar.command });
    assert.equal(result.reducer, sidecar.reducer, "reducer");
    assert.ok(sidecar.verdict.length > 0, "sidecar lists verdict lines");
    const lost = sidecar.verdict.filter((v) => !result.text.includes(v));
    assert.deepEqual(lost, [], `verdict lines lost; reduced output:\n${result.text}`);
    assert.ok(result.tokens < result.rawTokens, `tokens ${result.tokens} < raw ${result.rawTokens}`);
    assert.ok(!result.text.includes("\x1b"), "no escape sequences left");
    if (sidecar.min_ratio !== undefined) {
      const ratio = result.rawTokens / result.tokens;
      assert.ok(ratio >= sidecar.min_ratio, `ratio ${ratio.toFixed(1)} < ${sidecar.min_ratio}`);
    }
    // The unfolded view contains every line the folded view shows.
    const full = reduceOutput(raw, { sessionId: "t1", command: sidecar.command, elide: false });
    assert.equal(full.reducer, result.reducer);
    const markers = result.text.split("\n").filter((l) => /^… \d+ lines hidden \(lines \d+-\d+ /.test(l)).length;
    assert.equal(full.lines, result.lines + result.hiddenLines - markers);
  });
}
