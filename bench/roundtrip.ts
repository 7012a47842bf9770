// deno-lint-ignore-file no-console
/**
 * Round-trip latency of one command through aiterm, against bare tmux in the same run.
 *
 *   deno run -A bench/roundtrip.ts [--n 100] [--warmup 10]
 *
 * aiterm: `pty_send({text:"true"})` + `pty_read({wait:true})` through the real MCP SDK client over
 * stdio, in a bash session with shell integration (isolated state dir, socket and HOME).
 * Baseline: `tmux send-keys 'true; tmux wait-for -S ch_i' Enter` + `tmux wait-for ch_i` against
 * `bash --norc --noprofile` on a separate private socket. The two are interleaved per iteration so
 * drift affects both alike. Prints a table, the completion count and the target verdict. Exits 0
 * unless something crashed or a read did not complete.
 */
import {
  type Aiterm,
  BareTmux,
  environmentLine,
  makeTestEnv,
  ms,
  onCleanup,
  onFailureReport,
  type OpenOut,
  parseIntFlags,
  printTable,
  type ReadOut,
  runMain,
  type SendOut,
  startAiterm,
  summarize,
} from "./_common.ts";
import { ControlClient, controlLine } from "../platform/tmux_control.ts";

const USAGE = "deno run -A bench/roundtrip.ts [--n 100] [--warmup 10]";
const flags = parseIntFlags({ n: 100, warmup: 10 }, USAGE);
const QUIESCENCE_MS = 500;
const TARGET_RATIO = 4;
const READ_TIMEOUT_S = 10;

await runMain("bench/roundtrip", async () => {
  if (flags.n < 1) throw new Error("--n must be at least 1");
  console.log(`roundtrip: N=${flags.n} (+${flags.warmup} warm-up), ${await environmentLine()}`);
  console.log(`aiterm tmux transport: ${Deno.env.get("AITERM_TMUX_TRANSPORT") === "control" ? "control" : "cli"}`);

  const env = await makeTestEnv();
  onCleanup("aiterm tmux server + state dir", () => env[Symbol.asyncDispose]());
  const bare = await BareTmux.create();
  onCleanup("bare tmux server", () => bare.dispose());
  const server: Aiterm = await startAiterm(env.env, "aiterm-bench-roundtrip");
  onCleanup("aiterm MCP server", () => server.close());
  onFailureReport(() => `aiterm server stderr (tail):\n${server.stderrTail()}`);

  const open = await server.call<OpenOut>("pty_open", { cwd: env.root, shell: "bash" }, 30_000);
  const id = open.session_id;
  if (open.shell_ready !== true) console.log(`warning: pty_open returned shell_ready=${open.shell_ready}`);
  await bare.newSession("S");
  // The control-mode floor: one command written to a bare `tmux -C` client and its %end reply.
  const ctl = await ControlClient.start({ bin: "tmux", socketPath: bare.socket });
  onCleanup("bare tmux -C client", () => ctl.kill());

  const rt: number[] = [];
  const sendOnly: number[] = [];
  const readOnly: number[] = [];
  const waited: number[] = [];
  const ping: number[] = [];
  const bareRt: number[] = [];
  const ctlRt: number[] = [];
  let complete = 0;
  let viaShellIntegration = 0;
  let exitZero = 0;
  const otherVia = new Map<string, number>();

  const total = flags.warmup + flags.n;
  for (let i = 0; i < total; i++) {
    const measured = i >= flags.warmup;

    // aiterm: one send + one waiting read, through MCP.
    const t0 = performance.now();
    await server.call<SendOut>("pty_send", { session_id: id, text: "true" }, 15_000);
    const t1 = performance.now();
    const r = await server.call<ReadOut>(
      "pty_read",
      { session_id: id, wait: true, timeout: READ_TIMEOUT_S },
      (READ_TIMEOUT_S + 15) * 1000,
    );
    const t2 = performance.now();
    if (measured) {
      rt.push(t2 - t0);
      sendOnly.push(t1 - t0);
      readOnly.push(t2 - t1);
      if (r.waited_ms !== null) waited.push(r.waited_ms);
      if (r.is_complete === true) complete++;
      if (r.is_complete === true && r.via === "shell_integration") viaShellIntegration++;
      else otherVia.set(`${r.is_complete}/${r.via}`, (otherVia.get(`${r.is_complete}/${r.via}`) ?? 0) + 1);
      if (r.exit_status === 0) exitZero++;
    } else if (r.is_complete !== true) {
      throw new Error(`warm-up read ${i} did not complete: ${JSON.stringify(r)}`);
    }

    // MCP transport floor: a protocol ping (no tool, no tmux).
    const p0 = performance.now();
    await server.client.ping({ timeout: 10_000 });
    if (measured) ping.push(performance.now() - p0);

    // bare tmux: send-keys + wait-for on its own socket.
    const b = await bare.roundTrip("S", "true", `ch_${i}`, 10_000);
    if (measured) bareRt.push(b);

    // bare tmux -C: one command round trip on a long-lived control client.
    const c0 = performance.now();
    const reply = await ctl.run(controlLine(["display-message", "-p", `c${i}`])!);
    if (measured) ctlRt.push(performance.now() - c0);
    if (reply.stdout !== `c${i}\n`) throw new Error(`control reply ${i} was ${JSON.stringify(reply)}`);
  }

  await server.call("pty_close", { session_id: id }, 15_000);

  const a = summarize(rt);
  const bb = summarize(bareRt);
  const ratio = (x: number) => (Number.isFinite(x / bb.median) ? `${(x / bb.median).toFixed(2)}x` : "n/a");
  const row = (label: string, xs: number[]) => {
    const s = summarize(xs);
    return [label, ms(s.median), ms(s.p95), ratio(s.median)];
  };
  console.log("");
  printTable(["method", "median ms", "p95 ms", "x bare median"], [
    row("bare tmux: send-keys + wait-for", bareRt),
    row("bare tmux -C: one command round trip (floor)", ctlRt),
    row("aiterm: pty_send + pty_read(wait) via MCP", rt),
    row("  of which pty_send call", sendOnly),
    row("  of which pty_read(wait) call", readOnly),
    row("  server-reported waited_ms", waited),
    row("MCP ping (transport floor, reference)", ping),
    [
      "quiescence window (reference constant, not measured)",
      ms(QUIESCENCE_MS),
      ms(QUIESCENCE_MS),
      ratio(QUIESCENCE_MS),
    ],
  ]);
  console.log("");
  const others = [...otherVia].map(([k, v]) => `${k}: ${v}`).join(", ");
  console.log(
    `completion: ${viaShellIntegration}/${flags.n} reads is_complete=true via shell_integration` +
      ` (is_complete=true: ${complete}, exit_status 0: ${exitZero}${others ? `; other: ${others}` : ""})`,
  );
  const pass = a.median <= TARGET_RATIO * bb.median;
  console.log(
    `target: aiterm median within ${TARGET_RATIO}x of bare tmux: ${pass ? "PASS" : "FAIL"}` +
      ` (${ms(a.median)} ms vs ${ms(bb.median)} ms = ${ratio(a.median)})`,
  );
  if (complete < flags.n) {
    console.error(`error: ${flags.n - complete} aiterm reads did not complete`);
    return 1;
  }
  return 0;
});
