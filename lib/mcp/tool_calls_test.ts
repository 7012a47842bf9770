import { z } from "zod";
import { assert, assertEquals, assertRejects } from "../../tests/helpers/assert.ts";
import { createServer } from "./server.ts";
import { type CallToolResult, Client, InMemoryTransport } from "./sdk.ts";
import { callLimitsFor } from "../../harnesses/clients/mod.ts";
import { defineTool, type ToolDef, type ToolDeps } from "./tool.ts";

/** A tool that reports progress, then waits until its signal aborts or `release` is called. */
function waitingTool(seen: { aborted: boolean; started: boolean }, release: Promise<void>) {
  return defineTool({
    name: "fake_wait",
    title: "Wait",
    description: "Waits",
    input: z.object({ steps: z.number().int() }).strict(),
    output: z.object({ done: z.boolean() }).strict(),
    annotations: { readOnlyHint: true },
    handler: async (input, _deps, ctx) => {
      seen.started = true;
      for (let i = 1; i <= input.steps; i++) await ctx.progress(i, input.steps, `step ${i}`);
      await Promise.race([release, new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }))]);
      seen.aborted = ctx.signal.aborted;
      return { done: !ctx.signal.aborted };
    },
  });
}

async function pair(tool: unknown) {
  const server = createServer(
    { version: "0.0.0-test", parents: [], callLimits: () => callLimitsFor("test", {}) } as unknown as ToolDeps,
    [tool as ToolDef],
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "tool-calls-test", version: "0.0.0" });
  await client.connect(clientSide);
  return {
    client,
    clientSide,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

Deno.test("tool calls: the answer, progress for the request's token, TOOL_UNKNOWN, bad params refused", async () => {
  const seen = { aborted: false, started: false };
  await using p = await pair(waitingTool(seen, Promise.resolve()));
  const progress: string[] = [];
  const r = (await p.client.callTool({ name: "fake_wait", arguments: { steps: 2 } }, undefined, {
    onprogress: (x) => void progress.push(`${x.progress}/${x.total} ${x.message}`),
  })) as CallToolResult;
  assertEquals(r.structuredContent, { done: true });
  assertEquals(progress, ["1/2 step 1", "2/2 step 2"]);
  const unknown = (await p.client.callTool({ name: "nope", arguments: {} })) as CallToolResult;
  assertEquals(unknown.isError, true);
  assertEquals((unknown.structuredContent as { code: string }).code, "TOOL_UNKNOWN");
  const bad = (await p.client.callTool({ name: "fake_wait", arguments: { steps: "x" } })) as CallToolResult;
  assertEquals((bad.structuredContent as { code: string }).code, "INVALID_ARGUMENT");
  // params without a name: a JSON-RPC error, not a result.
  const answers: unknown[] = [];
  const raw = p.clientSide.onmessage;
  p.clientSide.onmessage = (m) => {
    if ((m as { id?: unknown }).id === "raw-1") answers.push(m);
    else raw?.(m);
  };
  await p.clientSide.send({ jsonrpc: "2.0", id: "raw-1", method: "tools/call", params: { arguments: {} } });
  await new Promise((r) => setTimeout(r, 20));
  assertEquals((answers[0] as { error: { code: number } }).error.code, -32602);
});

Deno.test("tool calls: a cancelled call's signal aborts (the client stops waiting; no answer is sent)", async () => {
  const seen = { aborted: false, started: false };
  await using p = await pair(waitingTool(seen, new Promise(() => {})));
  const cancel = new AbortController();
  const call = p.client.callTool({ name: "fake_wait", arguments: { steps: 0 } }, undefined, { signal: cancel.signal });
  for (let i = 0; i < 100 && !seen.started; i++) await new Promise((r) => setTimeout(r, 5));
  assert(seen.started);
  cancel.abort("no longer needed");
  await assertRejects(() => call);
  for (let i = 0; i < 100 && !seen.aborted; i++) await new Promise((r) => setTimeout(r, 5));
  assertEquals(seen.aborted, true, "the tool's signal aborted");
});

Deno.test("tool calls: closing the connection aborts the calls in flight", async () => {
  const seen = { aborted: false, started: false };
  const p = await pair(waitingTool(seen, new Promise(() => {})));
  const call = p.client.callTool({ name: "fake_wait", arguments: { steps: 0 } }).catch(() => "closed");
  for (let i = 0; i < 100 && !seen.started; i++) await new Promise((r) => setTimeout(r, 5));
  await p[Symbol.asyncDispose]();
  assertEquals(await call, "closed");
  for (let i = 0; i < 100 && !seen.aborted; i++) await new Promise((r) => setTimeout(r, 5));
  assertEquals(seen.aborted, true);
});

Deno.test("tool calls: the transport's own onclose (main.ts exits on it) still runs when the connection closes", async () => {
  const server = createServer(
    { version: "0.0.0-test", parents: [], callLimits: () => callLimitsFor("test", {}) } as unknown as ToolDeps,
    [],
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  let ownerSaw = 0;
  serverSide.onclose = () => void ownerSaw++;
  await server.connect(serverSide);
  await clientSide.close();
  assertEquals(ownerSaw, 1);
  await server.close();
});

/** A tool that hands work to after its answer (as a read hands over its cursor's move) and records how it settled. */
function settlingTool(settled: boolean[], release: Promise<void>) {
  return defineTool({
    name: "fake_settle",
    title: "Settle",
    description: "Settles",
    input: z.object({}).strict(),
    output: z.object({ ok: z.boolean() }).strict(),
    annotations: { readOnlyHint: true },
    handler: async (_input, _deps, ctx) => {
      ctx.settle?.((delivered) => {
        settled.push(delivered);
        return Promise.resolve();
      });
      await Promise.race([release, new Promise((r) => ctx.signal.addEventListener("abort", r, { once: true }))]);
      return { ok: true };
    },
  });
}

Deno.test("tool calls: work handed to after the answer runs with true once it was written, false when cancelled", async () => {
  const settled: boolean[] = [];
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  await using p = await pair(settlingTool(settled, gate));
  // Cancelled while running: the answer is never written, the work settles with false.
  const abort = new AbortController();
  const cut = p.client.callTool({ name: "fake_settle", arguments: {} }, undefined, { signal: abort.signal });
  await new Promise((r) => setTimeout(r, 20));
  abort.abort();
  await assertRejects(() => cut);
  await new Promise((r) => setTimeout(r, 20));
  assertEquals(settled, [false]);
  open();
  const r = (await p.client.callTool({ name: "fake_settle", arguments: {} })) as CallToolResult;
  assertEquals(r.structuredContent, { ok: true });
  await new Promise((r) => setTimeout(r, 20));
  assertEquals(settled, [false, true]);
});
