// deno-lint-ignore-file no-console
/**
 * Fan-out: many sessions through one aiterm MCP server at once, against bare tmux doing the same work
 * in the same run, then a large fan-out that must simply complete within a memory budget.
 *
 *   deno run -A bench/fanout.ts [--sessions 50] [--rounds 3] [--big 200] [--sleep-ms 200] [--timeout 30]
 *
 * Part 1 (`--sessions` at once, `--rounds` times): for every session at once, aiterm sends
 * `sleep 0.2; echo done-<i>` (`--sleep-ms`; `pty_send`) and waits for it (`pty_read({wait:true})`). Bare tmux does the
 * same commands on its own private socket with a `send-keys` and a `wait-for` client per session. On both sides a
 * session's latency runs from the fan-out's start (everything is started at once) to the moment its result is known.
 * The bare side's latency from each round trip's own start is printed for reference: that start comes only once the
 * clients before it were spawned (each spawn blocks this process), so it leaves out the wait for its own client.
 * Bare tmux runs `bash --norc --noprofile`. Both sides are warmed up first (one
 * round trip per session, not measured) and the rounds alternate which side goes first, so drift
 * and a busy machine weigh on both alike. The p50/p95 ratios are over all rounds' samples.
 *
 * Part 2 (`--big` sessions, 0 skips it): the same fan-out once with that many aiterm sessions; every
 * completion must arrive; the server's peak RSS (VmHWM, and the max of /proc VmRSS sampled every 50 ms)
 * is printed against the target.
 *
 * CPU lines say where the time went (utime+stime from /proc): the aiterm server, the tmux servers, and
 * the bare side's tmux clients (children of this process). Exits 0 unless something crashed or a
 * completion was missed.
 */
import {
  type Aiterm,
  BareTmux,
  type CloseOut,
  environmentLine,
  makeTestEnv,
  mapLimit,
  mb,
  ms,
  onCleanup,
  onFailureReport,
  type OpenOut,
  parseIntFlags,
  printTable,
  procStatusKb,
  type ReadOut,
  resolveServerPid,
  RssSampler,
  runMain,
  type SendOut,
  startAiterm,
  type Stats,
  summarize,
} from "./_common.ts";

const USAGE = "deno run -A bench/fanout.ts [--sessions 50] [--rounds 3] [--big 200] [--sleep-ms 200] [--timeout 30]";
const flags = parseIntFlags({ sessions: 50, rounds: 3, big: 200, "sleep-ms": 200, timeout: 30 }, USAGE);
const P95_TARGET_RATIO = 1.2;
const RSS_TARGET_MB = 200;
const OPEN_CONCURRENCY = 8;
const SLEEP_MS = flags["sleep-ms"];
const command = (i: number) => `sleep ${SLEEP_MS / 1000}; echo done-${i}`;

interface Outcome {
  latency: number;
  send: number;
  read: number;
  complete: boolean;
  via: string;
  outputOk: boolean;
  error: string | null;
}

/** CPU time (user+system, ms) of a process and of its waited-for children, from /proc/<pid>/stat. */
function cpuMs(pid: number | "self"): { own: number; children: number } {
  try {
    // Fields after the command name: state is [0], utime [11], stime [12], cutime [13], cstime [14] (clock ticks).
    const f = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ").pop()!.split(" ");
    const tick = 1000 / CLK_TCK;
    return { own: (Number(f[11]) + Number(f[12])) * tick, children: (Number(f[13]) + Number(f[14])) * tick };
  } catch {
    return { own: Number.NaN, children: Number.NaN };
  }
}

/** Clock ticks per second (getconf CLK_TCK; 100 where it cannot be asked). */
const CLK_TCK = (() => {
  try {
    const out = new Deno.Command("getconf", { args: ["CLK_TCK"], stdout: "piped", stderr: "null" }).outputSync();
    const n = Number(new TextDecoder().decode(out.stdout).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
})();

/** Accumulates CPU deltas of named processes over measured phases. */
class CpuMeter {
  readonly totals = new Map<string, number>();
  /** Runs `fn`, adding each process's CPU delta (own, or children with `kind: "children"`) to its total. */
  async measure<T>(
    procs: Array<{ name: string; pid: number | "self"; kind?: "own" | "children" }>,
    fn: () => Promise<T>,
  ): Promise<T> {
    const before = procs.map((p) => cpuMs(p.pid));
    try {
      return await fn();
    } finally {
      procs.forEach((p, i) => {
        const after = cpuMs(p.pid)[p.kind ?? "own"];
        const d = after - before[i]![p.kind ?? "own"];
        this.totals.set(p.name, (this.totals.get(p.name) ?? 0) + d);
      });
    }
  }
  line(rounds: number): string {
    return [...this.totals].map(([k, v]) => `${k} ${ms(v / rounds)} ms`).join(", ");
  }
}

/** One aiterm fan-out: every session's send → read(wait) at once. */
async function aitermFanout(server: Aiterm, ids: string[]): Promise<{ outcomes: Outcome[]; wall: number }> {
  const callTimeout = (flags.timeout + 30) * 1000;
  const t = performance.now();
  const outcomes = await Promise.all(ids.map(async (id, i): Promise<Outcome> => {
    // From the fan-out's start, as the bare side's `lat` (each request leaves within a few ms of it anyway).
    const t0 = t;
    let t1 = t0;
    try {
      await server.call<SendOut>("pty_send", { wait: false, session_id: id, text: command(i) }, callTimeout);
      t1 = performance.now();
      const r = await server.call<ReadOut>(
        "pty_read",
        { session_id: id, wait: true, timeout: flags.timeout },
        callTimeout,
      );
      const t2 = performance.now();
      return {
        latency: t2 - t0,
        send: t1 - t0,
        read: t2 - t1,
        complete: r.is_complete === true,
        via: String(r.via),
        outputOk: new RegExp(`^done-${i}\\r?$`, "m").test(r.text),
        error: null,
      };
    } catch (err) {
      const t2 = performance.now();
      return {
        latency: t2 - t0,
        send: t1 - t0,
        read: t2 - t1,
        complete: false,
        via: "error",
        outputOk: false,
        error: (err as Error).message,
      };
    }
  }));
  return { outcomes, wall: performance.now() - t };
}

/**
 * One bare fan-out over sessions b0..b<n-1>. `lat`: from the fan-out's start to each session's end (what the aiterm
 * side measures: its fifty requests leave at once); `own`: from each round trip's own start, which comes only once
 * the tmux clients before it were spawned (a spawn blocks this process for a millisecond or more).
 */
async function bareFanout(
  bare: BareTmux,
  n: number,
  round: number,
): Promise<{ lat: number[]; own: number[]; errors: string[] }> {
  const errors: string[] = [];
  const t = performance.now();
  const runs = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        bare.roundTrip(`b${i}`, command(i), `ch_${round}_${i}`, flags.timeout * 1000).then(
          (own) => ({ own, lat: performance.now() - t }),
          (err: Error) => {
            errors.push(`b${i}: ${err.message}`);
            return null;
          },
        ),
    ),
  );
  const done = runs.filter((x) => x !== null);
  return { lat: done.map((x) => x.lat), own: done.map((x) => x.own), errors };
}

/** Opens `n` aiterm sessions named `<prefix><i>` (bounded concurrency: opening is not what is measured). */
async function openSessions(server: Aiterm, root: string, prefix: string, n: number) {
  const t = performance.now();
  const openOne = (i: number) =>
    server.call<OpenOut>("pty_open", { name: `${prefix}${i}`, cwd: root, shell: "bash" }, 120_000);
  // The first alone: it starts the tmux server (concurrent opens on a fresh server are not what is measured).
  const opened = [await openOne(0)];
  opened.push(...await mapLimit(Array.from({ length: n - 1 }, (_, i) => i + 1), OPEN_CONCURRENCY, openOne));
  return {
    ids: opened.map((o) => o.session_id),
    ready: opened.filter((o) => o.shell_ready === true).length,
    ms: performance.now() - t,
  };
}

async function closeSessions(server: Aiterm, ids: string[]): Promise<number> {
  const closes = await mapLimit(
    ids,
    OPEN_CONCURRENCY,
    (id) => server.call<CloseOut>("pty_close", { session_id: id }, 60_000).catch(() => null),
  );
  return closes.filter((c) => c?.outcome === "closed").length;
}

function ratio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : "n/a";
}

function completionLine(outcomes: Outcome[]): string {
  const vias = new Map<string, number>();
  for (const o of outcomes) vias.set(`${o.complete}/${o.via}`, (vias.get(`${o.complete}/${o.via}`) ?? 0) + 1);
  const done = outcomes.filter((o) => o.complete).length;
  return `completion: ${done}/${outcomes.length} is_complete=true (${
    [...vias].map(([k, v]) => `${k}: ${v}`).join(", ")
  }); output has done-<i>: ${outcomes.filter((o) => o.outputOk).length}/${outcomes.length}`;
}

function statRow(label: string, done: string, s: Stats, wall: string, base: Stats | null): string[] {
  return [
    label,
    done,
    ms(s.median),
    ms(s.p95),
    ms(s.max),
    wall,
    base ? ratio(s.median, base.median) : "",
    base ? ratio(s.p95, base.p95) : "",
  ];
}

await runMain("bench/fanout", async () => {
  const n = flags.sessions;
  if (n < 1) throw new Error("--sessions must be at least 1");
  if (flags.rounds < 1) throw new Error("--rounds must be at least 1");
  console.log(
    `fanout: ${n} sessions × ${flags.rounds} rounds, then ${flags.big} sessions once; command "${
      command(0).replace("-0", "-<i>")
    }", ${await environmentLine()}`,
  );

  const env = await makeTestEnv();
  onCleanup("aiterm tmux server + state dir", () => env[Symbol.asyncDispose]());
  const bare = await BareTmux.create();
  onCleanup("bare tmux server", () => bare.dispose());
  const server: Aiterm = await startAiterm(env.env, "aiterm-bench-fanout");
  onCleanup("aiterm MCP server", () => server.close());
  onFailureReport(() => `aiterm server stderr (tail):\n${server.stderrTail()}`);
  console.log(`transport: AITERM_TMUX_TRANSPORT=${env.env.AITERM_TMUX_TRANSPORT ?? "(unset: the default)"}`);

  const proc = resolveServerPid(server.pid, server.argv);
  const sampler = new RssSampler(proc.pid, 50);
  onCleanup("RSS sampler", () => Promise.resolve(sampler.stop()));
  const rssIdle = procStatusKb(proc.pid, "VmRSS");

  // ── part 1: n sessions, side by side with bare tmux ──
  const open = await openSessions(server, env.root, "f", n);
  await bare.newSession("b0");
  await mapLimit(Array.from({ length: n - 1 }, (_, i) => i + 1), OPEN_CONCURRENCY, (i) => bare.newSession(`b${i}`));
  // Warm-up, not measured: one round trip per session on both sides.
  await mapLimit(open.ids, OPEN_CONCURRENCY, async (id) => {
    await server.call("pty_send", { wait: false, session_id: id, text: "true" });
    await server.call("pty_read", { session_id: id, wait: true, timeout: flags.timeout });
  });
  await mapLimit(
    Array.from({ length: n }, (_, i) => i),
    OPEN_CONCURRENCY,
    (i) => bare.roundTrip(`b${i}`, "true", `ready_${i}`, 15_000),
  );
  const tmuxPid = Number((await env.tmux("display-message", "-p", "#{pid}")).stdout.trim());
  const bareTmuxPid = Number((await bare.tmux(["display-message", "-p", "#{pid}"])).stdout.trim());
  const cpuA = new CpuMeter();
  const cpuB = new CpuMeter();
  const outcomes: Outcome[] = [];
  const bareLat: number[] = [];
  const bareOwn: number[] = [];
  const bareErrors: string[] = [];
  const walls = { aiterm: [] as number[], bare: [] as number[] };
  for (let round = 0; round < flags.rounds; round++) {
    const runA = () =>
      cpuA.measure([{ name: "aiterm server", pid: proc.pid }, { name: "its tmux server", pid: tmuxPid }], async () => {
        const r = await aitermFanout(server, open.ids);
        outcomes.push(...r.outcomes);
        walls.aiterm.push(r.wall);
      });
    const runB = () =>
      cpuB.measure([
        { name: "bare tmux server", pid: bareTmuxPid },
        { name: "bare tmux clients", pid: "self", kind: "children" },
      ], async () => {
        const t = performance.now();
        const r = await bareFanout(bare, n, round);
        walls.bare.push(performance.now() - t);
        bareLat.push(...r.lat);
        bareOwn.push(...r.own);
        bareErrors.push(...r.errors);
      });
    if (round % 2 === 0) {
      await runA();
      await runB();
    } else {
      await runB();
      await runA();
    }
  }
  const rssPart1 = procStatusKb(proc.pid, "VmRSS");
  const closed = await closeSessions(server, open.ids);
  for (let i = 0; i < n; i++) await bare.tmux(["kill-session", "-t", `=b${i}`]).catch(() => {});

  const done = outcomes.filter((o) => o.complete);
  const a = summarize(done.map((o) => o.latency));
  const b = summarize(bareLat);
  const wallA = summarize(walls.aiterm);
  const wallB = summarize(walls.bare);
  console.log("");
  console.log(`part 1: ${n} sessions at once, ${flags.rounds} rounds (samples pooled)`);
  printTable(["method", "completed", "p50 ms", "p95 ms", "max ms", "wall ms (median)", "p50 ×bare", "p95 ×bare"], [
    statRow("aiterm: pty_send + pty_read(wait) via MCP", `${done.length}/${outcomes.length}`, a, ms(wallA.median), b),
    statRow("  of which pty_send call", "", summarize(outcomes.map((o) => o.send)), "", null),
    statRow("  of which pty_read(wait) call", "", summarize(done.map((o) => o.read)), "", null),
    statRow("bare tmux: send-keys + wait-for", `${bareLat.length}/${n * flags.rounds}`, b, ms(wallB.median), null),
    statRow(
      "  bare, from each client's own start (reference)",
      "",
      summarize(bareOwn),
      "",
      null,
    ),
    [`floor: the command sleeps ${SLEEP_MS} ms (reference constant)`, "", ms(SLEEP_MS), ms(SLEEP_MS), "", "", "", ""],
  ]);
  console.log(completionLine(outcomes));
  console.log(`CPU per round: aiterm side: ${cpuA.line(flags.rounds)}; bare side: ${cpuB.line(flags.rounds)}`);
  console.log(
    `sessions: opened ${n} in ${ms(open.ms)} ms (shell_ready ${open.ready}/${n}, ${OPEN_CONCURRENCY} at a time); ` +
      `closed ${closed}/${n}`,
  );
  const p95Ratio = a.p95 / b.p95;
  console.log(
    `target: ${n} sessions p95 ≤ ${P95_TARGET_RATIO}× bare tmux: ${
      Number.isFinite(p95Ratio) && p95Ratio <= P95_TARGET_RATIO ? "PASS" : "FAIL"
    } (${ratio(a.p95, b.p95)}; p50 ${ratio(a.median, b.median)})`,
  );

  // ── part 2: a large fan-out, aiterm only ──
  let bigMissed = 0;
  if (flags.big > 0) {
    const big = await openSessions(server, env.root, "g", flags.big);
    const rssOpen = procStatusKb(proc.pid, "VmRSS");
    const cpuBig = new CpuMeter();
    // The tmux server may have exited with part 1's last session: ask again.
    const bigTmuxPid = Number((await env.tmux("display-message", "-p", "#{pid}")).stdout.trim());
    const r = await cpuBig.measure(
      [{ name: "aiterm server", pid: proc.pid }, { name: "its tmux server", pid: bigTmuxPid }],
      () => aitermFanout(server, big.ids),
    );
    const rssFan = procStatusKb(proc.pid, "VmRSS");
    const bigClosed = await closeSessions(server, big.ids);
    const bigDone = r.outcomes.filter((o) => o.complete);
    bigMissed = flags.big - bigDone.length;
    const s = summarize(bigDone.map((o) => o.latency));
    console.log("");
    console.log(`part 2: ${flags.big} sessions at once (aiterm only)`);
    printTable(["method", "completed", "p50 ms", "p95 ms", "max ms", "wall ms"], [
      [
        "aiterm: pty_send + pty_read(wait) via MCP",
        `${bigDone.length}/${flags.big}`,
        ms(s.median),
        ms(s.p95),
        ms(s.max),
        ms(r.wall),
      ],
      [
        "  of which pty_send",
        "",
        ms(summarize(r.outcomes.map((o) => o.send)).median),
        ms(summarize(r.outcomes.map((o) => o.send)).p95),
        "",
        "",
      ],
      [
        "  of which pty_read(wait)",
        "",
        ms(summarize(bigDone.map((o) => o.read)).median),
        ms(summarize(bigDone.map((o) => o.read)).p95),
        "",
        "",
      ],
    ]);
    console.log(completionLine(r.outcomes));
    console.log(`CPU: ${cpuBig.line(1)}`);
    console.log(
      `sessions: opened ${flags.big} in ${
        ms(big.ms)
      } ms (shell_ready ${big.ready}/${flags.big}); closed ${bigClosed}/${flags.big}; ` +
        `RSS after open ${mb(rssOpen)} MB, after fan-out ${mb(rssFan)} MB`,
    );
    for (const o of r.outcomes.filter((o) => o.error).slice(0, 5)) console.error(`error: ${o.error}`);
  }
  sampler.stop();
  const hwm = procStatusKb(proc.pid, "VmHWM");
  const peakKb = Math.max(hwm, sampler.maxKb);
  console.log("");
  console.log(
    `server pid ${proc.pid} (${proc.note}): RSS idle ${mb(rssIdle)} MB, after part 1 ${mb(rssPart1)} MB; ` +
      `max sampled VmRSS ${mb(sampler.maxKb)} MB (${sampler.samples} samples @50 ms); VmHWM ${mb(hwm)} MB`,
  );
  const pass = Number.isFinite(peakKb) && peakKb > 0 && peakKb < RSS_TARGET_MB * 1024;
  console.log(`target: peak RSS under ${RSS_TARGET_MB} MB: ${pass ? "PASS" : "FAIL"} (${mb(peakKb)} MB)`);

  const errors = [
    ...outcomes.map((o, i) => (o.error ? `f${i % n}: ${o.error}` : null)).filter((e) => e !== null),
    ...bareErrors,
  ];
  for (const e of errors.slice(0, 5)) console.error(`error: ${e}`);
  if (errors.length > 5) console.error(`error: … and ${errors.length - 5} more`);
  if (done.length < outcomes.length || bigMissed > 0) {
    console.error(`error: ${outcomes.length - done.length + bigMissed} aiterm completions were missed`);
    return 1;
  }
  return 0;
});
