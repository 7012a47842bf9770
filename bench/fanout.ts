// deno-lint-ignore-file no-console
/**
 * Fan-out: many sessions through one aiterm MCP server at once, against bare tmux in the same run.
 *
 *   deno run -A bench/fanout.ts [--sessions 50] [--timeout 30]
 *
 * aiterm: opens N bash sessions through one MCP client, then for every session at once sends
 * `sleep 0.2; echo done-<i>` and reads with `pty_read({wait:true, timeout})`; latency is from the
 * send call to the completed read. The server's memory is sampled (/proc VmRSS every 50 ms) and its
 * VmHWM read at the end. Baseline: the same N commands through bare tmux send-keys + wait-for on a
 * private socket (`bash --norc --noprofile`). Exits 0 unless something crashed or a completion was
 * missed.
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
  summarize,
} from "./_common.ts";

const USAGE = "deno run -A bench/fanout.ts [--sessions 50] [--timeout 30]";
const flags = parseIntFlags({ sessions: 50, timeout: 30 }, USAGE);
const RSS_TARGET_MB = 150;
const OPEN_CONCURRENCY = 8;
const SLEEP_MS = 200;
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

await runMain("bench/fanout", async () => {
  const n = flags.sessions;
  if (n < 1) throw new Error("--sessions must be at least 1");
  console.log(`fanout: ${n} sessions, command "${command(0).replace("-0", "-<i>")}", ${await environmentLine()}`);

  const env = await makeTestEnv();
  onCleanup("aiterm tmux server + state dir", () => env[Symbol.asyncDispose]());
  const bare = await BareTmux.create();
  onCleanup("bare tmux server", () => bare.dispose());
  const server: Aiterm = await startAiterm(env.env, "aiterm-bench-fanout");
  onCleanup("aiterm MCP server", () => server.close());
  onFailureReport(() => `aiterm server stderr (tail):\n${server.stderrTail()}`);

  const proc = resolveServerPid(server.pid, server.argv);
  const sampler = new RssSampler(proc.pid, 50);
  onCleanup("RSS sampler", () => Promise.resolve(sampler.stop()));
  const rssIdle = procStatusKb(proc.pid, "VmRSS");

  // Open the sessions (bounded concurrency: opening is not what is measured).
  const tOpen = performance.now();
  const opened = await mapLimit(
    Array.from({ length: n }, (_, i) => i),
    OPEN_CONCURRENCY,
    (i) => server.call<OpenOut>("pty_open", { name: `f${i}`, cwd: env.root, shell: "bash" }, 60_000),
  );
  const openMs = performance.now() - tOpen;
  const ids = opened.map((o) => o.session_id);
  const ready = opened.filter((o) => o.shell_ready === true).length;
  const rssOpen = procStatusKb(proc.pid, "VmRSS");

  // aiterm fan-out: every session's send → read(wait) pipeline at once.
  const callTimeout = (flags.timeout + 30) * 1000;
  const tFan = performance.now();
  const outcomes = await Promise.all(ids.map(async (id, i): Promise<Outcome> => {
    const t0 = performance.now();
    let t1 = t0;
    try {
      await server.call<SendOut>("pty_send", { session_id: id, text: command(i) }, callTimeout);
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
  const fanWall = performance.now() - tFan;
  const rssFan = procStatusKb(proc.pid, "VmRSS");

  // Bare tmux: the same commands on a private socket.
  await bare.newSession("b0");
  await mapLimit(Array.from({ length: n - 1 }, (_, i) => i + 1), OPEN_CONCURRENCY, (i) => bare.newSession(`b${i}`));
  await mapLimit(
    Array.from({ length: n }, (_, i) => i),
    OPEN_CONCURRENCY,
    (i) => bare.roundTrip(`b${i}`, "true", `ready_${i}`, 15_000),
  );
  const tBare = performance.now();
  const bareErrors: string[] = [];
  const bareRuns = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        bare.roundTrip(`b${i}`, command(i), `ch_${i}`, flags.timeout * 1000).catch((err: Error) => {
          bareErrors.push(`b${i}: ${err.message}`);
          return null;
        }),
    ),
  );
  const bareLat = bareRuns.filter((x) => x !== null);
  const bareWall = performance.now() - tBare;

  // Close every aiterm session, then read the server's peak.
  const closes = await Promise.all(
    ids.map((id) => server.call<CloseOut>("pty_close", { session_id: id }, 30_000).catch(() => null)),
  );
  const closed = closes.filter((c) => c?.outcome === "closed").length;
  sampler.stop();
  const hwm = procStatusKb(proc.pid, "VmHWM");

  const done = outcomes.filter((o) => o.complete);
  const a = summarize(done.map((o) => o.latency));
  const snd = summarize(outcomes.map((o) => o.send));
  const rd = summarize(done.map((o) => o.read));
  const b = summarize(bareLat);
  console.log("");
  printTable(["method", "completed", "p50 ms", "p95 ms", "max ms", "wall ms"], [
    [
      "aiterm: pty_send + pty_read(wait) via MCP",
      `${done.length}/${n}`,
      ms(a.median),
      ms(a.p95),
      ms(a.max),
      ms(fanWall),
    ],
    ["  of which pty_send call", "", ms(snd.median), ms(snd.p95), ms(snd.max), ""],
    ["  of which pty_read(wait) call", "", ms(rd.median), ms(rd.p95), ms(rd.max), ""],
    ["bare tmux: send-keys + wait-for", `${bareLat.length}/${n}`, ms(b.median), ms(b.p95), ms(b.max), ms(bareWall)],
    [`floor: the command sleeps ${SLEEP_MS} ms (reference constant)`, "", ms(SLEEP_MS), ms(SLEEP_MS), "", ""],
  ]);
  console.log("");
  const vias = new Map<string, number>();
  for (const o of outcomes) vias.set(`${o.complete}/${o.via}`, (vias.get(`${o.complete}/${o.via}`) ?? 0) + 1);
  console.log(
    `completion: ${done.length}/${n} is_complete=true (${[...vias].map(([k, v]) => `${k}: ${v}`).join(", ")}); ` +
      `output has done-<i>: ${outcomes.filter((o) => o.outputOk).length}/${n}`,
  );
  console.log(
    `sessions: opened ${n} in ${
      ms(openMs)
    } ms (shell_ready ${ready}/${n}, ${OPEN_CONCURRENCY} at a time); closed ${closed}/${n}`,
  );
  const peakKb = Math.max(hwm, sampler.maxKb);
  console.log(
    `server pid ${proc.pid} (${proc.note}): RSS idle ${mb(rssIdle)} MB, after open ${mb(rssOpen)} MB, after fan-out ${
      mb(rssFan)
    } MB; ` +
      `max sampled VmRSS ${mb(sampler.maxKb)} MB (${sampler.samples} samples @50 ms); VmHWM ${mb(hwm)} MB`,
  );
  const pass = Number.isFinite(peakKb) && peakKb > 0 && peakKb < RSS_TARGET_MB * 1024;
  console.log(`target: peak RSS under ${RSS_TARGET_MB} MB: ${pass ? "PASS" : "FAIL"} (${mb(peakKb)} MB)`);

  const errors = [
    ...outcomes.map((o, i) => (o.error ? `f${i}: ${o.error}` : null)).filter((e) => e !== null),
    ...bareErrors,
  ];
  for (const e of errors.slice(0, 5)) console.error(`error: ${e}`);
  if (errors.length > 5) console.error(`error: … and ${errors.length - 5} more`);
  if (done.length < n) {
    console.error(`error: ${n - done.length} of ${n} aiterm completions were missed`);
    return 1;
  }
  return 0;
});
