// deno-lint-ignore-file no-console
/**
 * Time to verdict and tokens returned for each interactive scenario of issue 15 (REPLs, nested
 * shells, prompts, pagers, full-screen programs), next to the timeout a caller would otherwise burn.
 *
 *   deno run -A bench/interactive.ts [--rounds 1]
 *
 * Every scenario (devkit/interactive.ts) runs in a fresh session of one aiterm server driven
 * through the real MCP SDK client; the measured part is the action plus `pty_read {wait:true,
 * timeout:10}`. The baseline is what the same reads cost without a verdict: the full timeout each.
 * Exits 1 when a scenario's verdict is wrong (the table still prints).
 */
import {
  environmentLine,
  makeTestEnv,
  ms,
  onCleanup,
  parseIntFlags,
  printTable,
  runMain,
  summarize,
} from "./_common.ts";
import { connect } from "../devkit/mcp.ts";
import { callerOf, runScenario, SCENARIO_TIMEOUT_S, type ScenarioRun, SCENARIOS } from "../devkit/interactive.ts";

const flags = parseIntFlags({ rounds: 1 }, "deno run -A bench/interactive.ts [--rounds 1]");

await runMain("bench/interactive", async () => {
  if (flags.rounds < 1) throw new Error("--rounds must be at least 1");
  console.log(`interactive: ${SCENARIOS.length} scenarios × ${flags.rounds}, ${await environmentLine()}`);
  const env = await makeTestEnv();
  onCleanup("aiterm tmux server + state dir", () => env[Symbol.asyncDispose]());
  const c = await connect(env.env, "aiterm-bench-interactive");
  onCleanup("aiterm MCP server", () => c.close());
  const call = callerOf(c);
  const runs = new Map<string, ScenarioRun[]>();
  for (let round = 0; round < flags.rounds; round++) {
    for (const s of SCENARIOS) {
      const run = await runScenario(call, s, env.root);
      runs.set(s.name, [...(runs.get(s.name) ?? []), run]);
    }
  }
  const rows: string[][] = [];
  let spent = 0;
  let burned = 0;
  let tokens = 0;
  let wrong = 0;
  for (const s of SCENARIOS) {
    const rs = runs.get(s.name) ?? [];
    const measured = rs.filter((r) => !r.skipped && r.wallMs !== null);
    const bad = rs.filter((r) => r.problems.length > 0).length;
    wrong += bad;
    if (rs[0]?.skipped) {
      rows.push([s.name, String(s.item), "skipped", "", "", "", "", rs[0].skipped]);
      continue;
    }
    const wall = summarize(measured.map((r) => r.wallMs!));
    const tok = summarize(measured.map((r) => r.tokens ?? 0));
    if (measured.length) {
      spent += wall.median;
      burned += SCENARIO_TIMEOUT_S * 1000;
      tokens += tok.median;
    }
    rows.push([
      s.name,
      String(s.item),
      rs[0]?.via ?? (s.expect.errorCode ?? "-"),
      measured.length ? ms(summarize(measured.map((r) => r.waitedMs ?? 0)).median) : "-",
      measured.length ? ms(wall.median) : "-",
      measured.length ? String(Math.round(tok.median)) : "-",
      String(SCENARIO_TIMEOUT_S * 1000),
      bad ? `WRONG ×${bad}: ${rs.find((r) => r.problems.length)?.problems[0]?.slice(0, 120)}` : "ok",
    ]);
  }
  printTable(["scenario", "item", "verdict", "waited ms", "wall ms", "tokens", "timeout ms", "check"], rows);
  console.log(
    `total time to verdict ${ms(spent)} ms vs ${burned} ms of timeouts a caller would burn ` +
      `(${burned ? (spent / burned).toFixed(3) : "n/a"}×); ${Math.round(tokens)} tokens returned in all`,
  );
  console.log(wrong ? `${wrong} scenario run(s) with a wrong verdict` : "every verdict as expected");
  return wrong ? 1 : 0;
});
