import { assertEquals } from "../tests/helpers/assert.ts";
import { jsonBytes, jsonStringBytes, utf8Bytes } from "./json_size.ts";

const enc = new TextEncoder();

/** A deterministic pseudo-random string over an alphabet of every escaping class. */
function sample(seed: number, length: number): string {
  const alphabet = [
    "a",
    "Z",
    " ",
    '"',
    "\\",
    "/",
    "\n",
    "\r",
    "\t",
    "\b",
    "\f",
    "\x00",
    "\x1b",
    "\x1f",
    "\x7f",
    "é",
    "日",
    "😀",
    "\u2028",
    "\ud800",
    "\udc00",
    "\uffff",
  ];
  let x = seed;
  let out = "";
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out += alphabet[x % alphabet.length];
  }
  return out;
}

Deno.test("jsonStringBytes and utf8Bytes agree with JSON.stringify + TextEncoder", () => {
  const cases = ["", "plain", '"q"', "\\", "\x1b[0m", "é日😀", "\ud83d", "\ude00x", "😀\ud83d", "\u0000\u001f"];
  for (let seed = 1; seed <= 200; seed++) cases.push(sample(seed, seed % 37));
  for (const s of cases) {
    assertEquals(jsonStringBytes(s), enc.encode(JSON.stringify(s)).length, JSON.stringify(s));
    assertEquals(utf8Bytes(s), enc.encode(s).length, JSON.stringify(s));
  }
});

Deno.test("jsonBytes measures whole values as JSON.stringify serializes them", () => {
  const values: unknown[] = [
    { a: [1, null, true, "é\n"], b: { c: "x" }, d: undefined },
    [undefined, () => 1, NaN, -0, 1e21, 0.1],
    { 'k"ey': { nested: [[], {}, ""] }, date: new Date(0), f: () => 1, n: -1.5 },
    Object.create(null),
    { content: [{ type: "text", text: sample(7, 300) }], structuredContent: { text: sample(9, 500), has_more: true } },
  ];
  for (const v of values) assertEquals(jsonBytes(v), enc.encode(JSON.stringify(v)).length, JSON.stringify(v));
  assertEquals(jsonBytes(undefined), 0);
});
