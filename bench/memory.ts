// deno-lint-ignore-file no-console
/**
 * Memory on big output: one session prints `--mb` MB (base64 of random bytes) through the aiterm MCP
 * server, then everything is read back through pty_read pages, and the server's peak RSS is printed
 * next to the same server's idle RSS measured in the same run.
 *
 *   deno run -A bench/memory.ts [--mb 200] [--timeout 900]
 *
 * Phases: idle (one session open, one small read) → produce (the command runs; one pty_read
 * wait:true waits for it) → raw, full and folded pages (from the command's first byte to the end,
 * raw:true / full:true / the default reduced view, following next_cursor). Log retention is raised so the
 * whole output stays on disk. Memory: VmRSS sampled every 50 ms and VmHWM from /proc/<pid>/status.
 * Exits 1 when a read fails, a page is over 1 MiB or the raw pages do not cover the output exactly
 * (the table is printed first). AITERM_TEST_SERVER runs another server build (see devkit/mcp.ts).
 */
import {
  type Aiterm,
  environmentLine,
  makeTestEnv,
  mb,
  ms,
  onCleanup,
  onFailureReport,
  type OpenOut,
  parseIntFlags,
  printTable,
  procStatusKb,
  resolveServerPid,
  RssSampler,
  runMain,
  startAiterm,
} from "./_common.ts";

const USAGE = "deno run -A bench/memory.ts [--mb 200] [--timeout 900]";
const flags = parseIntFlags({ mb: 200, timeout: 900 }, USAGE);
const RSS_TARGET_MB = 200;
const SEGMENT_BYTES = 4 * 1024 * 1024;
const RESULT_LIMIT = 1024 * 1024;
const enc = new TextEncoder();

interface Page {
  text: string;
  next_cursor: number;
  end: number;
  has_more: boolean;
  is_complete: boolean | null;
}

interface Phase {
  name: string;
  ms: number;
  calls: number;
  rssKb: number;
  hwmKb: number;
  sampledKb: number;
}

await runMain("bench/memory", async () => {
  if (flags.mb < 1) throw new Error("--mb must be at least 1");
  // base64 turns 3 bytes into 4 characters (plus a newline every 76): this many random bytes print --mb MB.
  const randomBytes = Math.round((flags.mb * 1e6 * 3) / 4);
  const keep = Math.ceil((flags.mb * 1.1e6) / SEGMENT_BYTES) + 4;
  console.log(`memory: ${flags.mb} MB of output in one session, ${await environmentLine()}`);

  const env = await makeTestEnv({ AITERM_LOG_KEEP_SEGMENTS: String(keep) });
  onCleanup("aiterm tmux server + state dir", () => env[Symbol.asyncDispose]());
  const server: Aiterm = await startAiterm(env.env, "aiterm-bench-memory");
  onCleanup("aiterm MCP server", () => server.close());
  onFailureReport(() => `aiterm server stderr (tail):\n${server.stderrTail()}`);
  const proc = resolveServerPid(server.pid, server.argv);
  const sampler = new RssSampler(proc.pid, 50);
  onCleanup("RSS sampler", () => Promise.resolve(sampler.stop()));
  const callMs = (flags.timeout + 60) * 1000;

  const phases: Phase[] = [];
  const record = (name: string, t0: number, calls: number) =>
    phases.push({
      name,
      ms: performance.now() - t0,
      calls,
      rssKb: procStatusKb(proc.pid, "VmRSS"),
      hwmKb: procStatusKb(proc.pid, "VmHWM"),
      sampledKb: sampler.maxKb,
    });

  // Idle: the server with one open session and a small read behind it.
  let t0 = performance.now();
  const id = (await server.call<OpenOut>("pty_open", { cwd: env.root, shell: "bash" }, 60_000)).session_id;
  await server.call("pty_send", { wait: false, session_id: id, text: "echo ready" });
  await server.call<Page>("pty_read", { session_id: id, wait: true });
  record("idle (one session, one small read)", t0, 3);
  const idleKb = Math.max(procStatusKb(proc.pid, "VmHWM"), sampler.maxKb);

  // Produce: the command prints everything while one read waits for it.
  t0 = performance.now();
  const sent = await server.call<{ log_cursor: number }>("pty_send", {
    wait: false,
    session_id: id,
    text: `head -c ${randomBytes} /dev/urandom | base64`,
  });
  const done = await server.call<Page>(
    "pty_read",
    { session_id: id, wait: true, timeout: flags.timeout, lines: 3 },
    callMs,
  );
  if (done.is_complete !== true) throw new Error(`the command did not finish within ${flags.timeout} s`);
  record(`produce ${mb(done.end / 1024)} MB (pty_read wait:true)`, t0, 2);

  // Each view pages from the start of the command's output to the end of the log, following next_cursor.
  let biggest = 0;
  const failures: string[] = [];
  const pageAll = async (view: string, extra: Record<string, unknown>) => {
    t0 = performance.now();
    let bytes = 0;
    let pages = 0;
    try {
      for (let cursor = sent.log_cursor;;) {
        const r = await server.client.callTool(
          { name: "pty_read", arguments: { session_id: id, cursor, ...extra } },
          undefined,
          { timeout: callMs },
        );
        if (r.isError) throw new Error(`page at ${cursor}: ${JSON.stringify(r.content).slice(0, 300)}`);
        biggest = Math.max(biggest, enc.encode(JSON.stringify(r)).length);
        const p = r.structuredContent as unknown as Page;
        bytes += p.next_cursor - cursor;
        pages++;
        cursor = p.next_cursor;
        if (!p.has_more) break;
      }
      if (view === "raw" && bytes !== done.end - sent.log_cursor) {
        throw new Error(`raw pages cover ${bytes} bytes, the output ${done.end - sent.log_cursor}`);
      }
    } catch (err) {
      failures.push(`${view}: ${(err as Error).message}`);
    }
    record(`${view} pages (${pages}, ${mb(bytes / 1024)} MB)`, t0, pages);
  };
  await pageAll("raw", { raw: true });
  await pageAll("full", { full: true });
  await pageAll("folded", {});
  sampler.stop();

  console.log("");
  printTable(
    ["phase", "calls", "ms", "VmRSS MB", "peak VmHWM MB", "max sampled MB"],
    phases.map((p) => [p.name, String(p.calls), ms(p.ms), mb(p.rssKb), mb(p.hwmKb), mb(p.sampledKb)]),
  );
  // The last HWM we could read (a server that died has none) or the highest sample.
  const peakKb = Math.max(...phases.map((p) => p.hwmKb).filter(Number.isFinite), sampler.maxKb);
  console.log("");
  console.log(
    `server pid ${proc.pid} (${proc.note}): idle peak ${mb(idleKb)} MB (baseline), peak after ${flags.mb} MB ${
      mb(peakKb)
    } MB (+${mb(peakKb - idleKb)} MB, ×${(peakKb / idleKb).toFixed(2)}); largest result ${biggest} bytes`,
  );
  const pass = Number.isFinite(peakKb) && peakKb > 0 && peakKb < RSS_TARGET_MB * 1024;
  console.log(`target: peak RSS under ${RSS_TARGET_MB} MB: ${pass ? "PASS" : "FAIL"} (${mb(peakKb)} MB)`);
  if (biggest > RESULT_LIMIT) failures.push(`a result of ${biggest} bytes is over the 1 MiB limit`);
  if (failures.length) throw new Error(failures.join("; "));
  await server.call("pty_close", { session_id: id }, 30_000).catch(() => {});
  return 0;
});
