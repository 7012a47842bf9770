/**
 * The tools/list entry of a tool, kept small (ADR "surface budget"; tests/e2e/surface_test.ts). A
 * model reads the name, the description and the input schema of every tool it is offered; Claude Code
 * and Codex pass on nothing else (Codex also drops `default`, `pattern` and min/max). So:
 *
 * - The advertised input schema is the zod schema's JSON Schema, slimmed: no regex `pattern`, no
 *   nullable wrappers (`anyOf [X, null]` → X; the server still takes null as "absent"), no zod
 *   safe-integer bounds or `minLength: 1`, no `default: false` on a flag (absent is false), and the shared `remote`
 *   object in full in {@link REMOTE_FULL_TOOL} only, elsewhere as its names and types in one
 *   description. The server still validates every call with the full zod schema, so it refuses what
 *   it always refused.
 * - A thin alias (`aliasOf`) advertises `{type: "object"}` as its input and output schemas: its one-line
 *   description points to the tool it stands for, whose schemas it shares on the server.
 * - The output schema is structure for validation (types, enums, required, strictness) without
 *   descriptions: no client shows it to a model; field meanings live in the README. Success and
 *   failure share it (`anyOf`, ADR 0003). No `$ref`/`$defs` anywhere: each schema stands alone.
 */
import { z } from "zod";
import type { Tool } from "./sdk.ts";
import type { ToolDef } from "./tool.ts";

/** The structured form of every failed call. */
export const ToolErrorSchema = z.object({
  code: z.string().describe("UPPER_SNAKE error code"),
  message: z.string().describe("What failed"),
  suggestion: z.string().optional().describe("What to do about it"),
}).strict();

/** The one tool whose advertised input schema spells `remote` out in full. */
export const REMOTE_FULL_TOOL = "pty_open";

/** What an alias advertises as its input schema (the server validates the full one). */
export const ALIAS_INPUT_SCHEMA: Record<string, unknown> = { type: "object" };

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const out = z.toJSONSchema(schema, { target: "draft-7", io, unrepresentable: "any" }) as Json;
  delete out.$schema;
  return out;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isNull = (v: unknown): boolean => isObject(v) && v.type === "null" && Object.keys(v).length === 1;

/** A copy of `v` with every key in `drop` removed at every depth (property names are kept). */
function without(v: unknown, drop: ReadonlySet<string>): unknown {
  if (Array.isArray(v)) return v.map((x) => without(x, drop));
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "properties" && isObject(x)) {
      out[k] = Object.fromEntries(Object.entries(x).map(([name, p]) => [name, without(p, drop)]));
    } else if (!drop.has(k)) {
      out[k] = without(x, drop);
    }
  }
  return out;
}

/** `anyOf: [X, {type: "null"}]` → X and `type: [T, "null"]` → T, at every depth. */
export function dropNullable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNullable);
  if (!isObject(v)) return v;
  let node: Json = v;
  const anyOf = node.anyOf;
  if (Array.isArray(anyOf) && anyOf.some(isNull)) {
    const rest = anyOf.filter((x) => !isNull(x));
    const { anyOf: _gone, ...others } = node;
    node = rest.length === 1 && isObject(rest[0]) ? { ...rest[0], ...others } : { ...others, anyOf: rest };
  }
  if (Array.isArray(node.type) && node.type.includes("null")) {
    const types = node.type.filter((t) => t !== "null");
    node = { ...node, type: types.length === 1 ? types[0] : types };
  }
  const out: Json = {};
  for (const [k, x] of Object.entries(node)) {
    out[k] = k === "properties" && isObject(x)
      ? Object.fromEntries(Object.entries(x).map(([name, p]) => [name, dropNullable(p)]))
      : dropNullable(x);
  }
  return out;
}

/** `{a, b?, n?: integer, list?: string[]}`: an object schema's property names and non-string types. */
export function namesAndTypes(schema: Json): string {
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const typeOf = (p: unknown): string => {
    if (!isObject(p)) return "";
    if (p.type === "array") return `${typeOf(p.items) || "string"}[]`;
    return typeof p.type === "string" ? p.type : "";
  };
  const parts = Object.entries(props).map(([name, p]) => {
    const t = typeOf(p);
    return `${name}${required.has(name) ? "" : "?"}${t && t !== "string" ? `: ${t}` : ""}`;
  });
  return `{${parts.join(", ")}}`;
}

/** The short form of an object-valued property: its own sentence, its names and types, and where the rest is. */
function briefObject(full: Json, seeTool: string): Json {
  const what = typeof full.description === "string" ? full.description.replace(/\s*\(.*\)$/, "") : "";
  return { type: "object", description: `${what}: ${namesAndTypes(full)} as in ${seeTool}` };
}

/** A string bound no argument a model writes comes near (a path, a passphrase, an opaque cursor). */
const HUGE_LENGTH = 4096;

/**
 * Keywords that say nothing a model needs: zod's safe-integer bounds on every `.int()`, `minLength: 1`
 * (an empty string is refused as before), `maxLength` of {@link HUGE_LENGTH} or more, and `default: false` on a flag
 * (absent is false). At every depth.
 */
export function dropNoise(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNoise);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "maximum" && x === Number.MAX_SAFE_INTEGER) continue;
    if (k === "minimum" && x === Number.MIN_SAFE_INTEGER) continue;
    if (k === "minLength" && x === 1) continue;
    if (k === "maxLength" && typeof x === "number" && x >= HUGE_LENGTH) continue;
    if (k === "default" && x === false && v.type === "boolean") continue;
    out[k] = k === "properties" && isObject(x)
      ? Object.fromEntries(Object.entries(x).map(([name, p]) => [name, dropNoise(p)]))
      : dropNoise(x);
  }
  return out;
}

/** The input schema a tool advertises (see module doc). */
export function advertisedInput(def: ToolDef): Json {
  if (def.aliasOf) return { ...ALIAS_INPUT_SCHEMA };
  const schema = dropNoise(dropNullable(without(jsonSchema(def.input, "input"), new Set(["pattern"])))) as Json;
  const props = isObject(schema.properties) ? schema.properties : null;
  if (props && isObject(props.remote) && def.name !== REMOTE_FULL_TOOL) {
    props.remote = briefObject(props.remote, REMOTE_FULL_TOOL);
  }
  return schema;
}

const ERROR_OUTPUT = without(jsonSchema(ToolErrorSchema, "output"), new Set(["description"])) as Json;

/** The tools/list entry of a tool. Success and failure share one output schema (anyOf); an alias's is `{type: "object"}`. */
export function toolListing(def: ToolDef): Tool {
  const entry: Tool = {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: advertisedInput(def) as Tool["inputSchema"],
    annotations: { title: def.title, ...def.annotations },
  };
  entry.outputSchema = (def.aliasOf ? { type: "object" } : {
    type: "object",
    anyOf: [without(jsonSchema(def.output, "output"), new Set(["description"])), ERROR_OUTPUT],
  }) as Tool["outputSchema"];
  return entry;
}
