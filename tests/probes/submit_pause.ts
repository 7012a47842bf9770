// deno-lint-ignore-file no-console
/**
 * Measures, with the REAL pinned CLIs (tests/helpers/vendor.ts) against the loopback fake model servers,
 * whether the submit key pressed right after the composer shows a pasted prompt is swallowed, and how
 * long the composer takes to show it. It is the measurement behind the submit steps of the adapters and
 * PaneInput.submit (lib/agent/typing.ts); see the amendment of docs/adr/0023-one-agent-request-pipeline.md.
 *
 *   deno run -A tests/probes/submit_pause.ts [--harness claude|codex|grok] [--tries 20] [--pauses 0,50,100]
 *                                            [--blind 0,100] [--lines 1]
 *
 * One CLI is started in tmux on a private socket (a throwaway HOME, the project trusted). Each try:
 * a unique one-line prompt is pasted as one bracketed paste (tmux `paste-buffer -p`, what the product
 * does); the screen is read every 5 ms until the harness's `composerHolds` sees it; then `pause` ms; then
 * Enter. The try passed when the composer let the text go within 3 s AND the fake server received exactly
 * that prompt as the last user message. A swallowed Enter (the text still in the composer, or a newline
 * added to it) is counted and recovered with one more Enter. `--blind` pauses press Enter that long
 * after the paste WITHOUT looking at the screen first (what a fixed pause alone does). `--lines N` makes
 * each prompt N lines (a CLI may show a long paste collapsed to a placeholder).
 */
import { parseArgs } from "node:util";
import { claude } from "../../harnesses/claude/adapter.ts";
import { codex } from "../../harnesses/codex/adapter.ts";
import { grok } from "../../harnesses/grok/adapter.ts";
import type { HarnessAdapter } from "../../harnesses/mod.ts";
import { findVendorClis, vendorHome } from "../helpers/vendor.ts";
import { startFakeAnthropic } from "../fixtures/fake_api/anthropic.ts";
import { lastUserTurn } from "../fixtures/fake_api/anthropic.ts";
import { lastUserInput, startFakeOpenAI } from "../fixtures/fake_api/openai.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    harness: { type: "string", default: "claude" },
    tries: { type: "string", default: "20" },
    pauses: { type: "string", default: "0" },
    blind: { type: "string", default: "" },
    lines: { type: "string", default: "1" },
  },
});
const kind = values.harness as "claude" | "codex" | "grok";
const tries = Number(values.tries);
const nums = (s: string) => s.split(",").filter((x) => x !== "").map(Number);
const pauses = nums(values.pauses!);
const blind = nums(values.blind!);
const lines = Number(values.lines);
/** The prompt of one try: one line, or `--lines` lines of about 70 characters. */
const promptText = (head: string) =>
  lines <= 1
    ? head
    : [head, ...Array.from({ length: lines - 1 }, (_, k) => `line ${k} ${"lorem ipsum ".repeat(5)}`)].join("\n");
const adapters: Record<string, HarnessAdapter> = { claude, codex, grok };
const adapter = adapters[kind]!;
const bin = findVendorClis()[kind];
if (!bin) {
  console.error(`${kind} is not installed: run scripts/install_vendor_clis.sh`);
  Deno.exit(2);
}

const root = await Deno.makeTempDir({ prefix: "aiterm-probe-" });
const sock = `${root}/tmux.sock`;
const proj = `${root}/proj`;
await Deno.mkdir(proj);
await new Deno.Command("git", { args: ["init", "-q", proj] }).output();
const srv = kind === "claude" ? startFakeAnthropic() : startFakeOpenAI();
const vh = await vendorHome(kind, { apiUrl: srv.url, cwd: proj, trusted: true });

async function tmux(...args: string[]): Promise<string> {
  const out = await new Deno.Command("tmux", { args: ["-S", sock, "-f", "/dev/null", ...args] }).output();
  if (!out.success) throw new Error(`tmux ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}
const screen = () => tmux("capture-pane", "-p", "-J", "-t", "=probe:");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function paste(text: string): Promise<void> {
  const file = `${root}/paste`;
  await Deno.writeTextFile(file, text);
  await tmux("load-buffer", "-b", "p", file, ";", "paste-buffer", "-p", "-d", "-b", "p", "-t", "=probe:");
}

/** Polls the screen until `ok` or `ms` pass; the elapsed time, or null on time-out. */
async function until(ok: (s: string) => boolean, ms: number, every = 5): Promise<number | null> {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    if (ok(await screen())) return performance.now() - t0;
    await sleep(every);
  }
  return null;
}

/** Prompts of the POST requests from index `from` on. */
function promptsSince(from: number): string[] {
  const out: string[] = [];
  for (const r of srv.requests.slice(from)) {
    if (r.method !== "POST" || !r.body || typeof r.body !== "object") continue;
    // deno-lint-ignore no-explicit-any
    const body = r.body as any;
    out.push(kind === "claude" ? lastUserTurn(body).prompt : lastUserInput(body).prompt);
  }
  return out;
}

const spec = adapter.buildLaunch({
  bin,
  cwd: proj,
  model: null,
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
    "50",
    "-c",
    proj,
    "env",
    "-i",
    ...envArgs,
    ...spec.argv,
  );
  const ready = await until((s) => adapter.classifyScreen(s).kind === "ready", 60_000, 100);
  if (ready === null) throw new Error(`never ready:\n${await screen()}`);
  await sleep(1000);
  console.log(`${kind} ready after ${Math.round(ready)} ms`);

  const run = async (pause: number, look: boolean) => {
    const shown: number[] = [];
    const gone: number[] = [];
    let swallowed = 0;
    let wrong = 0;
    for (let i = 0; i < tries; i++) {
      const text = promptText(`probe ${look ? "look" : "blind"} ${pause} ${i} ${crypto.randomUUID().slice(0, 8)}`);
      const before = srv.requests.length;
      await paste(text);
      if (look) {
        const t = await until((s) => adapter.composerHolds(s, text), 3000, 2);
        if (t === null) throw new Error(`paste never shown:\n${await screen()}`);
        shown.push(t);
      }
      if (pause > 0) await sleep(pause);
      await tmux("send-keys", "-t", "=probe:", "Enter");
      const left = await until((s) => !adapter.composerHolds(s, text), 3000, 20);
      if (left !== null) gone.push(left);
      if (left === null) {
        swallowed++;
        await tmux("send-keys", "-t", "=probe:", "Enter");
      }
      // The turn ends: the server got the request and the CLI is ready with an empty composer again.
      const done = await until(
        (s) =>
          srv.requests.length > before && adapter.classifyScreen(s).kind === "ready" && !adapter.composerHolds(s, text),
        30_000,
        50,
      );
      if (done === null) throw new Error(`turn did not end:\n${await screen()}`);
      await sleep(300);
      const got = promptsSince(before);
      // Claude Code sends a long paste wrapped in <pasted_content id="…"> tags, Grok every prompt in <user_query>.
      const unwrap = (p: string) =>
        p.replace(/^<(pasted_content|user_query)[^>]*>\n?|\n?<\/(pasted_content|user_query)[^>]*>$/g, "").trim();
      if (left !== null && !got.some((p) => unwrap(p) === text.trim())) {
        wrong++;
        console.log(`  try ${i}: the server got ${JSON.stringify(got.map((p) => p.slice(0, 120)))}`);
      }
    }
    const stat = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length ? `${s[Math.floor(s.length / 2)]!.toFixed(0)}/${s.at(-1)!.toFixed(0)}ms` : "-";
    };
    console.log(
      `${kind} ${look ? "after-shown" : "blind"} pause=${pause}ms tries=${tries} swallowed=${swallowed} ` +
        `wrong_prompt=${wrong} paste->shown(median/max)=${stat(shown)} enter->left(median/max)=${stat(gone)}`,
    );
  };
  for (const p of blind) await run(p, false);
  for (const p of pauses) await run(p, true);
} finally {
  await tmux("kill-server").catch(() => {});
  await vh.cleanup();
  await srv.close();
  await Deno.remove(root, { recursive: true }).catch(() => {});
}
