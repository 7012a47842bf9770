// deno-lint-ignore-file no-console
/**
 * Round-trip latency of one command through aiterm, against bare tmux in the same run.
 *
 *   deno run -A bench/roundtrip.ts [--n 100] [--warmup 10] [--transports control,cli]
 *
 * aiterm: `pty_send({text:"true"})` + `pty_read({wait:true})` through the real MCP SDK client over
 * stdio, in a bash session with shell integration (isolated state dir, socket and HOME). One aiterm
 * server per tmux transport (AITERM_TMUX_TRANSPORT: `control`, the default, and `cli`), each on its own
 * state dir. Baseline: `tmux send-keys 'true; tmux wait-for -S ch_i' Enter` + `tmux wait-for ch_i`
 * against `bash --norc --noprofile` on a separate private socket, and the control-mode floor (one
 * command round trip on a long-lived `tmux -C` client). All are interleaved per iteration so drift
 * affects them alike. Prints a table, the completion count and the target verdicts (for the first
 * transport listed). Exits 0 unless something crashed or a read did not complete.
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
import { ControlClient } from "../platform/tmux/tmux_control.ts";
import { controlLine } from "../platform/tmux/control_line.ts";

const USAGE = "deno run -A bench/roundtrip.ts [--n 100] [--warmup 10] [--transports control,cli]";
/** --transports is not a number: take it out before the integer flags are parsed. */
function takeTransports(): string[] {
  const i = Deno.args.indexOf("--transports");
  if (i < 0) return ["control", "cli"];
  const list = (Deno.args[i + 1] ?? "").split(",").filter(Boolean);
  Deno.args.splice(i, 2);
  if (!list.length || list.some((x) => x !== "control" && x !== "cli")) throw new Error(USAGE);
  return list;
}
const TRANSPORTS = takeTransports();
const flags = parseIntFlags({ n: 100, warmup: 10 }, USAGE);
const QUIESCENCE_MS = 500;
const TARGET_RATIO = 1;
const SEND_TARGET_MS = 2;
const READ_TIMEOUT_S = 10;

/** One aiterm server on one transport, with its session and its samples. */
interface Lane {
  transport: string;
  server: Aiterm;
  id: string;
  rt: number[];
  send: number[];
  read: number[];
  waited: number[];
  complete: number;
  viaShellIntegration: number;
  exitZero: number;
  otherVia: Map<string, number>;
}

async function openLane(transport: string): Promise<Lane> {
  const env = await makeTestEnv({ AITERM_TMUX_TRANSPORT: transport });
  onCleanup(`aiterm (${transport}) tmux server + state dir`, () => env[Symbol.asyncDispose]());
  const server = await startAiterm(env.env, `aiterm-bench-roundtrip-${transport}`);
  onCleanup(`aiterm (${transport}) MCP server`, () => server.close());
  onFailureReport(() => `aiterm (${transport}) server stderr (tail):\n${server.stderrTail()}`);
  const open = await server.call<OpenOut>("pty_open", { cwd: env.root, shell: "bash" }, 30_000);
  if (open.shell_ready !== true) {
    console.log(`warning: ${transport}: pty_open returned shell_ready=${open.shell_ready}`);
  }
  return {
    transport,
    server,
    id: open.session_id,
    rt: [],
    send: [],
    read: [],
    waited: [],
    complete: 0,
    viaShellIntegration: 0,
    exitZero: 0,
    otherVia: new Map(),
  };
}

/** One pty_send + pty_read(wait) on a lane; records it when `measured`. */
async function roundTrip(lane: Lane, i: number, measured: boolean): Promise<void> {
  const t0 = performance.now();
  await lane.server.call<SendOut>("pty_send", { wait: false, session_id: lane.id, text: "true" }, 15_000);
  const t1 = performance.now();
  const r = await lane.server.call<ReadOut>(
    "pty_read",
    { session_id: lane.id, wait: true, timeout: READ_TIMEOUT_S },
    (READ_TIMEOUT_S + 15) * 1000,
  );
  const t2 = performance.now();
  if (!measured) {
    if (r.is_complete !== true) {
      throw new Error(`${lane.transport}: warm-up read ${i} did not complete: ${JSON.stringify(r)}`);
    }
    return;
  }
  lane.rt.push(t2 - t0);
  lane.send.push(t1 - t0);
  lane.read.push(t2 - t1);
  if (r.waited_ms !== null) lane.waited.push(r.waited_ms);
  if (r.is_complete === true) lane.complete++;
  if (r.is_complete === true && r.via === "shell_integration") lane.viaShellIntegration++;
  else {
    const k = `${r.is_complete}/${r.via}`;
    lane.otherVia.set(k, (lane.otherVia.get(k) ?? 0) + 1);
  }
  if (r.exit_status === 0) lane.exitZero++;
}

await runMain("bench/roundtrip", async () => {
  if (flags.n < 1) throw new Error("--n must be at least 1");
  console.log(`roundtrip: N=${flags.n} (+${flags.warmup} warm-up), ${await environmentLine()}`);
  console.log(`aiterm tmux transports, side by side: ${TRANSPORTS.join(", ")} (default: control)`);

  const lanes: Lane[] = [];
  for (const transport of TRANSPORTS) lanes.push(await openLane(transport));
  const bare = await BareTmux.create();
  onCleanup("bare tmux server", () => bare.dispose());
  await bare.newSession("S");
  // The control-mode floor: one command written to a bare `tmux -C` client and its %end reply.
  const ctl = await ControlClient.start({ bin: "tmux", socketPath: bare.socket });
  onCleanup("bare tmux -C client", () => ctl.kill());

  const ping: number[] = [];
  const bareRt: number[] = [];
  const ctlRt: number[] = [];
  const total = flags.warmup + flags.n;
  for (let i = 0; i < total; i++) {
    const measured = i >= flags.warmup;
    // aiterm: one send + one waiting read per transport, through MCP (the order alternates).
    const order = i % 2 === 0 ? lanes : [...lanes].reverse();
    for (const lane of order) await roundTrip(lane, i, measured);

    // MCP transport floor: a protocol ping (no tool, no tmux).
    const p0 = performance.now();
    await lanes[0]!.server.client.ping({ timeout: 10_000 });
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

  for (const lane of lanes) await lane.server.call("pty_close", { session_id: lane.id }, 15_000);

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
    ...lanes.flatMap((l) => [
      row(`aiterm (${l.transport}): pty_send + pty_read(wait) via MCP`, l.rt),
      row(`  of which pty_send call`, l.send),
      row(`  of which pty_read(wait) call`, l.read),
      row(`  server-reported waited_ms`, l.waited),
    ]),
    row("MCP ping (transport floor, reference)", ping),
    [
      "quiescence window (reference constant, not measured)",
      ms(QUIESCENCE_MS),
      ms(QUIESCENCE_MS),
      ratio(QUIESCENCE_MS),
    ],
  ]);
  console.log("");
  let failed = false;
  for (const lane of lanes) {
    const others = [...lane.otherVia].map(([k, v]) => `${k}: ${v}`).join(", ");
    console.log(
      `completion (${lane.transport}): ${lane.viaShellIntegration}/${flags.n} reads is_complete=true via shell_integration` +
        ` (is_complete=true: ${lane.complete}, exit_status 0: ${lane.exitZero}${others ? `; other: ${others}` : ""})`,
    );
    if (lane.complete < flags.n) {
      console.error(`error: ${lane.transport}: ${flags.n - lane.complete} aiterm reads did not complete`);
      failed = true;
    }
  }
  const main = lanes[0]!;
  const a = summarize(main.rt);
  const send = summarize(main.send);
  console.log(
    `target (${main.transport}): send + read within ${TARGET_RATIO}x of bare tmux: ` +
      `${a.median <= TARGET_RATIO * bb.median ? "PASS" : "FAIL"} (${ms(a.median)} ms vs ${ms(bb.median)} ms = ${
        ratio(a.median)
      })`,
  );
  console.log(
    `target (${main.transport}): pty_send median at most ${SEND_TARGET_MS} ms: ` +
      `${send.median <= SEND_TARGET_MS ? "PASS" : "FAIL"} (${ms(send.median)} ms)`,
  );
  return failed ? 1 : 0;
});
