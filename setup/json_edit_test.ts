import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { JsonShapeError, JsonSyntaxError, parseJsonSpans, setNestedMember } from "./json_edit.ts";

function assertThrows<E extends Error>(fn: () => unknown, type: new (...a: never[]) => E): E {
  try {
    fn();
  } catch (err) {
    if (err instanceof type) return err;
    throw new Error(`expected ${type.name}, got ${String(err)}`);
  }
  throw new Error(`expected ${type.name} to be thrown`);
}

const ENTRY = { command: "/opt/aiterm/aiterm-mcp", args: [] };

function edit(text: string, jsonc = false): string {
  return setNestedMember(text, parseJsonSpans(text, { jsonc }), "mcpServers", "aiterm", ENTRY);
}

Deno.test("insert keeps every other byte of an oddly formatted file (tabs, odd spacing, key order)", () => {
  const text =
    '{\n\t"zeta" :  1,\n\t"mcpServers":{\n\t\t"other": {"command": "x", "args": ["-y"]}\n\t},\n\t"alpha": [1,2]\n}\n';
  const out = edit(text);
  assert(
    out.startsWith(
      '{\n\t"zeta" :  1,\n\t"mcpServers":{\n\t\t"other": {"command": "x", "args": ["-y"]},\n\t\t"aiterm": {',
    ),
  );
  assert(out.endsWith('\n\t},\n\t"alpha": [1,2]\n}\n'));
  const v = JSON.parse(out);
  assertEquals(v.mcpServers.aiterm, ENTRY);
  assertEquals(v.mcpServers.other, { command: "x", args: ["-y"] });
  assertEquals(Object.keys(v), ["zeta", "mcpServers", "alpha"]);
});

Deno.test("a missing mcpServers is added as the last member", () => {
  const out = edit('{\n  "numStartups": 3\n}\n');
  assertEquals(JSON.parse(out), { numStartups: 3, mcpServers: { aiterm: ENTRY } });
  assert(out.startsWith('{\n  "numStartups": 3,\n  "mcpServers": {\n    "aiterm": {'));
});

Deno.test("an existing aiterm entry is replaced in place; its neighbours are untouched", () => {
  const text = '{"mcpServers": {"a": {"command": "a"}, "aiterm": {"command": "old"}, "b": {"command": "b"}}}';
  const out = edit(text);
  assertEquals(
    out,
    '{"mcpServers": {"a": {"command": "a"}, "aiterm": {"command":"/opt/aiterm/aiterm-mcp","args":[]}, "b": {"command": "b"}}}',
  );
});

Deno.test("one-line files stay on one line; empty objects are filled", () => {
  assertEquals(edit("{}"), '{"mcpServers": {"aiterm":{"command":"/opt/aiterm/aiterm-mcp","args":[]}}}');
  assertEquals(edit('{"mcpServers":{}}'), '{"mcpServers":{"aiterm": {"command":"/opt/aiterm/aiterm-mcp","args":[]}}}');
});

Deno.test("JSONC: comments and a trailing comma survive the edit", () => {
  const text = '// my servers\n{\n  "mcpServers": {\n    /* keep */ "other": { "command": "x" }, // why\n  },\n}\n';
  const out = edit(text, true);
  assert(out.includes("// my servers") && out.includes("/* keep */") && out.includes("// why"));
  const v = parseJsonSpans(out, { jsonc: true }).value as { mcpServers: Record<string, unknown> };
  assertEquals(Object.keys(v.mcpServers), ["other", "aiterm"]);
});

Deno.test("JSONC: a same-line comment stays with the member it follows; comments in an empty object stay", () => {
  const out = edit('{\n  "mcpServers": {\n    "a": 1 // about a\n  }\n}\n', true);
  assert(out.includes('"a": 1, // about a\n    "aiterm": {'), out);
  const out2 = edit('{\n  "mcpServers": {\n    "a": 1, /* about a */\n  }\n}\n', true);
  assert(out2.includes('"a": 1, /* about a */\n    "aiterm": {'), out2);
  const out3 = edit('{\n  "mcpServers": {\n    // none yet\n  }\n}\n', true);
  assert(out3.includes("// none yet"), out3);
  const v = parseJsonSpans(out3, { jsonc: true }).value as { mcpServers: Record<string, unknown> };
  assertEquals(v.mcpServers.aiterm, ENTRY);
});

Deno.test("CRLF files get CRLF lines", () => {
  const out = edit('{\r\n  "mcpServers": {\r\n    "x": {"command": "x"}\r\n  }\r\n}\r\n');
  assert(!/[^\r]\n/.test(out));
});

Deno.test("strict JSON rejects comments and trailing commas, with a position and no content", () => {
  const err = assertThrows(() => parseJsonSpans('{\n  "a": 1, // secret-token\n}', { jsonc: false }), JsonSyntaxError);
  assertEquals(err.line, 2);
  assert(!err.message.includes("secret"));
  assertThrows(() => parseJsonSpans('{"a": 1,}', { jsonc: false }), JsonSyntaxError);
  assertThrows(() => parseJsonSpans('{"a": 1} x', { jsonc: false }), JsonSyntaxError);
  assertThrows(() => parseJsonSpans('{"a": 01}', { jsonc: false }), JsonSyntaxError);
});

Deno.test("parsed values equal JSON.parse, duplicates last-wins, __proto__ is plain data", () => {
  const text = '{"a": [1, -2.5e3, true, null, "\\u00e9\\n"], "b": {"c": {}}, "a2": 1, "a2": 2, "__proto__": {"x": 1}}';
  assertEquals(parseJsonSpans(text, { jsonc: false }).value, JSON.parse(text));
});

Deno.test("shape errors: the root or mcpServers is not an object", () => {
  assertThrows(() => edit("[]"), JsonShapeError);
  assertThrows(() => edit('{"mcpServers": []}'), JsonShapeError);
});
