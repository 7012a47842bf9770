/**
 * Sizes of serialized JSON, counted without building the bytes: what a value adds to a JSON-RPC
 * line. Used to keep every tool result under the size all common MCP clients accept (see
 * lib/mcp/result.ts) and to size read pages before they are sent (lib/terminal/read_page.ts).
 */

/** UTF-8 length of a string, as `TextEncoder` would encode it (a lone surrogate becomes U+FFFD, 3 bytes). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * UTF-8 length of `JSON.stringify(s)`, quotes included: `"` `\` and the short escapes take 2 bytes,
 * other C0 controls and lone surrogates 6 (`\u001b`), everything else its UTF-8 length.
 */
export function jsonStringBytes(s: string): number {
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20) n += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
    else if (c === 0x22 || c === 0x5c) n += 2;
    else if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) n += 6;
    else n += 3;
  }
  return n;
}

/**
 * UTF-8 length of `JSON.stringify(value)` (0 for a value JSON cannot represent, such as undefined),
 * counted by walking plain data so that a large result is not copied once more just to be measured.
 */
export function jsonBytes(value: unknown): number {
  return valueBytes(value, false) ?? 0;
}

/** Bytes of one value; null when JSON leaves it out (undefined, functions, symbols). */
function valueBytes(value: unknown, inArray: boolean): number | null {
  switch (typeof value) {
    case "string":
      return jsonStringBytes(value);
    case "number":
    case "boolean":
      return JSON.stringify(value).length;
    case "undefined":
    case "function":
    case "symbol":
      return inArray ? 4 : null;
    case "bigint":
      JSON.stringify(value); // throws, as serializing would
      return 0;
  }
  if (value === null) return 4;
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    let n = 2 + Math.max(0, value.length - 1);
    for (const item of value) n += valueBytes(item, true)!;
    return n;
  }
  if (proto !== Object.prototype && proto !== null) {
    // Anything with its own serialization (toJSON, boxed values): measure what it turns into.
    const text = JSON.stringify(value);
    return text === undefined ? (inArray ? 4 : null) : utf8Bytes(text);
  }
  let n = 2;
  let first = true;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const size = valueBytes(item, false);
    if (size === null) continue;
    n += (first ? 0 : 1) + jsonStringBytes(key) + 1 + size;
    first = false;
  }
  return n;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
