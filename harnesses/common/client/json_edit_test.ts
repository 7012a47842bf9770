import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import {
  addMember,
  appendArrayItem,
  JsonShapeError,
  JsonSyntaxError,
  memberOf,
  parseJsonSpans,
  removeArrayItem,
  removeMember,
  replaceNode,
  setNestedMember,
} from "./json_edit.ts";

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

function arrayAt(text: string, key: string, jsonc = false) {
  return memberOf(parseJsonSpans(text, { jsonc }), key)!.node;
}

Deno.test("appendArrayItem follows the array's layout: lines, one line, empty, JSONC trailing comma", () => {
  const lines = '{\n  "a": [\n    1,\n    {"x": 1}\n  ]\n}\n';
  assertEquals(
    appendArrayItem(lines, arrayAt(lines, "a"), { y: 2 }),
    '{\n  "a": [\n    1,\n    {"x": 1},\n    {\n      "y": 2\n    }\n  ]\n}\n',
  );
  const flat = '{\n  "a": [1, 2]\n}';
  assertEquals(appendArrayItem(flat, arrayAt(flat, "a"), 3), '{\n  "a": [1, 2, 3]\n}');
  const empty = '{\n  "a": []\n}';
  assertEquals(appendArrayItem(empty, arrayAt(empty, "a"), 3), '{\n  "a": [\n    3\n  ]\n}');
  const jsonc = '{\n  "a": [\n    1, // one\n  ]\n}';
  assertEquals(appendArrayItem(jsonc, arrayAt(jsonc, "a", true), 2), '{\n  "a": [\n    1, // one\n    2\n  ]\n}');
});

Deno.test("removeArrayItem / removeMember take one entry and its separator; neighbours keep their bytes", () => {
  const text = '{\n  "a": [\n    1,\n    2,  \n    3\n  ]\n}';
  assertEquals(removeArrayItem(text, arrayAt(text, "a"), 0), '{\n  "a": [\n    2,  \n    3\n  ]\n}');
  assertEquals(removeArrayItem(text, arrayAt(text, "a"), 1), '{\n  "a": [\n    1,\n    3\n  ]\n}');
  assertEquals(removeArrayItem(text, arrayAt(text, "a"), 2), '{\n  "a": [\n    1,\n    2\n  ]\n}');
  assertEquals(removeArrayItem('{"a": [7]}', arrayAt('{"a": [7]}', "a"), 0), '{"a": []}');
  const withNote = '{"a": [\n  1, // keep me\n  2\n]}';
  assertEquals(removeArrayItem(withNote, arrayAt(withNote, "a", true), 1), '{"a": [\n  1 // keep me\n]}');
  const obj = '{"x": 1, "y": {"z": 2}, "w": 3}';
  const root = parseJsonSpans(obj, { jsonc: false });
  assertEquals(removeMember(obj, root, memberOf(root, "y")!), '{"x": 1, "w": 3}');
  assertEquals(removeMember(obj, root, memberOf(root, "w")!), '{"x": 1, "y": {"z": 2}}');
});

Deno.test("replaceNode swaps one value in place; addMember appends to any object", () => {
  const text = '{\n  "a": [\n    {"old": true},\n    2\n  ]\n}';
  const first = arrayAt(text, "a").items![0]!;
  assertEquals(replaceNode(text, first, { new: 1 }), '{\n  "a": [\n    {"new":1},\n    2\n  ]\n}');
  const root = parseJsonSpans("{}", { jsonc: false });
  assertEquals(addMember("{}", root, "version", 1), '{"version": 1}');
  assertThrows(() => addMember("[]", parseJsonSpans("[]", { jsonc: false }), "k", 1), JsonShapeError);
});
