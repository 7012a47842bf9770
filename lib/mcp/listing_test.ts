import { z } from "zod";
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { RemoteSchema } from "../remote/mod.ts";
import { dropNoise, dropNullable, namesAndTypes, toolListing } from "./listing.ts";
import { defineTool } from "./tool.ts";

Deno.test("dropNullable() unwraps anyOf-with-null and type arrays at every depth, keeping the description", () => {
  const got = dropNullable({
    type: "object",
    properties: {
      a: { description: "A", anyOf: [{ type: "string" }, { type: "null" }] },
      b: { type: ["integer", "null"] },
      c: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
      d: { type: "object", properties: { e: { anyOf: [{ type: "boolean" }, { type: "null" }] } } },
    },
  });
  assertEquals(got, {
    type: "object",
    properties: {
      a: { type: "string", description: "A" },
      b: { type: "integer" },
      c: { anyOf: [{ type: "string" }, { type: "number" }] },
      d: { type: "object", properties: { e: { type: "boolean" } } },
    },
  });
});

Deno.test("dropNoise() removes safe-integer bounds, minLength 1 and default:false on flags only", () => {
  const got = dropNoise({
    properties: {
      n: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      m: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: 600 },
      f: { type: "boolean", default: false },
      s: { type: "string", minLength: 1, maxLength: 9 },
      t: { type: "boolean", default: true },
      default: { type: "string", default: "x" },
    },
  });
  assertEquals(got, {
    properties: {
      n: { type: "integer", minimum: 0 },
      m: { type: "integer", maximum: 600 },
      f: { type: "boolean" },
      s: { type: "string", maxLength: 9 },
      t: { type: "boolean", default: true },
      default: { type: "string", default: "x" },
    },
  });
});

Deno.test("namesAndTypes() lists required names bare, optional ones with ?, non-strings with their type", () => {
  assertEquals(
    namesAndTypes({
      properties: {
        host: { type: "string" },
        port: { type: "integer" },
        opts: { type: "array", items: { type: "string" } },
      },
      required: ["host"],
    }),
    "{host, port?: integer, opts?: string[]}",
  );
});

const tool = (name: string, aliasOf?: string) =>
  defineTool({
    name,
    title: name,
    description: "Do a thing.",
    input: z.object({
      id: z.string().regex(/^[a-z]+$/).describe("Id"),
      n: z.number().int().min(0).nullish().describe("Count"),
      remote: RemoteSchema.optional(),
    }).strict(),
    output: z.object({ ok: z.boolean().describe("Whether it worked") }).strict(),
    annotations: { readOnlyHint: true },
    handler: () => Promise.resolve({ ok: true }),
    ...(aliasOf ? { aliasOf } : {}),
  });

Deno.test("toolListing(): remote in full in pty_open only; patterns, nulls and output descriptions gone", () => {
  const open = toolListing(tool("pty_open"));
  const other = toolListing(tool("pty_read"));
  const props = (t: typeof open) => t.inputSchema.properties as Record<string, Record<string, unknown>>;
  assert(props(open).remote!.properties, "pty_open lost the full remote");
  assertEquals(Object.keys(props(other).remote!), ["type", "description"]);
  assertEquals(props(other).id, { type: "string", description: "Id" });
  assertEquals(props(other).n, { type: "integer", minimum: 0, description: "Count" });
  assert(!JSON.stringify(other.outputSchema).includes("description"), JSON.stringify(other.outputSchema));
  const anyOf = (other.outputSchema as unknown as { anyOf: Record<string, unknown>[] }).anyOf;
  assertEquals(anyOf.map((s) => Object.keys(s.properties as object)), [["ok"], ["code", "message", "suggestion"]]);
});

Deno.test("toolListing(): an alias advertises {type: object} for input and output", () => {
  const alias = toolListing(tool("old_name", "pty_read"));
  assertEquals([alias.inputSchema, alias.outputSchema], [{ type: "object" }, { type: "object" }]);
  assertEquals(alias.description, "Do a thing.");
});
