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
 *
 * The parser and the code-unit sets are in ./regex_parse.ts; this file compiles the parsed tree and runs it.
 */
import { AppError } from "../../base/errors.ts";
import { type Assertion, CharSet, isLineTerminator, isWord, type Node, Parser, type Range } from "./regex_parse.ts";

/** The longest `until` (literal or pattern), in UTF-16 code units. */
export const MAX_UNTIL_CHARS = 1024;
/** The largest compiled program (NFA instructions); counted repetition can grow a short pattern past it. */
export const MAX_PROGRAM = 20_000;
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

/** An instruction's operands: jump targets `a` and `b`, the code units a CHAR takes, the kind of an ASSERT. */
interface Operands {
  a?: number;
  b?: number;
  set?: CharSet;
  assertion?: Assertion;
}

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

  /** Appends one instruction; its operands default to 0 and null. Returns its index. */
  emit(op: number, operands: Operands = {}): number {
    if (this.op.length >= MAX_PROGRAM) throw tooManyStates();
    this.op.push(op);
    this.a.push(operands.a ?? 0);
    this.b.push(operands.b ?? 0);
    this.sets.push(operands.set ?? null);
    this.asserts.push(operands.assertion ?? null);
    return this.op.length - 1;
  }
}

function compileNode(p: Program, n: Node): void {
  switch (n.t) {
    case "set":
      p.emit(CHAR, { set: new CharSet(n.ranges) });
      return;
    case "assert":
      p.emit(ASSERT, { assertion: n.kind });
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
      p.emit(SPLIT, { a: start, b: p.op.length + 1 });
    } else {
      // x* : L: SPLIT L+1, end; x; JMP L
      const split = p.emit(SPLIT);
      compileNode(p, node);
      p.emit(JMP, { a: split });
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
