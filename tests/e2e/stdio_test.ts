/**
 * The server's stdin and stdout as MCP clients give them (platform/stdio.ts): pipes (Deno, Rust clients) and socket
 * pairs (Node's child_process) are read and written on the event loop; stdout shared with stderr keeps the runtime's
 * writer. Each way: every request answered in order, a request far larger than one read, answers the client does not
 * read for a while, and the end of stdin ending the server.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { makeTestEnv } from "../helpers/env.ts";
import { serverCommand } from "../helpers/mcp.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const nodeBin = (() => {
  try {
    return new Deno.Command("node", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync().success
      ? "node"
      : null;
  } catch {
    return null;
  }
})();

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "stdio", version: "1" } },
};

/** The lines to write: initialize, then `pings` pings, one of them carrying 900 KiB of params. */
function script(pings: number): string {
  const lines = [JSON.stringify(INIT), JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })];
  for (let i = 1; i <= pings; i++) {
    // One request far larger than a pipe or one read: it arrives in many pieces.
    const params = i === 7 ? { _meta: { pad: "p".repeat(900 * 1024) } } : undefined;
    lines.push(JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping", ...(params ? { params } : {}) }));
  }
  return lines.join("\n") + "\n";
}

/** The JSON-RPC answers among `out`'s lines (log lines, when stderr shares the pipe, are skipped), and the logs. */
function split(out: string): { ids: unknown[]; logs: Record<string, unknown>[] } {
  const ids: unknown[] = [];
  const logs: Record<string, unknown>[] = [];
  for (const line of out.split("\n").filter(Boolean)) {
    const v = JSON.parse(line) as Record<string, unknown>;
    if (v.jsonrpc === "2.0") {
      assert(v.error === undefined, line.slice(0, 300));
      ids.push(v.id);
    } else logs.push(v);
  }
  return { ids, logs };
}

const PINGS = 3000;
const expectedIds = [0, ...Array.from({ length: PINGS }, (_, i) => i + 1)];

/**
 * Runs `command` with every request written before a byte is read back (3000 answers, over 64 KiB, wait in the pipe
 * meanwhile), then the end of stdin; returns what it wrote and how it ended.
 */
async function serveAll(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ out: string; err: string; code: number }> {
  const child = new Deno.Command(command, {
    args,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script(PINGS)));
  await new Promise((r) => setTimeout(r, 500));
  await writer.close();
  const [out, err, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.status,
  ]);
  return { out, err, code: status.code };
}

Deno.test(
  "stdio over pipes: on the event loop; every request answered in order; end of stdin ends the server",
  opts,
  async () => {
    await using t = await makeTestEnv({ AITERM_LOG: "info" });
    const { command, args } = serverCommand();
    const { out, err, code } = await serveAll(command, args, t.env);
    assertEquals(code, 0, err.slice(-2000));
    assertEquals(split(out).ids, expectedIds);
    const ready = split(err).logs.find((l) => l.msg === "server ready");
    assertEquals(ready?.stdio, { input: "event_loop", output: "event_loop" });
  },
);

Deno.test(
  "stdio with stderr on stdout's pipe (2>&1): the runtime's writer; answers whole between log lines",
  opts,
  async () => {
    await using t = await makeTestEnv({ AITERM_LOG: "debug" });
    const { command, args } = serverCommand();
    const argv = [command, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
    const { out, err, code } = await serveAll("sh", ["-c", `exec ${argv} 2>&1`], t.env);
    assertEquals(code, 0, err.slice(-2000));
    const { ids, logs } = split(out);
    assertEquals(ids, expectedIds);
    assertEquals(logs.find((l) => l.msg === "server ready")?.stdio, { input: "event_loop", output: "runtime" });
  },
);

Deno.test(
  "stdio over socket pairs (Node's child_process): on the event loop; every request answered in order",
  { ...opts, ignore: nodeBin === null },
  async () => {
    await using t = await makeTestEnv({ AITERM_LOG: "info" });
    const { command, args } = serverCommand();
    const input = `${t.root}/requests.jsonl`;
    await Deno.writeTextFile(input, script(PINGS));
    // Node spawns the server with its usual stdio 'pipe' (a socket pair each), writes every request, reads
    // nothing for half a second, then collects stdout and stderr until the server exits.
    const driver = `
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const [command, input, ...args] = process.argv.slice(1);
const c = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
const out = [], err = [];
c.stderr.on("data", (d) => err.push(d));
c.stdin.write(fs.readFileSync(input));
setTimeout(() => {
  c.stdout.on("data", (d) => out.push(d));
  c.stdin.end();
}, 500);
c.on("exit", (code) => {
  process.stdout.write(JSON.stringify({ code, out: Buffer.concat(out).toString(), err: Buffer.concat(err).toString() }));
});`;
    const r = await new Deno.Command(nodeBin!, {
      args: ["-e", driver, command, input, ...args],
      env: t.env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(r.stderr);
    assert(r.success, stderr);
    const res = JSON.parse(new TextDecoder().decode(r.stdout)) as { code: number; out: string; err: string };
    assertEquals(res.code, 0, res.err.slice(-2000));
    assertEquals(split(res.out).ids, expectedIds);
    assertEquals(split(res.err).logs.find((l) => l.msg === "server ready")?.stdio, {
      input: "event_loop",
      output: "event_loop",
    });
  },
);
