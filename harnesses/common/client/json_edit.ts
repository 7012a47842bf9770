/**
 * Minimal, formatting-preserving edits of JSON (and JSONC) config files. The text is parsed into a
 * span tree; an edit replaces or inserts exactly one member and leaves every other byte (other
 * servers, key order, comments, odd indentation, line endings) as it was.
 */

/** A parsed JSON value with its byte span in the source text. */
export interface JsonNode {
  kind: "object" | "array" | "string" | "number" | "boolean" | "null";
  start: number;
  end: number;
  value: unknown;
  /** Object members in source order (duplicates kept; the last one wins, as in JSON.parse). */
  members?: JsonMember[];
  /** Array elements in source order. */
  items?: JsonNode[];
}

/** One `"key": value` of an object. */
export interface JsonMember {
  key: string;
  keyStart: number;
  node: JsonNode;
}

/** A syntax error with a 1-based line and column (never the offending text: configs can hold secrets). */
export class JsonSyntaxError extends Error {
  override readonly name = "JsonSyntaxError";
  constructor(message: string, readonly line: number, readonly column: number) {
    super(`${message} at line ${line}, column ${column}`);
  }
}

/** Parser options. */
export interface ParseOptions {
  /** Accept `//` and `/* *\/` comments and trailing commas (JSONC). */
  jsonc: boolean;
}

class Parser {
  #text: string;
  #jsonc: boolean;
  pos = 0;

  constructor(text: string, jsonc: boolean) {
    this.#text = text;
    this.#jsonc = jsonc;
  }

  fail(message: string, at = this.pos): never {
    const before = this.#text.slice(0, at);
    const line = before.split("\n").length;
    const column = at - (before.lastIndexOf("\n") + 1) + 1;
    throw new JsonSyntaxError(message, line, column);
  }

  skip(): void {
    const t = this.#text;
    for (;;) {
      const c = t[this.pos];
      if (c === " " || c === "\t" || c === "\n" || c === "\r") {
        this.pos++;
      } else if (this.#jsonc && c === "/" && t[this.pos + 1] === "/") {
        const nl = t.indexOf("\n", this.pos);
        this.pos = nl < 0 ? t.length : nl;
      } else if (this.#jsonc && c === "/" && t[this.pos + 1] === "*") {
        const close = t.indexOf("*/", this.pos + 2);
        if (close < 0) this.fail("unterminated comment");
        this.pos = close + 2;
      } else {
        return;
      }
    }
  }

  value(): JsonNode {
    this.skip();
    const t = this.#text;
    const start = this.pos;
    const c = t[start];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') {
      const value = this.string();
      return { kind: "string", start, end: this.pos, value };
    }
    for (const [word, value] of [["true", true], ["false", false], ["null", null]] as const) {
      if (t.startsWith(word, start)) {
        this.pos += word.length;
        return { kind: value === null ? "null" : "boolean", start, end: this.pos, value };
      }
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(t.slice(start, start + 400));
    if (m && m[0] !== "" && m[0] !== "-") {
      this.pos += m[0].length;
      return { kind: "number", start, end: this.pos, value: Number(m[0]) };
    }
    return this.fail(c === undefined ? "unexpected end of input" : "unexpected character");
  }

  string(): string {
    const t = this.#text;
    const start = this.pos;
    let i = start + 1;
    for (;;) {
      const c = t[i];
      if (c === undefined) this.fail("unterminated string", start);
      if (c === '"') break;
      if (c === "\\") {
        const e = t[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(t.slice(i + 2, i + 6))) this.fail("bad unicode escape", i);
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail("bad escape", i);
        i += 2;
        continue;
      }
      if (c.charCodeAt(0) < 0x20) this.fail("control character in string", i);
      i++;
    }
    this.pos = i + 1;
    return JSON.parse(t.slice(start, i + 1)) as string;
  }

  object(): JsonNode {
    const start = this.pos;
    this.pos++;
    const members: JsonMember[] = [];
    const value: Record<string, unknown> = {};
    this.skip();
    if (this.#text[this.pos] === "}") {
      this.pos++;
      return { kind: "object", start, end: this.pos, value, members };
    }
    for (;;) {
      this.skip();
      if (this.#text[this.pos] !== '"') {
        if (this.#jsonc && this.#text[this.pos] === "}" && members.length > 0) {
          this.pos++;
          break;
        }
        this.fail("expected a string key");
      }
      const keyStart = this.pos;
      const key = this.string();
      this.skip();
      if (this.#text[this.pos] !== ":") this.fail("expected ':'");
      this.pos++;
      const node = this.value();
      members.push({ key, keyStart, node });
      Object.defineProperty(value, key, { value: node.value, enumerable: true, writable: true, configurable: true });
      this.skip();
      const c = this.#text[this.pos];
      if (c === ",") {
        this.pos++;
        continue;
      }
      if (c === "}") {
        this.pos++;
        break;
      }
      this.fail("expected ',' or '}'");
    }
    return { kind: "object", start, end: this.pos, value, members };
  }

  array(): JsonNode {
    const start = this.pos;
    this.pos++;
    const value: unknown[] = [];
    const items: JsonNode[] = [];
    this.skip();
    if (this.#text[this.pos] === "]") {
      this.pos++;
      return { kind: "array", start, end: this.pos, value, items };
    }
    for (;;) {
      this.skip();
      if (this.#jsonc && this.#text[this.pos] === "]" && value.length > 0) {
        this.pos++;
        break;
      }
      const item = this.value();
      items.push(item);
      value.push(item.value);
      this.skip();
      const c = this.#text[this.pos];
      if (c === ",") {
        this.pos++;
        continue;
      }
      if (c === "]") {
        this.pos++;
        break;
      }
      this.fail("expected ',' or ']'");
    }
    return { kind: "array", start, end: this.pos, value, items };
  }
}

/** Parses `text` (no BOM) into a span tree. Throws {@link JsonSyntaxError}. */
export function parseJsonSpans(text: string, options: ParseOptions): JsonNode {
  const p = new Parser(text, options.jsonc);
  const root = p.value();
  p.skip();
  if (p.pos !== text.length) p.fail("unexpected text after the value");
  return root;
}

/** The member `key` of an object node (the last one when duplicated), or undefined. */
export function memberOf(node: JsonNode, key: string): JsonMember | undefined {
  return node.members?.findLast((m) => m.key === key);
}

/** The config does not have the shape an edit needs (e.g. `mcpServers` is not an object). */
export class JsonShapeError extends Error {
  override readonly name = "JsonShapeError";
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

function indentAt(text: string, at: number): string {
  const from = lineStart(text, at);
  return /^[ \t]*/.exec(text.slice(from, at))?.[0] ?? "";
}

/** The file's indent unit: the first indented line's leading whitespace, else two spaces. */
function indentUnit(text: string): string {
  const m = /\n([ \t]+)\S/.exec(text);
  return m?.[1] ?? "  ";
}

function serialize(value: unknown, unit: string, indent: string, eol: string, compact: boolean): string {
  if (compact) return JSON.stringify(value);
  return JSON.stringify(value, null, unit).split("\n").join(eol + indent);
}

function isMultiline(text: string, node: JsonNode): boolean {
  return text.slice(node.start, node.end).includes("\n");
}

/** Inserts `"key": value` as the last member of `obj`, in the object's own style. */
function insertMember(text: string, obj: JsonNode, key: string, value: unknown, eol: string): string {
  const unit = indentUnit(text);
  const last = obj.members?.at(-1);
  return appendEntry(
    text,
    obj,
    last ? { start: last.keyStart, end: last.node.end } : undefined,
    (indent, compact) => `${JSON.stringify(key)}: ${serialize(value, unit, indent, eol, compact)}`,
    eol,
  );
}

/**
 * Appends one entry (rendered by `render` for an indent and a layout) after `last`, the current last
 * entry of `container` (an object or an array), or into the empty `container`.
 */
function appendEntry(
  text: string,
  container: JsonNode,
  last: { start: number; end: number } | undefined,
  render: (indent: string, compact: boolean) => string,
  eol: string,
): string {
  const unit = indentUnit(text);
  if (!last) {
    // Empty container: lay it out on lines unless the whole file is on one line.
    const compact = !text.trim().includes("\n");
    const outer = indentAt(text, container.start);
    const inner = outer + unit;
    const body = compact ? render("", true) : `${eol}${inner}${render(inner, false)}${eol}${outer}`;
    const interior = text.slice(container.start + 1, container.end - 1);
    // Only comments inside (JSONC): keep them, after the new entry.
    if (interior.trim() !== "" && !compact) {
      return text.slice(0, container.start + 1) + body.trimEnd() + interior + text.slice(container.end - 1);
    }
    return text.slice(0, container.start + 1) + body + text.slice(container.end - 1);
  }
  const compact = !isMultiline(text, container);
  const inner = compact ? "" : indentAt(text, last.start);
  const entry = render(inner, compact);
  // A trailing comma (JSONC) after the last entry stays, now between the old last entry and ours;
  // a comment on the same line after the last entry stays with it.
  const sep = compact ? " " : eol + inner;
  const valueEnd = last.end;
  const after = /^(?:\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*,/.exec(text.slice(valueEnd));
  const commaEnd = after ? valueEnd + after[0].length : valueEnd;
  const at = compact ? commaEnd : commaEnd + sameLineComments(text.slice(commaEnd));
  const comma = after ? "" : ",";
  return text.slice(0, valueEnd) + comma + text.slice(valueEnd, at) + sep + entry + text.slice(at);
}

/** Length of the spaces and comments that follow on the same line (not the line break). */
function sameLineComments(rest: string): number {
  return /^(?:[ \t]+|\/\/[^\r\n]*|\/\*[^\r\n]*?\*\/)*/.exec(rest)?.[0].length ?? 0;
}

/** Replaces the value of an existing member, keeping its key and surroundings. */
function replaceValue(text: string, member: JsonMember, value: unknown, eol: string): string {
  const unit = indentUnit(text);
  const compact = !isMultiline(text, member.node);
  const indent = indentAt(text, member.keyStart);
  return text.slice(0, member.node.start) + serialize(value, unit, indent, eol, compact) + text.slice(member.node.end);
}

/**
 * Sets `root[container][name] = value` in `text`, touching nothing else. Creates `container` when
 * missing. Throws {@link JsonShapeError} when the root or the container is not an object.
 */
export function setNestedMember(
  text: string,
  root: JsonNode,
  container: string,
  name: string,
  value: unknown,
): string {
  const eol = eolOf(text);
  if (root.kind !== "object") throw new JsonShapeError("the top level is not a JSON object");
  const holder = memberOf(root, container);
  if (!holder) return insertMember(text, root, container, { [name]: value }, eol);
  if (holder.node.kind !== "object") throw new JsonShapeError(`"${container}" is not a JSON object`);
  const existing = memberOf(holder.node, name);
  if (existing) return replaceValue(text, existing, value, eol);
  return insertMember(text, holder.node, name, value, eol);
}

function eolOf(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/** Adds `"key": value` as the last member of the object `obj`, in its own layout. */
export function addMember(text: string, obj: JsonNode, key: string, value: unknown): string {
  if (obj.kind !== "object") throw new JsonShapeError("expected a JSON object");
  return insertMember(text, obj, key, value, eolOf(text));
}

/** Appends `value` as the last element of the array `arr`, in its own layout. */
export function appendArrayItem(text: string, arr: JsonNode, value: unknown): string {
  if (arr.kind !== "array") throw new JsonShapeError("expected a JSON array");
  const eol = eolOf(text);
  const unit = indentUnit(text);
  const last = arr.items?.at(-1);
  return appendEntry(text, arr, last, (indent, compact) => serialize(value, unit, indent, eol, compact), eol);
}

/** Replaces the value `node` (a member's value or an array element) with `value`; nothing else moves. */
export function replaceNode(text: string, node: JsonNode, value: unknown): string {
  const eol = eolOf(text);
  const compact = !isMultiline(text, node);
  return text.slice(0, node.start) + serialize(value, indentUnit(text), indentAt(text, node.start), eol, compact) +
    text.slice(node.end);
}

/**
 * Removes entry `index` of `spans` (the entries of `container`) with the separator that joins it to
 * a neighbour, keeping the other entries' bytes. The only entry leaves an empty container.
 */
function removeEntry(
  text: string,
  container: JsonNode,
  spans: { start: number; end: number }[],
  index: number,
): string {
  const cur = spans[index];
  if (!cur) throw new RangeError(`no entry ${index}`);
  if (spans.length === 1) return text.slice(0, container.start + 1) + text.slice(container.end - 1);
  const next = spans[index + 1];
  if (next) return text.slice(0, cur.start) + text.slice(next.start);
  // The last entry: drop the comma after the previous entry, but keep a comment on that line.
  const prevEnd = spans[index - 1]!.end;
  const comma = /^(?:\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*,/.exec(text.slice(prevEnd));
  if (!comma || prevEnd + comma[0].length > cur.start) return text.slice(0, prevEnd) + text.slice(cur.end);
  const commaAt = prevEnd + comma[0].length - 1;
  const note = /^[ \t]*(?:\/\/[^\r\n]*|\/\*[^\r\n]*?\*\/)/.exec(text.slice(commaAt + 1))?.[0] ?? "";
  return text.slice(0, commaAt) + note + text.slice(cur.end);
}

/** Removes element `index` of the array `arr`. */
export function removeArrayItem(text: string, arr: JsonNode, index: number): string {
  return removeEntry(text, arr, arr.items ?? [], index);
}

/** Removes `member` (one of `obj.members`) from the object `obj`. */
export function removeMember(text: string, obj: JsonNode, member: JsonMember): string {
  const members = obj.members ?? [];
  const index = members.indexOf(member);
  if (index < 0) throw new RangeError(`"${member.key}" is not a member of this object`);
  return removeEntry(text, obj, members.map((m) => ({ start: m.keyStart, end: m.node.end })), index);
}

/** Structural equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  return ak.length === Object.keys(bo).length && ak.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}
