/**
 * The parsing half of the `until` matcher (./linear_regex.ts compiles and runs what this returns): a
 * recursive-descent parser over the code units of a pattern `new RegExp(p, "m")` accepted, into a small tree
 * of code-unit sets, concatenations, alternations, repetitions and assertions, and the code-unit sets
 * themselves. Features that need backtracking (backreferences, lookahead, lookbehind) are refused here.
 */
import { AppError } from "../../base/errors.ts";

const MAX_DEPTH = 200;

/** An inclusive range of UTF-16 code units. */
export type Range = [number, number];

const DIGIT: Range[] = [[0x30, 0x39]];
const WORD: Range[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const SPACE: Range[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const LINE_TERMINATORS: Range[] = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];

function normalize(ranges: Range[]): Range[] {
  const sorted = ranges.map((r) => [r[0], r[1]] as Range).sort((a, b) => a[0] - b[0]);
  const out: Range[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push(r);
  }
  return out;
}

function complement(ranges: Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of normalize(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= 0xffff) out.push([next, 0xffff]);
  return out;
}

/** A set of UTF-16 code units: a bitmap for ASCII, sorted ranges above it. */
export class CharSet {
  readonly #ascii = new Uint8Array(128);
  readonly #high: number[] = [];
  /** The normalized ranges. */
  readonly ranges: readonly Range[];
  constructor(ranges: Range[]) {
    this.ranges = normalize(ranges);
    for (const [lo, hi] of this.ranges) {
      for (let c = lo; c <= Math.min(hi, 127); c++) this.#ascii[c] = 1;
      if (hi >= 128) this.#high.push(Math.max(lo, 128), hi);
    }
  }
  has(c: number): boolean {
    if (c < 128) return this.#ascii[c] === 1;
    const h = this.#high;
    let lo = 0;
    let hi = h.length / 2 - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (c < h[2 * mid]!) hi = mid - 1;
      else if (c > h[2 * mid + 1]!) lo = mid + 1;
      else return true;
    }
    return false;
  }
}

const WORD_SET = new CharSet(WORD);
/** Whether code unit `c` is a word character (`\w`); -1 (no code unit) is not. */
export const isWord = (c: number) => c >= 0 && WORD_SET.has(c);
/** Whether code unit `c` ends a line (for `^` and `$` under the `m` flag). */
export const isLineTerminator = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

/** A parsed pattern: sets of code units, concatenation, alternation, repetition and assertions. */
export type Node =
  | { t: "set"; ranges: Range[] }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "rep"; node: Node; min: number; max: number }
  | { t: "assert"; kind: Assertion };

/** A zero-width assertion: `^`, `$`, `\b`, `\B`. */
export type Assertion = "bol" | "eol" | "word" | "nonword";

function unsupported(what: string): AppError {
  return new AppError("INVALID_ARGUMENT", `Cannot use until as a regex: ${what} is not supported`, {
    data: { field: "until" },
    suggestion: "until_regex runs in linear time: no backreferences, lookahead or lookbehind",
  });
}

const HEX = /^[0-9A-Fa-f]+$/;
const QUANT = /^\{(\d+)(,(\d*))?\}/;

/** Recursive-descent parser over code units of a pattern `new RegExp(p, "m")` accepted. */
export class Parser {
  #i = 0;
  #depth = 0;
  readonly #p: string;
  readonly #named: boolean;
  constructor(pattern: string) {
    this.#p = pattern;
    this.#named = /\(\?<(?![=!])/.test(pattern);
  }

  parse(): Node {
    const node = this.#alt();
    if (this.#i < this.#p.length) throw unsupported(`"${this.#p[this.#i]}" at ${this.#i}`);
    return node;
  }

  #peek(k = 0): string | undefined {
    return this.#p[this.#i + k];
  }

  #alt(): Node {
    const items = [this.#cat()];
    while (this.#peek() === "|") {
      this.#i++;
      items.push(this.#cat());
    }
    return items.length === 1 ? items[0]! : { t: "alt", items };
  }

  #cat(): Node {
    const items: Node[] = [];
    while (this.#i < this.#p.length && this.#peek() !== "|" && this.#peek() !== ")") {
      const atom = this.#atom();
      items.push(atom.t === "assert" ? atom : this.#quantified(atom));
    }
    return items.length === 1 ? items[0]! : { t: "cat", items };
  }

  #quantified(atom: Node): Node {
    let min: number;
    let max: number;
    const c = this.#peek();
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const m = QUANT.exec(this.#p.slice(this.#i));
      if (!m) return atom; // Annex B: a "{" that does not start a quantifier is a literal.
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] ? Number(m[3]) : Infinity;
      this.#i += m[0].length - 1;
    } else return atom;
    this.#i++;
    if (this.#peek() === "?") this.#i++; // laziness does not change whether a match exists
    return { t: "rep", node: atom, min, max };
  }

  #atom(): Node {
    const c = this.#p[this.#i++]!;
    switch (c) {
      case "^":
        return { t: "assert", kind: "bol" };
      case "$":
        return { t: "assert", kind: "eol" };
      case ".":
        return { t: "set", ranges: complement(LINE_TERMINATORS) };
      case "(":
        return this.#group();
      case "[":
        return { t: "set", ranges: this.#class() };
      case "\\":
        return this.#escape();
      case "*":
      case "+":
      case "?":
        throw unsupported(`a quantifier with nothing to repeat at ${this.#i - 1}`);
      default:
        return lit(c.charCodeAt(0));
    }
  }

  #group(): Node {
    if (this.#peek() === "?") {
      const kind = this.#peek(1);
      if (kind === "=" || kind === "!") throw unsupported("lookahead");
      if (kind === "<" && (this.#peek(2) === "=" || this.#peek(2) === "!")) throw unsupported("lookbehind");
      if (kind === ":") this.#i += 2;
      else if (kind === "<") {
        const end = this.#p.indexOf(">", this.#i);
        if (end < 0) throw unsupported("an unterminated group name");
        this.#i = end + 1;
      } else throw unsupported(`the group "(?${kind ?? ""}"`);
    }
    if (++this.#depth > MAX_DEPTH) throw unsupported(`nesting deeper than ${MAX_DEPTH} groups`);
    const inner = this.#alt();
    this.#depth--;
    if (this.#p[this.#i++] !== ")") throw unsupported("an unterminated group");
    return inner.t === "assert" ? { t: "cat", items: [inner] } : inner; // a group is quantifiable, (^)* too
  }

  /** Escapes that mean the same inside and outside a class; null when `e` is not one of them. */
  #common(e: string): Range[] | number | null {
    switch (e) {
      case "d":
        return DIGIT;
      case "D":
        return complement(DIGIT);
      case "w":
        return WORD;
      case "W":
        return complement(WORD);
      case "s":
        return SPACE;
      case "S":
        return complement(SPACE);
      case "n":
        return 0x0a;
      case "r":
        return 0x0d;
      case "t":
        return 0x09;
      case "v":
        return 0x0b;
      case "f":
        return 0x0c;
      case "0":
        if (/[0-9]/.test(this.#peek() ?? "")) throw unsupported("a legacy octal escape");
        return 0;
      case "x":
      case "u": {
        const n = e === "x" ? 2 : 4;
        const digits = this.#p.slice(this.#i, this.#i + n);
        if (digits.length !== n || !HEX.test(digits)) return e.charCodeAt(0); // Annex B: identity escape
        this.#i += n;
        return parseInt(digits, 16);
      }
    }
    if (/[1-9]/.test(e)) throw unsupported("a backreference (or legacy octal escape)");
    return null;
  }

  #escape(): Node {
    const e = this.#p[this.#i++];
    if (e === undefined) throw unsupported("a trailing backslash");
    if (e === "b") return { t: "assert", kind: "word" };
    if (e === "B") return { t: "assert", kind: "nonword" };
    if (e === "k" && this.#named) throw unsupported("a named backreference");
    if (e === "c") {
      const letter = this.#peek() ?? "";
      if (/[A-Za-z]/.test(letter)) {
        this.#i++;
        return lit(letter.charCodeAt(0) % 32);
      }
      this.#i--; // Annex B: "\c" not followed by a letter is a backslash, and the "c" is read next
      return lit(0x5c);
    }
    const common = this.#common(e);
    if (common === null) return lit(e.charCodeAt(0));
    return typeof common === "number" ? lit(common) : { t: "set", ranges: common };
  }

  /** One class atom: a code unit, or the ranges of a class escape. */
  #classAtom(): number | Range[] {
    const c = this.#p[this.#i++];
    if (c === undefined) throw unsupported("an unterminated class");
    if (c !== "\\") return c.charCodeAt(0);
    const e = this.#p[this.#i++];
    if (e === undefined) throw unsupported("a trailing backslash");
    if (e === "b") return 0x08;
    if (e === "c") {
      const letter = this.#peek() ?? "";
      if (/[A-Za-z0-9_]/.test(letter)) {
        this.#i++;
        return letter.charCodeAt(0) % 32;
      }
      this.#i--;
      return 0x5c;
    }
    const common = this.#common(e);
    return common === null ? e.charCodeAt(0) : common;
  }

  #class(): Range[] {
    const negate = this.#peek() === "^";
    if (negate) this.#i++;
    const ranges: Range[] = [];
    const add = (a: number | Range[]) => typeof a === "number" ? ranges.push([a, a]) : ranges.push(...a);
    while (this.#peek() !== "]") {
      const a = this.#classAtom();
      if (this.#peek() === "-" && this.#peek(1) !== "]" && this.#peek(1) !== undefined) {
        this.#i++;
        const b = this.#classAtom();
        if (typeof a === "number" && typeof b === "number") {
          if (a > b) throw unsupported("a class range out of order");
          ranges.push([a, b]);
        } else {
          add(a); // Annex B: a class escape on either side makes "-" a literal
          add(0x2d);
          add(b);
        }
      } else add(a);
    }
    this.#i++;
    return negate ? complement(ranges) : normalize(ranges);
  }
}

function lit(c: number): Node {
  return { t: "set", ranges: [[c, c]] };
}
