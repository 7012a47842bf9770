// deno-lint-ignore-file no-console
/**
 * Agent turn latency: from the moment the harness appends its turn-end record to the moment
 * (a) `aiterm-wait` exits and (b) a parent holding the answer from `pty_read(agent_transcript)`,
 * with the fake Claude Code and Codex CLIs of tests/fixtures/bin (real transcript formats).
 *
 *   deno run -A bench/agent.ts [--turns 10] [--big-turns 5] [--big-mb 10] [--checks 20] [--turn-ms 2500]
 *
 * For each harness, one agent is launched through the real MCP SDK client; then each turn is a
 * `pty_send` (prompt containing SLOW: the fake runs `--turn-ms`), the receipt's `wait_process` is
 * started at once (so it is waiting when the turn ends) and, when it exits, `pty_read
 * {agent_transcript:true, cursor}` is called. The turn end is the `timestamp` of the record after
 * which the harness's own parser first reports the turn as finished (wall clock, ms). Baselines in
 * the same run: this process's own `Deno.watchFs` on the transcript's directory (the first moment any
 * watcher could have seen that record), and, after each turn, a bare Deno process that only watches
 * a file and exits on its first change (append → exit: the floor of "a waiting process exits"; the
 * ratio column is against it). After `--turns`, the transcript is padded to `--big-mb` with records
 * every parser ignores and `--big-turns` more turns are measured.
 *
 * Then a Claude Code parent (the SDK client named "claude-code", aiterm's parent hooks installed)
 * drives a claude-code child: turn end → its PostToolUse hook exits 2 with the answer (automatic
 * delivery, nothing polled by the parent). Then `--notices` turns stop on the fake's permission dialog
 * (PERM): dialog on screen (the `updatedAt` the fake CLI writes to its status file just before it
 * draws the dialog) → the dispatch's PostToolUse hook exits 2 with the notice; the parent answers with
 * agent_approval and that call's PostToolUse brings the answer (checked, not timed).
 *
 * A second table prints the per-check cost of the transcript reader the waiter and dispatch call on
 * every check (`loadTurns` in lib/agent/turns.ts) on a small transcript and on a `--big-mb` one: the
 * first check, and a check after one more record was appended (what a watch wake-up costs).
 */
import { join } from "node:path";
import { type Aiterm, environmentLine, makeTestEnv, ms, onCleanup, onFailureReport, parseIntFlags } from "./_common.ts";
import { printTable, runMain, startAiterm, type Stats, summarize, withTimeout } from "./_common.ts";
import { getHarness, type HarnessId } from "../harnesses/mod.ts";
import { type AgentRecord, readAgentRecord } from "../lib/agent/record.ts";
import { loadTurns } from "../lib/agent/turns.ts";
import { TranscriptReaders } from "../lib/agent/mod.ts";
import { installClaudeParentHooks } from "../harnesses/clients/mod.ts";
import { serverCommand } from "../setup/server_command.ts";

const USAGE =
  "deno run -A bench/agent.ts [--turns 10] [--big-turns 5] [--big-mb 10] [--checks 20] [--turn-ms 2500] [--notices 5]";
const flags = parseIntFlags(
  { turns: 10, "big-turns": 5, "big-mb": 10, checks: 20, "turn-ms": 2500, notices: 5 },
  USAGE,
);
const TARGET_MS = 50;
const HARNESSES: HarnessId[] = ["claude-code", "codex-cli"];
const FIXTURE_BIN = new URL("../tests/fixtures/bin/", import.meta.url).pathname;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Wall-clock milliseconds with sub-ms resolution (comparable with another process's Date.now()). */
const epochNow = () => performance.timeOrigin + performance.now();

interface Receipt {
  session_id: string;
  event_cursor: number | null;
  wait_process: { executable: string; args: string[] } | null;
}

interface Sample {
  /** Turn end → bare watch event that saw the record. */
  watch: number;
  /** A bare watching process: append → exit (measured right after the turn, on a scratch file). */
  bareExit: number;
  /** Turn end → aiterm-wait exited. */
  waiter: number;
  /** Turn end → pty_read answered (called when the waiter exited). */
  answer: number;
  /** The pty_read call alone. */
  read: number;
  /** The waiter was spawned this long before the turn ended (less than its start-up: it was not waiting yet). */
  lead: number;
}

/** Records, for every change of `file` seen by a bare watch on its directory, when and at what size. */
class BareWatch implements Disposable {
  readonly events: Array<{ t: number; size: number }> = [];
  #w: Deno.FsWatcher;
  constructor(file: string) {
    const dir = file.slice(0, file.lastIndexOf("/"));
    const w = this.#w = Deno.watchFs(dir, { recursive: false });
    (async () => {
      try {
        for await (const ev of w) {
          if (!ev.paths.includes(file)) continue;
          const t = epochNow();
          const size = Deno.statSync(file).size;
          this.events.push({ t, size });
        }
      } catch {
        // closed
      }
    })();
  }
  /** When the file first reached `size` bytes, as seen by the watch. */
  firstAtLeast(size: number): number | null {
    return this.events.find((e) => e.size >= size)?.t ?? null;
  }
  [Symbol.dispose](): void {
    try {
      this.#w.close();
    } catch {
      // closed
    }
  }
}

/**
 * The turn-end record of the turn that starts at byte `from` of `path`: the first line after which
 * the harness parser says the turn is no longer running. Returns its timestamp and end offset.
 */
async function turnEnd(harness: HarnessId, path: string, from: number): Promise<{ t: number; end: number }> {
  const bytes = await Deno.readFile(path);
  const text = decoder.decode(bytes.subarray(from));
  const parse = getHarness(harness)!.transcript.parseTurns;
  let offset = 0;
  let acc = "";
  for (const line of text.split("\n")) {
    acc += line + "\n";
    offset += encoder.encode(line + "\n").length;
    if (!line.trim()) continue;
    const turn = parse(acc)[0];
    if (turn && turn.status !== "running") {
      const ts = Date.parse(String(JSON.parse(line).timestamp));
      if (!Number.isFinite(ts)) throw new Error(`${harness}: turn-end record has no timestamp: ${line.slice(0, 200)}`);
      return { t: ts, end: from + offset };
    }
  }
  throw new Error(`${harness}: no turn-end record after byte ${from} of ${path}`);
}

/** A record the harness's parser ignores, about `bytes` long (a realistic line size). */
function padRecord(harness: HarnessId, bytes: number): string {
  const blob = "x".repeat(Math.max(0, bytes - 160));
  const ts = new Date().toISOString();
  return harness === "codex-cli"
    ? JSON.stringify({ timestamp: ts, type: "turn_context", payload: { cwd: "/pad", note: blob } })
    : JSON.stringify({ type: "file-history-snapshot", messageId: crypto.randomUUID(), timestamp: ts, note: blob });
}

/** Appends padding until `path` is at least `mb` MiB. */
async function padTo(harness: HarnessId, path: string, mb: number): Promise<void> {
  const want = mb * 1024 * 1024;
  const have = (await Deno.stat(path)).size;
  if (have >= want) return;
  const lines: string[] = [];
  for (let n = have; n < want; n += 4097) lines.push(padRecord(harness, 4096));
  await Deno.writeTextFile(path, lines.join("\n") + "\n", { append: true });
}

function spawnWaiter(env: Record<string, string>, wp: { executable: string; args: string[] }): Deno.ChildProcess {
  return new Deno.Command(wp.executable, {
    args: [...wp.args, "--timeout", "120"],
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** A program that watches one file's directory, says "ready", and exits on that file's first change. */
const BARE_WATCHER = `const f = Deno.args[0];
const w = Deno.watchFs(f.slice(0, f.lastIndexOf("/")), { recursive: false });
console.log("ready");
for await (const e of w) if (e.paths.includes(f)) Deno.exit(0);
`;

/**
 * The floor of "a waiting process exits": a bare Deno process that does nothing but watch, started and
 * ready before one line is appended to `file`; returns append → its exit (ms).
 */
async function bareProcessExit(script: string, file: string): Promise<number> {
  await Deno.writeTextFile(file, "");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, file],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  await reader.read();
  const t0 = epochNow();
  await Deno.writeTextFile(file, "{}\n", { append: true });
  while (!(await reader.read()).done) {
    // drain
  }
  await withTimeout(child.status, 30_000, "bare watcher process");
  return epochNow() - t0;
}

/** What one measured turn needs. */
interface TurnContext {
  server: Aiterm;
  env: Record<string, string>;
  harness: HarnessId;
  id: string;
  transcript: string;
  watch: BareWatch;
  /** The bare watcher program and the directory of its scratch file. */
  bareScript: string;
  bareDir: string;
}

/** Runs one SLOW turn and measures it. */
async function measureTurn(c: TurnContext, label: string): Promise<Sample> {
  const { server, env, harness, id, transcript, watch } = c;
  const from = (await Deno.stat(transcript)).size;
  const r = await server.call<Receipt>("pty_send", { wait: false, session_id: id, text: `SLOW ${label}` });
  if (r.event_cursor === null || !r.wait_process) throw new Error(`${harness}: pty_send did not start a turn`);
  const tSpawn = epochNow();
  const child = spawnWaiter(env, r.wait_process);
  const out = await withTimeout(child.output(), 130_000, `${harness} waiter`);
  const tExit = epochNow();
  const verdict = decoder.decode(out.stdout).trim();
  if (out.code !== 0) {
    throw new Error(`${harness}: waiter exited ${out.code}: ${verdict} ${decoder.decode(out.stderr)}`);
  }
  const a = await server.call<{ text: string }>("pty_read", {
    session_id: id,
    agent_transcript: true,
    cursor: r.event_cursor,
  });
  const tAnswer = epochNow();
  if (!a.text.includes("ANSWER(")) throw new Error(`${harness}: unexpected answer ${JSON.stringify(a.text)}`);
  const end = await turnEnd(harness, transcript, from);
  const seen = watch.firstAtLeast(end.end);
  const bareExit = await bareProcessExit(c.bareScript, join(c.bareDir, "scratch.jsonl"));
  return {
    watch: seen === null ? Number.NaN : Math.max(0, seen - end.t),
    bareExit,
    waiter: tExit - end.t,
    answer: tAnswer - end.t,
    read: tAnswer - tExit,
    lead: end.t - tSpawn,
  };
}

/** Launches `harness`, runs its turns, returns the samples (small transcript, then padded). */
async function benchHarness(
  server: Aiterm,
  env: Record<string, string>,
  stateDir: string,
  root: string,
  harness: HarnessId,
): Promise<{ small: Sample[]; big: Sample[]; bigBytes: number; finishedWait: number[]; sample: string }> {
  const cwd = join(root, `proj-${harness}`);
  await Deno.mkdir(cwd);
  const l = await server.call<Receipt>(
    "agent_launch",
    { harness, cwd, trust_project: true, prompt: "warm-up" },
    120_000,
  );
  if (!l.wait_process) throw new Error(`${harness}: agent_launch gave no wait_process`);
  const warm = await spawnWaiter(env, l.wait_process).output();
  if (warm.code !== 0) throw new Error(`${harness}: warm-up waiter exited ${warm.code}`);
  const rec = await readAgentRecord(join(stateDir, "sessions", l.session_id));
  const transcript = rec?.transcript_path;
  if (!transcript) throw new Error(`${harness}: the transcript was not pinned after the first turn`);
  using watch = new BareWatch(transcript);
  const bareScript = join(root, "bare_watcher.ts");
  await Deno.writeTextFile(bareScript, BARE_WATCHER);
  const ctx: TurnContext = { server, env, harness, id: l.session_id, transcript, watch, bareScript, bareDir: root };
  const small: Sample[] = [];
  for (let i = 0; i < flags.turns; i++) {
    small.push(await measureTurn(ctx, `turn ${i}`));
  }
  // The reader-cost rows start from a copy of this small, finished transcript.
  const sample = join(root, `sample-${harness}.jsonl`);
  await Deno.copyFile(transcript, sample);
  // A parent that starts the waiter after the turn ended: process start plus one check.
  const finishedWait: number[] = [];
  const last = await server.call<Receipt>("pty_send", { wait: false, session_id: l.session_id, text: "finished turn" });
  if (!last.wait_process) throw new Error(`${harness}: no wait_process`);
  await spawnWaiter(env, last.wait_process).output();
  for (let i = 0; i < 5; i++) {
    const t0 = epochNow();
    const o = await spawnWaiter(env, last.wait_process).output();
    if (o.code === 0) finishedWait.push(epochNow() - t0);
  }
  let big: Sample[] = [];
  let bigBytes = 0;
  if (flags["big-turns"] > 0 && flags["big-mb"] > 0) {
    await padTo(harness, transcript, flags["big-mb"]);
    bigBytes = (await Deno.stat(transcript)).size;
    big = [];
    for (let i = 0; i < flags["big-turns"]; i++) {
      big.push(
        await measureTurn(ctx, `big turn ${i}`),
      );
    }
  }
  await server.call("pty_close", { session_id: l.session_id }).catch(() => {});
  return { small, big, bigBytes, finishedWait, sample };
}

// ── a Claude Code parent: the answer delivered by itself ──────────────────────────────────────────

const MAIN = new URL("../main.ts", import.meta.url);

/** Runs `aiterm-mcp hook <name>` the way Claude Code does (JSON on stdin); resolves with its exit code and stderr. */
function runHook(env: Record<string, string>, name: string, input: unknown): Promise<{ code: number; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN.pathname, "hook", name],
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  void w.write(encoder.encode(JSON.stringify(input))).then(() => w.close());
  return child.output().then((o) => ({ code: o.code, stderr: decoder.decode(o.stderr) }));
}

/**
 * A claude-code child driven by a Claude Code parent (the SDK client named "claude-code", aiterm's hooks
 * installed): each turn is PreToolUse, `pty_send` with the tool call's id in `_meta`, then the
 * PostToolUse hook, which exits 2 with the answer on stderr once the child's turn has ended. Returns
 * turn end → that hook's exit, per turn, and dialog on screen → notice hook's exit, per notice turn.
 */
async function benchClaudeParent(
  env: Record<string, string>,
  home: string,
  root: string,
): Promise<{ answers: number[]; notices: number[] }> {
  await installClaudeParentHooks(serverCommand(Deno.execPath(), false, MAIN.href), { env, home, dryRun: false });
  const parent = await startAiterm(env, "claude-code");
  onCleanup("claude-code parent connection", () => parent.close());
  const cwd = join(root, "proj-parent");
  await Deno.mkdir(cwd);
  const call = async (tool: string, args: Record<string, unknown>, toolUseId: string) => {
    const pre = await runHook(env, "claude-pre-tool-use", {
      session_id: "conv-bench",
      hook_event_name: "PreToolUse",
      tool_name: `mcp__aiterm__${tool}`,
      tool_input: {},
      tool_use_id: toolUseId,
    });
    if (pre.code !== 0) throw new Error(`PreToolUse exited ${pre.code}: ${pre.stderr}`);
    const r = await parent.client.callTool(
      { name: tool, arguments: args, _meta: { "claudecode/toolUseId": toolUseId } },
      undefined,
      { timeout: 120_000 },
    );
    if (r.isError) throw new Error(`${tool} failed: ${JSON.stringify(r.content)}`);
    return r.structuredContent as unknown as Receipt;
  };
  const post = (toolUseId: string) =>
    runHook(env, "claude-post-tool-use", {
      session_id: "conv-bench",
      hook_event_name: "PostToolUse",
      tool_name: "mcp__aiterm__pty_send",
      tool_use_id: toolUseId,
      tool_response: [{ type: "text", text: "dispatched" }],
    });
  const l = await call(
    "agent_launch",
    { harness: "claude-code", cwd, trust_project: true, prompt: "warm-up" },
    "toolu_bench_0",
  );
  const warm = await post("toolu_bench_0");
  if (warm.code !== 2) throw new Error(`warm-up PostToolUse exited ${warm.code}: ${warm.stderr}`);
  const rec = await readAgentRecord(join(env.AITERM_STATE_DIR!, "sessions", l.session_id));
  const transcript = rec?.transcript_path;
  if (!transcript) throw new Error("claude-code parent: the transcript was not pinned");
  const out: number[] = [];
  for (let i = 1; i <= flags.turns; i++) {
    const id = `toolu_bench_${i}`;
    const from = (await Deno.stat(transcript)).size;
    await call("pty_send", { wait: false, session_id: l.session_id, text: `SLOW parent turn ${i}` }, id);
    const hook = await post(id);
    const tExit = epochNow();
    if (hook.code !== 2 || !hook.stderr.includes("ANSWER(")) {
      throw new Error(`PostToolUse exited ${hook.code}: ${hook.stderr}`);
    }
    out.push(tExit - (await turnEnd("claude-code", transcript, from)).t);
  }
  const notices: number[] = [];
  for (let i = 1; i <= flags.notices; i++) {
    const id = `toolu_bench_n${i}`;
    const sent = Date.now();
    await call("pty_send", { session_id: l.session_id, text: `PERM notice turn ${i}` }, id);
    const hook = await post(id);
    const tExit = epochNow();
    const m = /^Answer with agent_approval (\{.*\}) \(pick one choice id\)\.$/m.exec(hook.stderr);
    if (hook.code !== 2 || !hook.stderr.includes("blocked (approval_required)") || !m) {
      throw new Error(`notice PostToolUse exited ${hook.code}: ${hook.stderr}`);
    }
    notices.push(tExit - await dialogShownAt(home, sent));
    const args = { ...JSON.parse(m[1]!), approval_choice: "approve_once" };
    const aid = `toolu_bench_a${i}`;
    await call("agent_approval", args, aid);
    const answer = await runHook(env, "claude-post-tool-use", {
      session_id: "conv-bench",
      hook_event_name: "PostToolUse",
      tool_name: "mcp__aiterm__agent_approval",
      tool_input: args,
      tool_use_id: aid,
    });
    if (answer.code !== 2 || !answer.stderr.includes(`ANSWER(PERM notice turn ${i})`)) {
      throw new Error(`agent_approval's PostToolUse exited ${answer.code}: ${answer.stderr}`);
    }
  }
  await parent.call("pty_close", { session_id: l.session_id }).catch(() => {});
  return { answers: out, notices };
}

/**
 * When the fake claude drew its permission dialog: the `updatedAt` of the status file it writes just
 * before (status `waiting`), the newest one at or after `since`.
 */
async function dialogShownAt(home: string, since: number): Promise<number> {
  const dir = join(home, ".claude", "sessions");
  let best = NaN;
  for await (const e of Deno.readDir(dir)) {
    const s = JSON.parse(await Deno.readTextFile(join(dir, e.name)).catch(() => "{}"));
    if (s.status === "waiting" && s.updatedAt >= since && !(s.updatedAt <= best)) best = s.updatedAt;
  }
  if (!Number.isFinite(best)) throw new Error("the fake claude wrote no waiting status for the dialog");
  return best;
}

// ── the transcript reader's per-check cost ────────────────────────────────────────────────────────

interface CheckCost {
  bytes: number;
  first: number;
  steady: Stats;
}

/** `loadTurns` on `path`: the first check, then `checks` checks each after one appended record. */
async function checkCost(harness: HarnessId, path: string, cwd: string, env: Record<string, string>) {
  const adapter = getHarness(harness)!;
  const rec: AgentRecord = {
    schema: "aiterm.agent.v1",
    launch_id: "bench",
    harness,
    session_id: "bench",
    cwd,
    created_at_ms: Date.now(),
    pinned_session_id: null,
    transcript_path: path,
    lineage: {
      agent_role: "subagent",
      parent_session_id: null,
      delegation_depth: 1,
      lineage: [],
      delegation_allowed: true,
    },
    preface_pending: false,
    model: null,
    reasoning_effort: null,
    write_scope: null,
    launch_operation_id: null,
    active_turn: null,
  };
  // The process's readers, as lib/app.ts builds them once (a fresh one per call would re-read the whole file).
  const readers = new TranscriptReaders();
  const t0 = performance.now();
  const turns0 = (await loadTurns(adapter, rec, { env, readers })).turns.length;
  const first = performance.now() - t0;
  const xs: number[] = [];
  for (let i = 0; i < flags.checks; i++) {
    await Deno.writeTextFile(path, padRecord(harness, 300) + "\n", { append: true });
    const t = performance.now();
    const n = (await loadTurns(adapter, rec, { env, readers })).turns.length;
    xs.push(performance.now() - t);
    if (n !== turns0) throw new Error(`${harness}: padding changed the turn count (${turns0} → ${n})`);
  }
  return { bytes: (await Deno.stat(path)).size, first, steady: summarize(xs) } satisfies CheckCost;
}

// ── main ──────────────────────────────────────────────────────────────────────────────────────────

await runMain("bench/agent", async () => {
  console.log(
    `agent: ${HARNESSES.join(", ")} (fake CLIs), ${flags.turns} turns + ${flags["big-turns"]} at ${
      flags["big-mb"]
    } MB, turn ${flags["turn-ms"]} ms, ${await environmentLine()}`,
  );
  const t = await makeTestEnv();
  onCleanup("aiterm tmux server + state dir", () => t[Symbol.asyncDispose]());
  Object.assign(t.env, {
    CLAUDE_BIN: `${FIXTURE_BIN}claude`,
    CODEX_BIN: `${FIXTURE_BIN}codex`,
    CODEX_HOME: `${t.home}/.codex`,
    FAKE_SLOW_MS: String(flags["turn-ms"]),
  });
  const server = await startAiterm(t.env, "aiterm-bench-agent");
  onCleanup("aiterm MCP server", () => server.close());
  onFailureReport(() => `aiterm server stderr (tail):\n${server.stderrTail()}`);

  const rows: string[][] = [];
  const verdicts: string[] = [];
  const samples = new Map<HarnessId, string>();
  let late = 0;
  let processFloor: Stats | null = null;
  const row = (h: string, what: string, s: Stats, base: Stats | null) => {
    rows.push([
      `${h}: ${what}`,
      String(s.n),
      ms(s.median),
      ms(s.p95),
      ms(s.max),
      base ? ratio(s.median, base.median) : "",
    ]);
  };
  for (const harness of HARNESSES) {
    const r = await benchHarness(server, t.env, t.stateDir, t.root, harness);
    // A waiter still starting when its turn ended measures its start-up, not its wake-up.
    const startup = summarize(r.finishedWait).median;
    late += [...r.small, ...r.big].filter((s) => !(s.lead > startup)).length;
    const watch = summarize(r.small.map((s) => s.watch).filter(Number.isFinite));
    const waiter = summarize(r.small.map((s) => s.waiter));
    const bare = summarize(r.small.map((s) => s.bareExit));
    processFloor ??= bare;
    row(harness, "bare Deno.watchFs sees the turn-end record (floor)", watch, null);
    row(harness, "bare watching process: append → exit (process floor)", bare, null);
    row(harness, "turn end → aiterm-wait exits", waiter, bare);
    row(harness, "turn end → pty_read(agent_transcript) answered", summarize(r.small.map((s) => s.answer)), bare);
    row(harness, "  of which the pty_read call", summarize(r.small.map((s) => s.read)), null);
    row(harness, "aiterm-wait started after the turn ended (start + 1 check)", summarize(r.finishedWait), null);
    if (r.big.length > 0) {
      const mb = (r.bigBytes / 1024 / 1024).toFixed(1);
      const bw = summarize(r.big.map((s) => s.bareExit));
      row(
        harness,
        `${mb} MB transcript: bare Deno.watchFs sees the record`,
        summarize(r.big.map((s) => s.watch).filter(Number.isFinite)),
        null,
      );
      row(harness, `${mb} MB transcript: turn end → aiterm-wait exits`, summarize(r.big.map((s) => s.waiter)), bw);
      row(harness, `${mb} MB transcript: turn end → pty_read answered`, summarize(r.big.map((s) => s.answer)), bw);
    }
    verdicts.push(
      `${harness}: turn end → aiterm-wait exit median ${ms(waiter.median)} ms < ${TARGET_MS} ms: ${
        waiter.median < TARGET_MS ? "PASS" : "FAIL"
      }`,
    );
    samples.set(harness, r.sample);
  }
  if (flags.turns > 0) {
    const parent = await benchClaudeParent(t.env, t.home, t.root);
    const delivered = summarize(parent.answers);
    row("claude-code", "Claude Code parent: turn end → PostToolUse hook delivers (exit 2)", delivered, processFloor);
    if (parent.notices.length > 0) {
      row(
        "claude-code",
        "Claude Code parent: dialog on screen → notice handed (PostToolUse exit 2)",
        summarize(parent.notices),
        null,
      );
    }
  }
  console.log("");
  printTable(["harness: path", "n", "median ms", "p95 ms", "max ms", "× process floor"], rows);
  console.log("");
  for (const v of verdicts) console.log(`target: ${v}`);
  if (late > 0) {
    console.log(`note: ${late} waiter(s) may still have been starting when their turn ended (raise --turn-ms)`);
  }

  // Reader cost: a small transcript (a copy of this run's, after --turns turns) and the same padded to --big-mb.
  console.log("");
  const costRows: string[][] = [];
  for (const harness of HARNESSES) {
    const src = samples.get(harness)!;
    const small = join(t.root, `small-${harness}.jsonl`);
    const big = join(t.root, `big-${harness}.jsonl`);
    await Deno.copyFile(src, small);
    await Deno.copyFile(src, big);
    await padTo(harness, big, Math.max(1, flags["big-mb"]));
    const cs = await checkCost(harness, small, t.root, t.env);
    const cb = await checkCost(harness, big, t.root, t.env);
    const kb = (b: number) => b < 1024 * 1024 ? `${(b / 1024).toFixed(0)} KB` : `${(b / 1024 / 1024).toFixed(1)} MB`;
    costRows.push([
      `${harness}: first check`,
      kb(cs.bytes),
      ms(cs.first),
      kb(cb.bytes),
      ms(cb.first),
      ratio(cb.first, cs.first),
    ]);
    costRows.push([
      `${harness}: per check after an append (median of ${flags.checks})`,
      "",
      ms(cs.steady.median),
      "",
      ms(cb.steady.median),
      ratio(cb.steady.median, cs.steady.median),
    ]);
  }
  console.log(
    "transcript reader cost per check: loadTurns() of lib/agent/turns.ts (what the waiter and dispatch call)",
  );
  printTable(["harness: check", "small", "ms", "big", "ms", "big/small"], costRows);
  return 0;
});

function ratio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(1)}×` : "n/a";
}
