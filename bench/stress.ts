// deno-lint-ignore-file no-console
/**
 * Hostile-input and fault stress of the terminal core, through the real MCP SDK client.
 *
 *   deno run -A bench/stress.ts [--rounds 2] [--lines 4000] [--mb 200] [--senders 3]
 *
 * Prints, in one run:
 * 1. hostile inputs: inputs tried / ok / coded errors / uncoded errors / crashes / hangs, and whether
 *    anything reached a canary session for an input that was refused;
 * 2. interleavings: two servers typing long lines into one session at once (intact lines / total);
 * 3. lines lost across a SIGKILL of the server while a session prints;
 * 4. peak server RSS while `--mb` MB of output is produced and read back page by page, next to the
 *    idle RSS of the same server;
 * 5. the largest send that arrives whole (byte count and checksum compared in the shell).
 * Exits 1 when a crash, a hang, an uncoded error or a typed refusal was seen.
 */
import type { CallToolResult } from "../lib/mcp/sdk.ts";
import {
  type Aiterm,
  makeTestEnv,
  mb,
  onCleanup,
  onFailureReport,
  parseIntFlags,
  printTable,
  procStatusKb,
  resolveServerPid,
  RssSampler,
  runMain,
  startAiterm,
  withTimeout,
} from "./_common.ts";

const USAGE =
  "deno run -A bench/stress.ts [--rounds 2] [--lines 4000] [--mb 200] [--senders 3] [--only 1: hostile inputs only]";
const flags = parseIntFlags({ rounds: 2, lines: 4000, mb: 200, senders: 3, only: 0 }, USAGE);
const HANG_MS = 30_000;
const CODED = /^[A-Z][A-Z0-9_]+: /;

type Outcome = "ok" | "coded" | "uncoded" | "crash" | "hang";

interface Case {
  label: string;
  tool: string;
  args: Record<string, unknown>;
  /** The call must be refused (a coded error) and must type nothing into the canary. */
  refused: boolean;
}

async function callRaw(a: Aiterm, tool: string, args: Record<string, unknown>): Promise<Outcome> {
  try {
    const r = await withTimeout(
      a.client.callTool({ name: tool, arguments: args }, undefined, { timeout: HANG_MS * 2 }) as Promise<
        CallToolResult
      >,
      HANG_MS,
      tool,
    );
    if (!r.isError) return "ok";
    const first = r.content[0];
    const text = first && first.type === "text" ? first.text : "";
    return CODED.test(text) ? "coded" : "uncoded";
  } catch (err) {
    const msg = (err as Error).message;
    if (msg.includes("timed out after")) return "hang";
    if (/closed|not connected|EPIPE|ECONNRESET/i.test(msg)) return "crash";
    return "uncoded";
  }
}

const HOSTILE_STRINGS = [
  "x#(touch PWNED)",
  "y#{session_name}",
  "ends;",
  "a;b",
  "{ } ( ) ; \\ $ ' \"",
  "$(touch PWNED)",
  "`touch PWNED`",
  "two\nlines",
  "日本語🎉",
  "\u0000nul",
  "\u001b]0;title\u0007",
  "-e",
  "--",
  "=t1:",
  "../../etc",
  "a".repeat(5000),
];

function hostileCases(canary: string, root: string): Case[] {
  const cases: Case[] = [];
  for (const s0 of HOSTILE_STRINGS) {
    const s = s0.replaceAll("PWNED", `${root}/PWNED`);
    // A string that is a valid session id ("-e", "--") is a legitimate name, not a refusal.
    const validId = /^[A-Za-z0-9_-]{1,64}$/.test(s);
    cases.push({ label: "open name", tool: "pty_open", args: { name: s }, refused: !validId });
    cases.push({ label: "open cwd (missing)", tool: "pty_open", args: { cwd: `${root}/missing/${s}` }, refused: true });
    cases.push({ label: "open shell", tool: "pty_open", args: { shell: s }, refused: true });
    cases.push({ label: "open env_vars", tool: "pty_open", args: { env_vars: [s] }, refused: true });
    cases.push({
      label: "send session_id",
      tool: "pty_send",
      args: { session_id: s, text: "echo hi" },
      refused: !validId,
    });
    cases.push({ label: "key name", tool: "pty_key", args: { session_id: canary, key: s }, refused: true });
    cases.push({
      label: "read line_range",
      tool: "pty_read",
      args: { session_id: canary, line_range: s },
      refused: true,
    });
    cases.push({
      label: "remote ssh_options",
      tool: "pty_list",
      args: { remote: { host: "127.0.0.1", ssh_options: [`ProxyCommand=${s}`] } },
      refused: true,
    });
  }
  const big = "x".repeat(65_537);
  cases.push({ label: "send 65537 bytes", tool: "pty_send", args: { session_id: canary, text: big }, refused: true });
  cases.push({
    label: "send 65537 bytes raw",
    tool: "pty_send",
    args: { session_id: canary, text: big, raw: true },
    refused: true,
  });
  cases.push({
    label: "send mark+raw",
    tool: "pty_send",
    args: { session_id: canary, text: "true", raw: true, mark: true },
    refused: true,
  });
  for (const bad of [5, "str", [], null, { nested: { deep: true } }]) {
    cases.push({
      label: `send text=${JSON.stringify(bad)}`,
      tool: "pty_send",
      args: { session_id: canary, text: bad },
      refused: typeof bad !== "string",
    });
  }
  cases.push({
    label: "read bad regex",
    tool: "pty_read",
    args: { session_id: canary, until: "(", until_regex: true },
    refused: true,
  });
  cases.push({
    label: "read backtracking regex",
    tool: "pty_read",
    args: { session_id: canary, until: "(a+)+$", until_regex: true, timeout: 2 },
    refused: false,
  });
  cases.push({ label: "read cursor -1", tool: "pty_read", args: { session_id: canary, cursor: -1 }, refused: true });
  cases.push({
    label: "read cursor huge",
    tool: "pty_read",
    args: { session_id: canary, cursor: 2 ** 60 },
    refused: false,
  });
  cases.push({
    label: "read timeout huge",
    tool: "pty_read",
    args: { session_id: canary, timeout: 1e12, wait: false },
    refused: false,
  });
  cases.push({ label: "unknown tool", tool: "pty_nope", args: {}, refused: true });
  return cases;
}

/** Bytes the canary's log holds beyond `cursor` (anything typed into it shows up here). */
async function canaryGrowth(a: Aiterm, canary: string, cursor: number): Promise<number> {
  const r = await a.call<{ text: string; next_cursor: number | null; end: number | null }>(
    "pty_read",
    { session_id: canary, cursor, raw: true, full: true },
  );
  return (r.end ?? r.next_cursor ?? cursor) - cursor;
}

async function hostileSection(a: Aiterm, root: string): Promise<boolean> {
  const canary = (await a.call<{ session_id: string }>("pty_open", { name: "canary", shell: "sh" })).session_id;
  await new Promise((r) => setTimeout(r, 300));
  const counts: Record<Outcome, number> = { ok: 0, coded: 0, uncoded: 0, crash: 0, hang: 0 };
  let typed = 0;
  let accepted = 0;
  const acceptedLabels = new Set<string>();
  let tried = 0;
  for (let round = 0; round < flags.rounds; round++) {
    const cases = hostileCases(canary, root);
    for (const c of cases) {
      tried++;
      const before = await canaryGrowth(a, canary, 0);
      const outcome = await callRaw(a, c.tool, c.args);
      counts[outcome]++;
      if (outcome === "crash") throw new Error(`server crashed on ${c.label}`);
      if (c.refused && outcome === "ok") {
        accepted++;
        acceptedLabels.add(c.label);
      }
      if (c.refused && outcome !== "ok") {
        const after = await canaryGrowth(a, canary, 0);
        if (after !== before) typed++;
      }
      if (c.tool === "pty_open" && outcome === "ok") {
        // Not expected for these inputs, but never leave a session behind.
        await a.call("pty_list", {});
      }
    }
  }
  const pwned = await Deno.stat(`${root}/PWNED`).then(() => true, () => false);
  console.log("\n1. hostile inputs");
  printTable(
    [
      "tried",
      "ok",
      "coded errors",
      "uncoded",
      "crashes",
      "hangs",
      "typed for a refused input",
      "refusals accepted",
      "#(…) ran",
    ],
    [[tried, counts.ok, counts.coded, counts.uncoded, counts.crash, counts.hang, typed, accepted, pwned ? "yes" : "no"]
      .map(String)],
  );
  if (acceptedLabels.size) console.log(`accepted although listed as refusals: ${[...acceptedLabels].join(", ")}`);
  await a.call("pty_close", { session_id: canary });
  return counts.uncoded === 0 && counts.crash === 0 && counts.hang === 0 && typed === 0 && !pwned;
}

async function interleaveSection(env: Record<string, string>, root: string): Promise<boolean> {
  const a = await startAiterm(env, "stress-a");
  const b = await startAiterm(env, "stress-b");
  onCleanup("stress servers a/b", async () => {
    await a.close();
    await b.close();
  });
  const file = `${root}/interleave.txt`;
  const id = (await a.call<{ session_id: string }>("pty_open", { name: "inter", shell: "sh" })).session_id;
  await new Promise((r) => setTimeout(r, 300));
  await a.call("pty_send", { wait: false, session_id: id, text: `stty -icanon -echo; cat > '${file}'` });
  await new Promise((r) => setTimeout(r, 300));
  const LINE = 6000;
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const jobs: Promise<unknown>[] = [];
  let n = 0;
  for (let s = 0; s < flags.senders; s++) {
    for (const server of [a, b]) {
      const ch = letters[n++ % letters.length]!;
      jobs.push(
        server.call("pty_send", { wait: false, session_id: id, text: `${ch.repeat(LINE)}\n`, raw: true, enter: false }),
      );
    }
  }
  await Promise.all(jobs);
  await new Promise((r) => setTimeout(r, 1000));
  const lines = (await Deno.readTextFile(file)).split("\n").filter((l) => l.length > 0);
  const intact = lines.filter((l) => l.length === LINE && new Set(l).size === 1).length;
  await a.call("pty_close", { session_id: id });
  console.log("\n2. interleavings across two servers");
  printTable(["sends", "lines arrived", "intact"], [[String(n), String(lines.length), String(intact)]]);
  await a.close();
  await b.close();
  return intact === n && lines.length === n;
}

async function sigkillSection(env: Record<string, string>): Promise<boolean> {
  const a = await startAiterm(env, "stress-kill");
  const id = (await a.call<{ session_id: string }>("pty_open", { name: "printer", shell: "sh" })).session_id;
  await new Promise((r) => setTimeout(r, 300));
  const start = await a.call<{ log_cursor: number }>("pty_send", {
    wait: false,
    session_id: id,
    text: `i=1; while [ $i -le ${flags.lines} ]; do echo "L$i"; i=$((i+1)); done; echo DO""NE`,
  });
  await new Promise((r) => setTimeout(r, 50));
  const server = resolveServerPid(a.pid, a.argv);
  Deno.kill(server.pid, "SIGKILL");
  await a.close();
  const b = await startAiterm(env, "stress-kill-2");
  onCleanup("stress server after kill", () => b.close());
  await b.call("pty_read", { session_id: id, until: "DONE", timeout: 60, wait: true });
  const seen = new Set<string>();
  let cursor: number | null = start.log_cursor;
  for (let page = 0; cursor !== null && page < 10_000; page++) {
    const r: { text: string; next_cursor: number | null; has_more: boolean } = await b.call("pty_read", {
      session_id: id,
      cursor,
      raw: true,
      full: true,
    });
    for (const m of r.text.matchAll(/^L(\d+)\r?$/gm)) seen.add(m[1]!);
    cursor = r.has_more ? r.next_cursor : null;
  }
  await b.call("pty_close", { session_id: id });
  await b.close();
  console.log("\n3. lines lost across a SIGKILL of the server");
  printTable(["lines printed", "lines read after restart", "lost"], [[
    String(flags.lines),
    String(seen.size),
    String(flags.lines - seen.size),
  ]]);
  return seen.size === flags.lines;
}

async function rssSection(env: Record<string, string>): Promise<boolean> {
  const segment = 4 * 1024 * 1024;
  const keep = Math.ceil((flags.mb * 1e6) / segment) + 2;
  const a = await startAiterm({ ...env, AITERM_LOG_KEEP_SEGMENTS: String(keep) }, "stress-rss");
  onCleanup("stress rss server", () => a.close());
  const server = resolveServerPid(a.pid, a.argv);
  const id = (await a.call<{ session_id: string }>("pty_open", { name: "big", shell: "sh" })).session_id;
  await new Promise((r) => setTimeout(r, 300));
  const idle = procStatusKb(server.pid, "VmRSS");
  const sampler = new RssSampler(server.pid, 50);
  const sent = await a.call<{ log_cursor: number }>("pty_send", {
    wait: false,
    session_id: id,
    text: `head -c ${flags.mb * 1_000_000} /dev/zero | tr '\\0' 'x' | fold -w 99; echo BIG""DONE`,
  });
  await a.call(
    "pty_read",
    { session_id: id, until: "BIGDONE", timeout: 600, wait: true },
    700_000,
  );
  let cursor: number | null = sent.log_cursor;
  let bytes = 0;
  let pages = 0;
  while (cursor !== null && pages < 100_000) {
    const r: { text: string; next_cursor: number | null; has_more: boolean } = await a.call("pty_read", {
      session_id: id,
      cursor,
      raw: true,
      full: true,
    }, 120_000);
    bytes += r.text.length;
    pages++;
    cursor = r.has_more ? r.next_cursor : null;
  }
  sampler.stop();
  await a.call("pty_close", { session_id: id });
  await a.close();
  console.log(
    `\n4. peak server RSS for ${flags.mb} MB of output (read back in ${pages} pages, ${mb(bytes / 1024)} of text)`,
  );
  printTable(["idle RSS", "peak RSS", "ratio"], [[
    mb(idle),
    mb(sampler.maxKb),
    (sampler.maxKb / idle).toFixed(2) + "×",
  ]]);
  return sampler.maxKb < 200 * 1024;
}

async function cksum(bytes: Uint8Array): Promise<string> {
  const child = new Deno.Command("cksum", { stdin: "piped", stdout: "piped" }).spawn();
  const w = child.stdin.getWriter();
  await w.write(bytes);
  await w.close();
  return new TextDecoder().decode((await child.output()).stdout).trim();
}

async function largestSendSection(env: Record<string, string>, root: string): Promise<boolean> {
  const a = await startAiterm(env, "stress-send");
  onCleanup("stress send server", () => a.close());
  const id = (await a.call<{ session_id: string }>("pty_open", { name: "sink", shell: "bash" })).session_id;
  const alphabets: Record<string, string> = { ascii: "abcdefghij", cjk: "日本語漢字", emoji: "🎉🚀" };
  const sizes = [1024, 16_384, 30_000, 49_152, 65_536];
  const rows: string[][] = [];
  let largest = 0;
  for (const [name, alphabet] of Object.entries(alphabets)) {
    for (const size of sizes) {
      const text = fill(alphabet, size);
      const bytes = new TextEncoder().encode(text);
      const out = `${root}/send-${name}-${size}`;
      await a.call("pty_send", {
        wait: false,
        session_id: id,
        text: `stty raw -echo; head -c ${bytes.length} > '${out}'; stty sane`,
      });
      await new Promise((r) => setTimeout(r, 200));
      let ok = false;
      try {
        await a.call("pty_send", { wait: false, session_id: id, text, raw: true, enter: false }, 120_000);
        await a.call("pty_read", { session_id: id, wait: true, timeout: 30 });
        const got = await Deno.readFile(out).catch(() => new Uint8Array());
        ok = got.length === bytes.length && (await cksum(got)) === (await cksum(bytes));
      } catch (err) {
        rows.push([name, String(bytes.length), `error: ${(err as Error).message.slice(0, 60)}`]);
        await a.call("pty_key", { session_id: id, key: "C-c" }).catch(() => {});
        continue;
      }
      rows.push([name, String(bytes.length), ok ? "whole" : "damaged"]);
      if (ok) largest = Math.max(largest, bytes.length);
    }
  }
  await a.call("pty_close", { session_id: id });
  await a.close();
  console.log("\n5. sends (bytes checked with wc/cksum in the shell)");
  printTable(["alphabet", "bytes", "arrived"], rows);
  console.log(`largest send that arrived whole: ${largest} bytes`);
  return largest >= 65_000;
}

/** `alphabet` repeated to exactly `size` UTF-8 bytes or just under (whole characters only). */
function fill(alphabet: string, size: number): string {
  const enc = new TextEncoder();
  let out = "";
  let bytes = 0;
  for (let i = 0;; i++) {
    const ch = [...alphabet][i % [...alphabet].length]!;
    const n = enc.encode(ch).length;
    if (bytes + n > size) break;
    out += ch;
    bytes += n;
  }
  return out;
}

await runMain("bench/stress", async () => {
  const t = await makeTestEnv();
  onCleanup("test env", () => t[Symbol.asyncDispose]());
  const a = await startAiterm(t.env, "stress");
  onCleanup("stress server", () => a.close());
  onFailureReport(() => a.stderrTail());
  const results: [string, boolean][] = [];
  results.push(["hostile inputs", await hostileSection(a, t.root)]);
  await a.close();
  if (flags.only === 1) return results.every(([, v]) => v) ? 0 : 1;
  results.push(["interleavings", await interleaveSection(t.env, t.root)]);
  results.push(["sigkill", await sigkillSection(t.env)]);
  results.push(["largest send", await largestSendSection(t.env, t.root)]);
  results.push(["rss", await rssSection(t.env)]);
  console.log("\nverdicts");
  printTable(["section", "verdict"], results.map(([k, v]) => [k, v ? "ok" : "FAIL"]));
  return results.every(([, v]) => v) ? 0 : 1;
});
