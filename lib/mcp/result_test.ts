/** Result size limits: the text block is not a second copy of a large body; oversize results become RESULT_TOO_LARGE. */
import { z } from "zod";
import { assert, assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import { jsonBytes } from "../../base/json_size.ts";
import { MAX_RESULT_BYTES, successResult, TEXT_COPY_BYTES } from "./result.ts";
import { Client, InMemoryTransport } from "./sdk.ts";
import type { CallToolResult } from "./sdk.ts";
import { createServer } from "./server.ts";
import { callLimitsFor } from "../../harnesses/clients/mod.ts";
import { defineTool, type ToolDef, type ToolDeps } from "./tool.ts";

function textOf(r: CallToolResult): string {
  const first = r.content[0];
  return first && first.type === "text" ? first.text : "";
}

Deno.test("a small text block is the tool's own text; a large one is a summary without the long strings", () => {
  const small = successResult({ text: "hello", next_cursor: 5 }, "hello\n[next_cursor=5]");
  assertEquals(textOf(small), "hello\n[next_cursor=5]");
  const body = "x".repeat(200_000);
  const big = successResult({ has_more: true, next_cursor: 200_000, text: body }, body + "\n[next_cursor=200000]");
  const summary = textOf(big);
  assert(summary.length < 1000, `summary of ${summary.length} chars`);
  assert(!summary.includes("xxxxxxxxxx"), "the body was repeated in the text block");
  assertEquals(JSON.parse(summary).next_cursor, 200_000);
  assertStringIncludes(JSON.parse(summary).text, "200000 characters");
  assertEquals((big.structuredContent as { text: string }).text, body);
  // Many short strings (no single long one) fall back to a one-line note.
  const many = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, "short value"]));
  const note = textOf(successResult(many, JSON.stringify(many)));
  assert(note.length <= TEXT_COPY_BYTES && note.includes("structuredContent"), note.slice(0, 200));
});

const echo = defineTool({
  name: "fake_echo",
  title: "Echo",
  description: "Returns n characters",
  input: z.object({ n: z.number().int() }).strict(),
  output: z.object({ text: z.string() }).strict(),
  annotations: { readOnlyHint: true },
  handler: (input) => Promise.resolve({ text: "é".repeat(input.n) }),
});

Deno.test("a result over 1 MiB becomes RESULT_TOO_LARGE naming the tool; the real client stays connected", async () => {
  const server = createServer(
    { version: "0.0.0-test", parents: [], callLimits: () => callLimitsFor("test", {}) } as unknown as ToolDeps,
    [
      echo as unknown as ToolDef,
    ],
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "result-size-test", version: "0.0.0" });
  await client.connect(clientSide);
  try {
    await client.listTools(); // the client now validates structuredContent against each output schema
    // 600,000 × "é" is 1.2 MB of JSON: over the limit in structuredContent alone.
    const big = (await client.callTool({ name: "fake_echo", arguments: { n: 600_000 } })) as CallToolResult;
    assertEquals(big.isError, true);
    const sc = big.structuredContent as { code: string; message: string };
    assertEquals(sc.code, "RESULT_TOO_LARGE");
    assertStringIncludes(sc.message, "fake_echo");
    assert(textOf(big).startsWith("RESULT_TOO_LARGE: "), textOf(big));
    assert(jsonBytes(big) < 2048);
    // Just under the limit passes whole, and its text block is a summary (not a second copy).
    const fits = (await client.callTool({ name: "fake_echo", arguments: { n: 500_000 } })) as CallToolResult;
    assertEquals(fits.isError, undefined);
    assertEquals((fits.structuredContent as { text: string }).text.length, 500_000);
    assert(jsonBytes(fits) <= MAX_RESULT_BYTES, `${jsonBytes(fits)} bytes`);
    assert(textOf(fits).length < 1000);
  } finally {
    await client.close();
    await server.close();
  }
});
