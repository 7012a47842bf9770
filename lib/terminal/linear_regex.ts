/**
 * A linear-time matcher for `until` patterns. The syntax is JavaScript's (as `new RegExp(p, "m")` reads it: no
 * `u` flag, so code units, Annex B escapes), compiled into a Thompson NFA and run over a stream of text. Every
 * code unit is looked at once per NFA state, so the cost is O(text × pattern) for every pattern: `(a+)+$` cannot
 * backtrack. Features that need backtracking (backreferences, lookahead, lookbehind) are refused.
 *
 * Streaming: {@link StreamMatcher.feed} commits text, {@link StreamMatcher.peek} tests whether a match ends in
 * the committed text plus a provisional tail (the line still being written), with the end of that tail as the
 * end of the input. `^` matches at the start of the stream and after a line terminator, `$` before a line
 * terminator and at the end of what has been seen so far (the `m` flag).
 */
import { AppError } from "../../base/errors.ts";

/** The longest `until` (literal or pattern), in UTF-16 code units. */
export const MAX_UNTIL_CHARS = 1024;
/** The largest compiled program (NFA instructions); counted repetition can grow a short pattern past it. */
export const MAX_PROGRAM = 20_000;
const MAX_DEPTH = 200;

type Range = [number, number];

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
class CharSet {
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
const isWord = (c: number) => c >= 0 && WORD_SET.has(c);
const isLineTerminator = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

// ---- parsing ---------------------------------------------------------------------------------------------

type Node =
  | { t: "set"; ranges: Range[] }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "rep"; node: Node; min: number; max: number }
  | { t: "assert"; kind: Assertion };

type Assertion = "bol" | "eol" | "word" | "nonword";

function unsupported(what: string): AppError {
  return new AppError("INVALID_ARGUMENT", `Cannot use until as a regex: ${what} is not supported`, {
    data: { field: "until" },
    suggestion: "until_regex runs in linear time: no backreferences, lookahead or lookbehind",
  });
}

const HEX = /^[0-9A-Fa-f]+$/;
const QUANT = /^\{(\d+)(,(\d*))?\}/;

/** Recursive-descent parser over code units of a pattern `new RegExp(p, "m")` accepted. */
class Parser {
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

// ---- compiling -------------------------------------------------------------------------------------------

function tooManyStates(): AppError {
  return new AppError(
    "INVALID_ARGUMENT",
    `Cannot use until: it compiles to more than ${MAX_PROGRAM} states (counted repetition such as {n,m})`,
    { data: { field: "until", limit_states: MAX_PROGRAM }, suggestion: "use smaller {n,m} counts" },
  );
}

const CHAR = 0;
const SPLIT = 1;
const JMP = 2;
const ASSERT = 3;
const MATCH = 4;

/** A compiled pattern (see module doc). Immutable; one program serves any number of matchers. */
export class Program {
  readonly op: number[] = [];
  readonly a: number[] = [];
  readonly b: number[] = [];
  readonly sets: (CharSet | null)[] = [];
  readonly asserts: (Assertion | null)[] = [];
  /** Code units that can start a match (null: anything, e.g. when the pattern can match empty). */
  first: CharSet | null = null;
  /** The pattern's length, for error messages (the pattern itself is never echoed). */
  readonly sourceLength: number;
  readonly isRegex: boolean;

  constructor(sourceLength: number, isRegex: boolean) {
    this.sourceLength = sourceLength;
    this.isRegex = isRegex;
  }

  emit(op: number, a = 0, b = 0, set: CharSet | null = null, assertion: Assertion | null = null): number {
    if (this.op.length >= MAX_PROGRAM) throw tooManyStates();
    this.op.push(op);
    this.a.push(a);
    this.b.push(b);
    this.sets.push(set);
    this.asserts.push(assertion);
    return this.op.length - 1;
  }
}

function compileNode(p: Program, n: Node): void {
  switch (n.t) {
    case "set":
      p.emit(CHAR, 0, 0, new CharSet(n.ranges));
      return;
    case "assert":
      p.emit(ASSERT, 0, 0, null, n.kind);
      return;
    case "cat":
      for (const item of n.items) compileNode(p, item);
      return;
    case "alt": {
      const jumps: number[] = [];
      n.items.forEach((item, k) => {
        if (k === n.items.length - 1) {
          compileNode(p, item);
          return;
        }
        const split = p.emit(SPLIT);
        p.a[split] = split + 1;
        compileNode(p, item);
        jumps.push(p.emit(JMP));
        p.b[split] = p.op.length;
      });
      for (const j of jumps) p.a[j] = p.op.length;
      return;
    }
    case "rep":
      compileRepeat(p, n.node, n.min, n.max);
  }
}

function compileRepeat(p: Program, node: Node, min: number, max: number): void {
  // A count above the program limit is refused before looping (an empty group would never grow the program).
  if (Math.max(min, max === Infinity ? 0 : max) > MAX_PROGRAM) throw tooManyStates();
  for (let k = 0; k < min - (max === Infinity && min > 0 ? 1 : 0); k++) compileNode(p, node);
  if (max === Infinity) {
    if (min > 0) {
      // x+ : L: x; SPLIT L, next
      const start = p.op.length;
      compileNode(p, node);
      p.emit(SPLIT, start, p.op.length + 1);
    } else {
      // x* : L: SPLIT L+1, end; x; JMP L
      const split = p.emit(SPLIT);
      compileNode(p, node);
      p.emit(JMP, split);
      p.a[split] = split + 1;
      p.b[split] = p.op.length;
    }
    return;
  }
  for (let k = min; k < max; k++) {
    const split = p.emit(SPLIT);
    compileNode(p, node);
    p.a[split] = split + 1;
    p.b[split] = p.op.length;
  }
}

/** The code units that can start a match, or null when a match can be empty (assertions ignored). */
function firstSet(p: Program): CharSet | null {
  const seen = new Uint8Array(p.op.length);
  const stack = [0];
  const ranges: Range[] = [];
  while (stack.length) {
    const pc = stack.pop()!;
    if (seen[pc]) continue;
    seen[pc] = 1;
    const op = p.op[pc];
    if (op === MATCH) return null;
    if (op === CHAR) ranges.push(...p.sets[pc]!.ranges);
    else if (op === SPLIT) stack.push(p.a[pc]!, p.b[pc]!);
    else if (op === JMP) stack.push(p.a[pc]!);
    else if (op === ASSERT) stack.push(pc + 1);
  }
  return new CharSet(ranges);
}

function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

/**
 * Compiles `until`: a literal (`isRegex` false) or a pattern. The pattern is first checked by the JavaScript
 * engine (so the syntax errors are the familiar ones), then parsed here.
 * @throws {AppError} INVALID_ARGUMENT (too long, invalid, unsupported feature, too many states)
 */
export function compileUntil(until: string, isRegex: boolean): Program {
  if (until.length > MAX_UNTIL_CHARS) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `Cannot use until: it is ${until.length} characters; the limit is ${MAX_UNTIL_CHARS}`,
      { data: { field: "until", limit_chars: MAX_UNTIL_CHARS, size_chars: until.length } },
    );
  }
  const source = isRegex ? until : escapeLiteral(until);
  if (isRegex) {
    try {
      new RegExp(source, "m"); // compiling only (linear in the pattern); it never runs here
    } catch (err) {
      throw new AppError("INVALID_ARGUMENT", `Cannot use until as a regex: ${(err as Error).message}`, {
        data: { field: "until" },
      });
    }
  }
  const program = new Program(until.length, isRegex);
  compileNode(program, new Parser(source).parse());
  program.emit(MATCH);
  program.first = firstSet(program);
  return program;
}

// ---- matching --------------------------------------------------------------------------------------------

/** Runs a {@link Program} over a stream (see module doc). Work buffers are allocated once per matcher. */
export class StreamMatcher {
  readonly #p: Program;
  /** Instructions to continue from at the current position (after the last committed code unit). */
  readonly #pending: Int32Array;
  #count = 0;
  #prev = -1;
  readonly #mark: Int32Array;
  #gen = 0;
  readonly #from: Int32Array;
  readonly #to: Int32Array;
  readonly #threads: Int32Array;
  readonly #stack: Int32Array;

  constructor(program: Program) {
    this.#p = program;
    const n = program.op.length;
    this.#pending = new Int32Array(n);
    this.#mark = new Int32Array(n);
    this.#from = new Int32Array(n);
    this.#to = new Int32Array(n);
    this.#threads = new Int32Array(n);
    this.#stack = new Int32Array(3 * n + 1); // the start, every pending pc, and at most two pushes per pc
  }

  /** A matcher in the same state, to try a provisional tail in pieces without committing it here. */
  clone(): StreamMatcher {
    const copy = new StreamMatcher(this.#p);
    copy.#pending.set(this.#pending.subarray(0, this.#count));
    copy.#count = this.#count;
    copy.#prev = this.#prev;
    return copy;
  }

  /** Forgets everything seen: the next text starts a new stream (after a gap in the log). */
  reset(): void {
    this.#count = 0;
    this.#prev = -1;
  }

  /** Commits `text`; true when a match ends inside it (a match at its very end is seen by the next call). */
  feed(text: string): boolean {
    return this.#run(text, false);
  }

  /** True when a match ends in the committed text followed by `tail`, taking the end of `tail` as the end. */
  peek(tail: string): boolean {
    return this.#run(tail, true);
  }

  /** Simulates the NFA over `text`; commits the state unless `atEnd` (a peek). */
  #run(text: string, atEnd: boolean): boolean {
    const p = this.#p;
    const first = p.first;
    const sets = p.sets;
    let list = this.#from;
    let next = this.#to;
    list.set(this.#pending.subarray(0, this.#count));
    let count = this.#count;
    let prev = this.#prev;
    let i = 0;
    for (; i < text.length; i++) {
      let c = text.charCodeAt(i);
      if (count === 0 && first) {
        // No thread alive: skip code units that cannot start a match.
        while (!first.has(c) && i + 1 < text.length) {
          prev = c;
          c = text.charCodeAt(++i);
        }
        if (!first.has(c)) {
          prev = c;
          continue;
        }
      }
      const threads = this.#closure(list, count, prev, c);
      if (threads < 0) return true;
      let k = 0;
      for (let t = 0; t < threads; t++) {
        const pc = this.#threads[t]!;
        if (sets[pc]!.has(c)) next[k++] = pc + 1;
      }
      [list, next] = [next, list];
      count = k;
      prev = c;
    }
    if (atEnd) return this.#closure(list, count, prev, -1) < 0;
    this.#pending.set(list.subarray(0, count));
    this.#count = count;
    this.#prev = prev;
    return false;
  }

  /**
   * Follows empty transitions from the start and `list[0..count)` at the position between `prev` and `next`
   * (-1: none). Leaves the CHAR instructions reached in the thread buffer and returns how many; -1 on MATCH.
   */
  #closure(list: Int32Array, count: number, prev: number, next: number): number {
    const p = this.#p;
    if (this.#gen >= 0x3fffffff) {
      this.#mark.fill(0);
      this.#gen = 0;
    }
    const gen = ++this.#gen;
    const mark = this.#mark;
    const stack = this.#stack;
    const out = this.#threads;
    let sp = 0;
    stack[sp++] = 0;
    for (let k = count - 1; k >= 0; k--) stack[sp++] = list[k]!;
    let n = 0;
    while (sp > 0) {
      const pc = stack[--sp]!;
      if (mark[pc] === gen) continue;
      mark[pc] = gen;
      switch (p.op[pc]) {
        case CHAR:
          out[n++] = pc;
          break;
        case SPLIT:
          stack[sp++] = p.b[pc]!;
          stack[sp++] = p.a[pc]!;
          break;
        case JMP:
          stack[sp++] = p.a[pc]!;
          break;
        case ASSERT:
          if (assertionHolds(p.asserts[pc]!, prev, next)) stack[sp++] = pc + 1;
          break;
        case MATCH:
          return -1;
      }
    }
    return n;
  }
}

function assertionHolds(kind: Assertion, prev: number, next: number): boolean {
  switch (kind) {
    case "bol":
      return prev === -1 || isLineTerminator(prev);
    case "eol":
      return next === -1 || isLineTerminator(next);
    case "word":
      return isWord(prev) !== isWord(next);
    case "nonword":
      return isWord(prev) === isWord(next);
  }
}
