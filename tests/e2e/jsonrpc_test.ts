/**
 * Issue 14 items 14 and 9 (requests): malformed JSON-RPC and oversized request lines, written raw to the server's
 * stdin, each get a JSON-RPC error (never silence, never -32603) and the server keeps serving.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { serverCommand } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };
const MIB = 1024 * 1024;

interface Reply {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** The server process with a raw line interface. */
class RawServer implements AsyncDisposable {
  readonly child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buf = "";
  readonly replies: Reply[] = [];

  constructor(env: Record<string, string>) {
    const { command, args } = serverCommand();
    this.child = new Deno.Command(command, {
      args,
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#reader = this.child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  }

  async write(data: string | Uint8Array): Promise<void> {
    await this.#writer.write(typeof data === "string" ? new TextEncoder().encode(data) : data);
  }

  /** Writes one line and returns the next reply (every case here gets exactly one). */
  async ask(line: string | Uint8Array): Promise<Reply> {
    await this.write(line);
    if (typeof line === "string" ? !line.endsWith("\n") : line[line.length - 1] !== 0x0a) await this.write("\n");
    return await this.next();
  }

  async next(): Promise<Reply> {
    for (;;) {
      const nl = this.#buf.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        const reply = JSON.parse(line) as Reply; // every stdout line is JSON
        this.replies.push(reply);
        return reply;
      }
      // A generous bound so that silence fails the test instead of hanging it.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const silent = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("no reply within 60 s (the line was answered with silence)")),
          60_000,
        );
      });
      const { value, done } = await Promise.race([this.#reader.read(), silent]).finally(() => clearTimeout(timer));
      if (done) throw new Error("the server closed stdout");
      this.#buf += value;
    }
  }

  async initialize(): Promise<void> {
    const r = await this.ask(JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }));
    assert(r.result, JSON.stringify(r));
    await this.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  }

  /** A request that must still work: the server keeps serving. */
  async alive(id: number): Promise<void> {
    const r = await this.ask(JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }));
    assertEquals([r.id, r.result], [id, {}], "the server still answers");
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.#reader.cancel().catch(() => {});
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await this.child.status;
    clearTimeout(timer);
  }
}

function expectError(r: Reply, code: number, id: string | number | null, label: string): void {
  assert(r.error, `${label}: expected an error, got ${JSON.stringify(r)}`);
  assertEquals([r.error.code, r.id], [code, id], `${label}: ${JSON.stringify(r)}`);
}

Deno.test(
  "malformed JSON-RPC lines get parse / invalid request / invalid params errors; serving goes on",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using s = new RawServer(t.env);
    await s.initialize();
    const call = (id: number, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });

    expectError(await s.ask("not json at all"), -32700, null, "non-JSON");
    expectError(await s.ask('{"jsonrpc":"2.0","id":1,"method":"ping"'), -32700, null, "cut JSON");
    expectError(await s.ask(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a])), -32700, null, "not UTF-8");
    await s.alive(2);

    expectError(await s.ask(call(3, { name: "pty_list", arguments: "str" })), -32602, 3, "arguments string");
    expectError(await s.ask(call(4, { name: "pty_list", arguments: [] })), -32602, 4, "arguments array");
    expectError(await s.ask(call(5, { name: "pty_list", arguments: 5 })), -32602, 5, "arguments number");
    expectError(await s.ask(call(6, { arguments: {} })), -32602, 6, "no tool name");
    expectError(await s.ask(call(7, "params")), -32602, 7, "params a string");
    expectError(await s.ask(call(8, [1, 2])), -32602, 8, "params an array");
    const bad = await s.ask(call(9, { name: 5 }));
    expectError(bad, -32602, 9, "name a number");
    assertStringIncludes(bad.error!.message, "name");
    await s.alive(10);

    for (const line of ["42", '"text"', "null", "true", "[]", '[{"jsonrpc":"2.0","id":11,"method":"ping"}]']) {
      expectError(await s.ask(line), -32600, null, line);
    }
    expectError(await s.ask('{"id":12,"method":"ping"}'), -32600, 12, "no jsonrpc");
    expectError(await s.ask('{"jsonrpc":"1.0","id":13,"method":"ping"}'), -32600, 13, "jsonrpc 1.0");
    expectError(await s.ask('{"jsonrpc":"2.0","id":14,"method":5}'), -32600, 14, "method a number");
    expectError(await s.ask('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}'), -32600, null, "id an object");
    expectError(await s.ask('{"jsonrpc":"2.0","id":1.5,"method":"ping"}'), -32600, null, "id a fraction");
    expectError(await s.ask('{"jsonrpc":"2.0","id":15}'), -32600, 15, "no method");
    expectError(await s.ask('{"jsonrpc":"2.0","id":16,"method":"ping","extra":1}'), -32600, 16, "unknown member");
    expectError(await s.ask('{"jsonrpc":"2.0","id":17,"method":"no/such"}'), -32601, 17, "unknown method");
    // A blank line is nothing (no reply); a CRLF line is a line.
    await s.write("\n   \n");
    const crlf = await s.ask('{"jsonrpc":"2.0","id":18,"method":"ping"}\r\n');
    assertEquals([crlf.id, crlf.result], [18, {}]);

    // A tools/call with good arguments still works, and nothing above was answered with -32603.
    const list = await s.ask(call(19, { name: "pty_list", arguments: {} }));
    assert(list.result && !list.result.isError, JSON.stringify(list));
    assertEquals(s.replies.filter((r) => r.error?.code === -32603), []);
  },
);

Deno.test(
  "a request line over 4 MiB is skipped unbuffered with -32600 naming the limit; 4 MiB exactly is read",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using s = new RawServer(t.env);
    await s.initialize();
    const send = (id: number, text: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        method: "tools/call",
        params: { name: "pty_send", arguments: { session_id: "nobody", text } },
        id, // last, as the SDK client writes it
      });
    const envelope = send(1, "").length;
    // One byte over the limit: refused with the id recovered from the line's end.
    const over = await s.ask(send(1, "x".repeat(4 * MIB + 1 - envelope)));
    expectError(over, -32600, 1, "over the limit");
    assertStringIncludes(over.error!.message, "4 MiB");
    // Exactly at the limit: parsed and dispatched (the tool itself refuses the text as too large).
    const at = await s.ask(send(2, "x".repeat(4 * MIB - envelope)));
    assertEquals(at.id, 2);
    assert(at.result?.isError === true, JSON.stringify(at).slice(0, 300));
    assertStringIncludes(JSON.stringify(at.result), "INPUT_TOO_LARGE");
    await s.alive(3);

    // 256 MiB of garbage without an id, written in 1 MiB pieces: -32600 with id null; the server does not hold it.
    const hwmBefore = peakRss(s.child.pid);
    const piece = new TextEncoder().encode("y".repeat(MIB));
    for (let k = 0; k < 256; k++) await s.write(piece);
    const garbage = await s.ask("\n");
    expectError(garbage, -32600, null, "256 MiB garbage");
    const grew = peakRss(s.child.pid) - hwmBefore;
    assert(grew < 128 * MIB, `peak RSS grew by ${Math.round(grew / MIB)} MiB while a 256 MiB line was skipped`);
    await s.alive(4);
    // An id at the start of an oversized line is recovered too.
    const head = await s.ask(
      `{"jsonrpc":"2.0","id":"first","method":"ping","params":{"pad":"${"z".repeat(5 * MIB)}"}}`,
    );
    expectError(head, -32600, "first", "id first");
    await s.alive(5);
  },
);

/** VmHWM of a process, in bytes. */
function peakRss(pid: number): number {
  const m = Deno.readTextFileSync(`/proc/${pid}/status`).match(/VmHWM:\s+(\d+) kB/);
  return m ? Number(m[1]) * 1024 : 0;
}
