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
    this.skip();
    if (this.#text[this.pos] === "]") {
      this.pos++;
      return { kind: "array", start, end: this.pos, value };
    }
    for (;;) {
      this.skip();
      if (this.#jsonc && this.#text[this.pos] === "]" && value.length > 0) {
        this.pos++;
        break;
      }
      value.push(this.value().value);
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
    return { kind: "array", start, end: this.pos, value };
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
  const members = obj.members ?? [];
  const last = members.at(-1);
  if (!last) {
    // Empty object: lay it out on lines unless the whole file is on one line.
    const compact = !text.trim().includes("\n");
    const outer = indentAt(text, obj.start);
    const inner = outer + unit;
    const body = compact
      ? `${JSON.stringify(key)}: ${serialize(value, unit, "", eol, true)}`
      : `${eol}${inner}${JSON.stringify(key)}: ${serialize(value, unit, inner, eol, false)}${eol}${outer}`;
    const interior = text.slice(obj.start + 1, obj.end - 1);
    // Only comments inside (JSONC): keep them, after the new member.
    if (interior.trim() !== "" && !compact) {
      return text.slice(0, obj.start + 1) + body.trimEnd() + interior + text.slice(obj.end - 1);
    }
    return text.slice(0, obj.start + 1) + body + text.slice(obj.end - 1);
  }
  const compact = !isMultiline(text, obj);
  const inner = compact ? "" : indentAt(text, last.keyStart);
  const entry = `${JSON.stringify(key)}: ${serialize(value, unit, inner, eol, compact)}`;
  // A trailing comma (JSONC) after the last member stays, now between the old last member and ours;
  // a comment on the same line after the last member stays with it.
  const sep = compact ? " " : eol + inner;
  const valueEnd = last.node.end;
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
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  if (root.kind !== "object") throw new JsonShapeError("the top level is not a JSON object");
  const holder = memberOf(root, container);
  if (!holder) return insertMember(text, root, container, { [name]: value }, eol);
  if (holder.node.kind !== "object") throw new JsonShapeError(`"${container}" is not a JSON object`);
  const existing = memberOf(holder.node, name);
  if (existing) return replaceValue(text, existing, value, eol);
  return insertMember(text, holder.node, name, value, eol);
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
