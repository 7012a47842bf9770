/** Line framing and vetting of the stdio transport, byte by byte. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { type Frame, LineFramer, LineTransport, recoverId, vetLine, vetMessage } from "./stdio_transport.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const show = (frames: Frame[]) =>
  frames.map((f) => f.kind === "line" ? dec(f.bytes) : `<${f.bytes} bytes, id ${f.id}>`);

Deno.test("lines split anywhere across chunks, CR dropped, the last unterminated line kept for end()", () => {
  const input = 'a\r\nbc\n\n{"x":1}\nlast';
  for (let cut = 0; cut <= input.length; cut++) {
    const f = new LineFramer(100);
    const frames = [...f.push(enc(input.slice(0, cut))), ...f.push(enc(input.slice(cut)))];
    const end = f.end();
    assertEquals(show(frames), ["a", "bc", "", '{"x":1}'], `cut ${cut}`);
    assertEquals(end && show([end]), ["last"]);
  }
});

Deno.test("a line over the limit is counted, never held, and framing resumes after its newline", () => {
  const f = new LineFramer(10);
  const frames = [
    ...f.push(enc("0123456789\n")), // exactly the limit: a line
    ...f.push(enc("01234567890")), // one over
    ...f.push(enc("x".repeat(1000))),
    ...f.push(enc('yy,"id":7}\r\nok\n')),
  ];
  assertEquals(show(frames), ["0123456789", "<1022 bytes, id 7>", "ok"]);
});

Deno.test("ids of oversized lines come only from a plain first or last member", () => {
  assertEquals(recoverId(enc('{"jsonrpc":"2.0","id":"a\\"b","method":'), enc("")), 'a"b');
  assertEquals(recoverId(enc('{"id":12,'), enc("")), 12);
  assertEquals(recoverId(enc('{"method":"x","params":{'), enc('"z"}},"id":42}')), 42);
  assertEquals(recoverId(enc('{"method":"x"'), enc('{"id":42}}')), null); // nested, not the message's
  assertEquals(recoverId(enc("garbage"), enc("garbage")), null);
  assertEquals(recoverId(enc('{"id":1.5,'), enc("")), null);
});

Deno.test("vetLine: parse errors, invalid requests and invalid params are told apart", () => {
  const code = (line: string | Uint8Array) => {
    const v = vetLine(typeof line === "string" ? enc(line) : line);
    return v === null ? "blank" : "problem" in v ? [v.problem.code, v.problem.id, v.problem.answer] : "message";
  };
  assertEquals(code("  "), "blank");
  assertEquals(code("nope"), [-32700, null, true]);
  assertEquals(code(new Uint8Array([0xc3])), [-32700, null, true]);
  assertEquals(code("[]"), [-32600, null, true]);
  assertEquals(code('{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"x","arguments":[]}}'), [
    -32602,
    "q",
    true,
  ]);
  assertEquals(code('{"jsonrpc":"2.0","method":"notifications/progress","params":"x"}'), [-32602, null, false]);
  assertEquals(code('{"jsonrpc":"2.0","id":3,"result":{}}'), "message");
  assertEquals(code('{"jsonrpc":"2.0","id":3,"result":5}'), [-32600, null, true]);
  assertEquals(code('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{}}}'), "message");
});

Deno.test("at the end of input the transport answers what it read before it closes", async () => {
  const lines = '{"jsonrpc":"2.0","id":1,"method":"ping"}\nbad\n';
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(enc(lines));
      c.close();
    },
  });
  const written: string[] = [];
  const output = new WritableStream<Uint8Array>({ write: (b) => void written.push(dec(b)) });
  const t = new LineTransport({ input, output });
  let closed = false;
  const got: unknown[] = [];
  t.onclose = () => closed = true;
  t.onmessage = (m) => {
    got.push(m);
    setTimeout(() => void t.send({ jsonrpc: "2.0", id: 1, result: {} }), 50); // a slow handler
  };
  await t.start();
  await new Promise((r) => setTimeout(r, 20));
  assert(!closed, "closed before the request was answered");
  assertEquals(written.map((w) => JSON.parse(w).error?.code), [-32700]);
  while (!closed) await new Promise((r) => setTimeout(r, 10));
  assertEquals(got.length, 1);
  assertEquals(written.map((w) => JSON.parse(w).id), [null, 1]);
});

Deno.test("answers sent while a write is in flight go out together, whole and in order; a single one at once", async () => {
  const writes: string[] = [];
  let release: (() => void) | null = null;
  let slow = true;
  const output = new WritableStream<Uint8Array>({
    // The first write is slow (a full pipe): what is sent meanwhile waits for it.
    write: async (b) => {
      writes.push(dec(b));
      if (slow) {
        slow = false;
        await new Promise<void>((r) => release = r);
      }
    },
  });
  const input = new ReadableStream<Uint8Array>({ start() {} });
  const t = new LineTransport({ input, output });
  await t.start();
  const first = t.send({ jsonrpc: "2.0", id: 0, result: {} });
  await new Promise((r) => setTimeout(r, 10));
  assertEquals(writes.length, 1, "a single answer is written at once");
  const rest = Array.from(
    { length: 50 },
    (_, i) => t.send({ jsonrpc: "2.0", id: i + 1, result: { n: "x".repeat(i) } }),
  );
  await new Promise((r) => setTimeout(r, 10));
  assertEquals(writes.length, 1, "the others wait for the write in flight");
  release!();
  await Promise.all([first, ...rest]);
  assertEquals(writes.length, 2, "the 50 answers went out in one write");
  const lines = writes.join("").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  assertEquals(lines.map((l) => l.id), Array.from({ length: 51 }, (_, i) => i));
  // Over the batch limit, a batch is cut between lines (never inside one).
  const big = "y".repeat(200 * 1024);
  writes.length = 0;
  await Promise.all([0, 1, 2].map((i) => t.send({ jsonrpc: "2.0", id: 100 + i, result: { big } })));
  assert(writes.length >= 2, `${writes.length} writes`);
  for (const w of writes) assert(w.endsWith("\n"), "every write ends at a line end");
  await t.close();
});

Deno.test("vetLine: a plain tools/call is accepted by hand exactly where the SDK's schema accepts it", () => {
  const calls: unknown[] = [
    { name: "x" },
    { name: "x", arguments: {} },
    { name: "x", arguments: { a: [1], b: { c: null } } },
    { name: "x", arguments: {}, _meta: {} },
    { name: "x", arguments: {}, _meta: { progressToken: "t" } },
    { name: "x", arguments: {}, _meta: { progressToken: 7 } },
    { name: "x", _meta: { progressToken: 7.5 } },
    { name: "x", _meta: { progressToken: null } },
    { name: "x", _meta: { other: 1 } },
    { name: "x", _meta: [] },
    { name: "x", arguments: [] },
    { name: "x", arguments: null },
    { name: "x", arguments: "a" },
    { name: 5 },
    { arguments: {} },
    { name: "x", task: { ttl: 1000 } },
    { name: "x", extra: true },
    { name: "x", arguments: {}, __proto__: null },
  ];
  for (const params of calls) {
    const line = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params });
    const v = vetLine(enc(line));
    const viaSchema = vetMessage({ jsonrpc: "2.0", id: 1, method: "tools/call", params, probe: 1 });
    // The same verdict as the schema's (the unknown member `probe` makes the schema path run to its end).
    const accepted = v !== null && "message" in v;
    const schemaAccepts = "problem" in viaSchema && viaSchema.problem.code === -32600;
    assertEquals(accepted, schemaAccepts, line);
  }
});
