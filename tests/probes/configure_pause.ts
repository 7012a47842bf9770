// deno-lint-ignore-file no-console
/**
 * Measures, with the REAL pinned CLIs (tests/helpers/vendor.ts) against the loopback fake model servers,
 * whether agent_configure's stages work with their fixed pauses set to `--pause` ms (0: none), the
 * `shownMs` waits (the composer shows the typed command) kept. It is the measurement behind the
 * configure steps of harnesses/{claude,codex,grok}/configure.ts, selectByLabel's list moves and
 * lib/agent/configure.ts's redraw pauses; see the amendment of docs/adr/0023-one-agent-request-pipeline.md.
 *
 *   deno run -A tests/probes/configure_pause.ts [--harness claude|codex|grok] [--tries 10] [--pauses 0,250]
 *                                               [--redraw 100] [--rows 50] [--scroll]
 *
 * One CLI is started in tmux on a private socket (a throwaway HOME, the project trusted). Each try runs
 * the harness's configure stages for the next of two goals (so every try changes something), the way
 * lib/agent/configure.ts runStage does: the stage's keys, then `--redraw` ms, then the screen read
 * every 20 ms until the stage's check says anything but "wait" (10 s at most), keys again on "again".
 * Every `pauseMs` step is replaced by `--pause` ms. `--rows` is the pane's height (a short pane makes
 * Codex's model list scroll). `--scroll` (Codex) picks a model below the rows the list shows, and back. A try passed when every stage confirmed the goal
 * (the CLI's own confirmation line) within its budget and no stage failed or ran out of rounds.
 */
import { parseArgs } from "node:util";
import { claude } from "../../harnesses/claude/adapter.ts";
import { codex } from "../../harnesses/codex/adapter.ts";
import { grok } from "../../harnesses/grok/adapter.ts";
import type { ConfigureGoal, HarnessAdapter, KeyStep } from "../../harnesses/mod.ts";
import { findVendorClis, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    harness: { type: "string", default: "claude" },
    tries: { type: "string", default: "10" },
    pauses: { type: "string", default: "0" },
    redraw: { type: "string", default: "100" },
    rows: { type: "string", default: "50" },
    scroll: { type: "boolean", default: false },
  },
});
const kind = values.harness as "claude" | "codex" | "grok";
const tries = Number(values.tries);
const pauses = values.pauses!.split(",").filter((x) => x !== "").map(Number);
const redraw = Number(values.redraw);
const adapters: Record<string, HarnessAdapter> = { claude, codex, grok };
const adapter = adapters[kind]!;
const bin = findVendorClis()[kind];
if (!bin) {
  console.error(`${kind} is not installed: run scripts/install_vendor_clis.sh`);
  Deno.exit(2);
}

/** The two goals a try alternates between (each a model and an effort the CLI here offers). */
const GOALS: Record<string, ConfigureGoal[]> = {
  claude: [
    { model: "opus", modelLabel: null, effort: "low", currentEffort: null },
    { model: "sonnet", modelLabel: null, effort: "high", currentEffort: null },
  ],
  // Rows 4 and 8 of the "Select Model and Effort" list; max sits behind "More reasoning…".
  codex: [
    { model: "gpt-6-luna", modelLabel: "GPT-6-Luna", effort: "low", currentEffort: null },
    { model: "gpt-5.6-luna", modelLabel: "GPT-5.6-Luna", effort: "high", currentEffort: null },
    { model: "gpt-6-luna", modelLabel: "GPT-6-Luna", effort: "max", currentEffort: null },
  ],
  // --scroll: row 9 (below the eight rows the list shows) and back, so the list scrolls both ways.
  "codex-scroll": [
    { model: "gpt-5.5", modelLabel: "GPT-5.5", effort: "high", currentEffort: null },
    { model: "gpt-6-luna", modelLabel: "GPT-6-Luna", effort: "low", currentEffort: null },
  ],
  grok: [
    { model: "mock2", modelLabel: null, effort: "low", currentEffort: null },
    { model: "mock2", modelLabel: null, effort: "high", currentEffort: null },
    { model: "mock", modelLabel: null, effort: null, currentEffort: null },
  ],
};

const root = await Deno.makeTempDir({ prefix: "aiterm-probe-" });
const sock = `${root}/tmux.sock`;
const proj = `${root}/proj`;
await Deno.mkdir(proj);
await new Deno.Command("git", { args: ["init", "-q", proj] }).output();
const srv = kind === "claude" ? startFakeAnthropic() : startFakeOpenAI();
const vh = await vendorHome(kind, { apiUrl: srv.url, cwd: proj, trusted: true });
if (kind === "grok") {
  // tests/e2e/grok_configure_real_test.ts's second model, with two reasoning efforts.
  const mock2 = [
    ``,
    `[model.mock2]`,
    `model = "mock-model-2"`,
    `name = "Mock Two"`,
    `base_url = ${JSON.stringify(`${srv.url}/v1`)}`,
    `env_key = "MOCK_API_KEY"`,
    `api_backend = "responses"`,
    `context_window = 128000`,
    ``,
    `[[model.mock2.reasoning_efforts]]`,
    `value = "low"`,
    `label = "Low Effort"`,
    ``,
    `[[model.mock2.reasoning_efforts]]`,
    `value = "high"`,
    `label = "High Effort"`,
    `default = true`,
    ``,
  ].join("\n");
  await Deno.writeTextFile(`${vh.configDir}/config.toml`, mock2, { append: true });
}

async function tmux(...args: string[]): Promise<string> {
  const out = await new Deno.Command("tmux", { args: ["-S", sock, "-f", "/dev/null", ...args] }).output();
  if (!out.success) throw new Error(`tmux ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}
const screen = () => tmux("capture-pane", "-p", "-J", "-t", "=probe:");
const scrollback = () => tmux("capture-pane", "-p", "-J", "-S", "-500", "-t", "=probe:");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(ok: (s: string) => boolean, ms: number, every = 5): Promise<number | null> {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    if (ok(await screen())) return performance.now() - t0;
    await sleep(every);
  }
  return null;
}

/** Waits on the screen for shownMs steps: the composer shows `text` on two looks in a row. */
const shownTimes: number[] = [];
/** Key lists that only scroll a list (moves with no pause or press after them: Codex's pickRow). */
let scrolls = 0;
async function steps(list: KeyStep[], pause: number): Promise<void> {
  if (list.length > 0 && list.every((s) => "key" in s && (s.key === "Down" || s.key === "Up"))) scrolls++;
  let last: string | null = null;
  for (const s of list) {
    if ("pauseMs" in s) {
      if (pause > 0) await sleep(pause);
    } else if ("shownMs" in s) {
      let streak = 0;
      const t = await until(
        (scr) => {
          streak = last !== null && adapter.composerHolds(scr, last) ? streak + 1 : 0;
          return streak >= 2;
        },
        s.shownMs,
        2,
      );
      if (t !== null) shownTimes.push(t);
    } else if ("key" in s) await tmux("send-keys", "-t", "=probe:", s.key);
    else {
      const file = `${root}/paste`;
      await Deno.writeTextFile(file, s.text);
      await tmux("load-buffer", "-b", "p", file, ";", "paste-buffer", "-d", "-b", "p", "-t", "=probe:");
      last = s.text;
    }
  }
}

/** One configure run (lib/agent/configure.ts runStage for every stage); null when it worked, else why. */
async function configure(goal: ConfigureGoal, pause: number): Promise<string | null> {
  for (const stage of adapter.configure!.stages(goal)) {
    const before = await scrollback();
    let keys = stage.keys(before);
    if (!keys) return `${stage.name}: no keys for the screen`;
    await steps(keys, pause);
    const t0 = performance.now();
    let rounds = 1;
    for (;;) {
      if (redraw > 0) await sleep(redraw);
      let v = stage.check(await scrollback(), before);
      let scr = "";
      while (v.kind === "wait" && performance.now() - t0 < 10_000) {
        await sleep(20);
        scr = await scrollback();
        v = stage.check(scr, before);
      }
      if (v.kind === "done") break;
      if (v.kind === "next") break;
      if (v.kind === "failed") return `${stage.name}: failed: ${v.message}`;
      if (v.kind === "wait") return `${stage.name}: unconfirmed`;
      keys = stage.keys(scr || (await scrollback()));
      if (!keys || ++rounds > 40) return `${stage.name}: out of keys/rounds (round ${rounds})`;
      await steps(keys, pause);
    }
  }
  return null;
}

const spec = adapter.buildLaunch({
  bin,
  cwd: proj,
  model: kind === "grok" ? "mock" : null,
  reasoningEffort: null,
  writeScope: null,
  fast: null,
  images: [],
  sessionUuid: crypto.randomUUID(),
  notice: null,
});
const env = { ...vh.env, ...spec.env };
const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
try {
  await tmux(
    "new-session",
    "-d",
    "-s",
    "probe",
    "-x",
    "160",
    "-y",
    values.rows!,
    "-c",
    proj,
    "env",
    "-i",
    ...envArgs,
    ...spec.argv,
  );
  const ready = await until((s) => adapter.classifyScreen(s).kind === "ready", 60_000, 100);
  if (ready === null) throw new Error(`never ready:\n${await screen()}`);
  await sleep(1500);
  console.log(`${kind} ready after ${Math.round(ready)} ms`);
  const goals = GOALS[values.scroll ? `${kind}-scroll` : kind]!;
  let n = 0;
  for (const pause of pauses) {
    let ok = 0;
    const took: number[] = [];
    shownTimes.length = 0;
    for (let i = 0; i < tries; i++) {
      const goal = goals[n++ % goals.length]!;
      const t0 = performance.now();
      const why = await configure(goal, pause);
      took.push(performance.now() - t0);
      if (why === null) ok++;
      else {
        console.log(
          `  try ${i} ${JSON.stringify(goal)}: ${why}\n${(await screen()).trimEnd().split("\n").slice(-15).join("\n")}`,
        );
        // Back out of whatever is open, as lib/agent/configure.ts leave() does, and let the CLI settle.
        for (let k = 0; k < 4; k++) {
          const leave = adapter.configure!.leave(await screen());
          if (!leave) break;
          await steps(leave, 250);
          await sleep(250);
        }
        await sleep(1000);
      }
      // A settled, empty composer before the next try.
      await until(
        (s) => adapter.classifyScreen(s).kind === "ready" && (adapter.composerText?.(s) ?? "") === "",
        5000,
        50,
      );
    }
    const stat = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length ? `${s[Math.floor(s.length / 2)]!.toFixed(0)}/${s.at(-1)!.toFixed(0)}ms` : "-";
    };
    console.log(
      `${kind} pause=${pause}ms redraw=${redraw}ms tries=${tries} ok=${ok} configure(median/max)=${stat(took)} ` +
        `typed->shown(median/max)=${stat(shownTimes)} scroll_rounds=${scrolls}`,
    );
  }
} finally {
  await tmux("kill-server").catch(() => {});
  await vh.cleanup();
  await srv.close();
  await Deno.remove(root, { recursive: true }).catch(() => {});
}
