// deno-lint-ignore-file no-console
/**
 * Per-dispatch latency with the REAL pinned CLIs: how long `pty_send` (an agent dispatch, wait:false)
 * takes to return its receipt — the paste, the submit keys and the check that the composer let the text
 * go — through the real MCP server and SDK client, against the loopback fake model servers. Each turn is
 * waited for (aiterm-wait) before the next send. Used for the before/after numbers of ADR 0023's amendment.
 *
 *   deno run -A tests/probes/dispatch_latency.ts [claude|codex|grok ...] [--sends 10]
 */
import { parseArgs } from "node:util";
import { gitProject, runWaiter, serverEnv, type WaitProcess } from "../helpers/agent.ts";
import { makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import { findVendorClis, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { sends: { type: "string", default: "10" } },
  allowPositionals: true,
});
const kinds = (positionals.length ? positionals : ["claude", "codex", "grok"]) as ("claude" | "codex" | "grok")[];
const sends = Number(values.sends);
const HARNESS = { claude: "claude-code", codex: "codex-cli", grok: "grok-cli" } as const;
const BIN_VAR = { claude: "CLAUDE_BIN", codex: "CODEX_BIN", grok: "GROK_BIN" } as const;

for (const kind of kinds) {
  const bin = findVendorClis()[kind];
  if (!bin) {
    console.log(`${kind}: not installed`);
    continue;
  }
  await using t = await makeTestEnv();
  const proj = await gitProject(t);
  await using srv = kind === "claude" ? startFakeAnthropic() : startFakeOpenAI();
  await using vh = await vendorHome(kind, { apiUrl: srv.url, cwd: proj, trusted: true });
  const env = serverEnv(t, vh.env, { [BIN_VAR[kind]]: bin });
  await using c = await connect(env);
  const launch = await c.ok<{ session_id: string }>("agent_launch", { harness: HARNESS[kind], cwd: proj });
  const times: number[] = [];
  let residue = 0;
  try {
    for (let i = 0; i < sends; i++) {
      const t0 = performance.now();
      const s = await c.ok<{ wait_process: WaitProcess | null; submit_residue: boolean | null }>("pty_send", {
        wait: false,
        session_id: launch.session_id,
        text: `latency probe ${i}`,
      });
      times.push(performance.now() - t0);
      if (Deno.env.get("PROBE_VERBOSE")) {
        console.log(`  send ${i}: ${(performance.now() - t0).toFixed(0)} ms residue=${s.submit_residue}`);
      }
      if (s.submit_residue) residue++;
      if (s.wait_process) await runWaiter(env, s.wait_process);
    }
  } finally {
    await c.call("pty_close", { session_id: launch.session_id }).catch(() => {});
  }
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(0);
  console.log(
    `${kind}: pty_send dispatch n=${times.length} median=${q(0.5)}ms min=${q(0)}ms max=${q(1)}ms residue=${residue}`,
  );
}
