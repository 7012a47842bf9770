/** The linear-time until matcher agrees with JavaScript's RegExp (flag m), streamed or not, and never backtracks. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { AppError } from "../../base/errors.ts";
import { compileUntil, MAX_UNTIL_CHARS, StreamMatcher } from "./linear_regex.ts";

/** A small deterministic PRNG (mulberry32), so a failure names a seed that reproduces it. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ATOMS = ["a", "b", "c", ".", "\\d", "\\w", "\\s", "\\W", "[ab]", "[^a]", "[a-c\\n]", "\\n", " ", "1", "-", "\\-"];
const ASSERTS = ["^", "$", "\\b", "\\B"];
const QUANTS = ["*", "+", "?", "{2}", "{1,2}", "{0,}", "*?", "+?", "{0,3}?"];

function pattern(r: () => number, depth: number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const n = 1 + Math.floor(r() * 3);
  let out = "";
  for (let k = 0; k < n; k++) {
    const roll = r();
    let piece: string;
    if (roll < 0.15) {
      out += pick(ASSERTS);
      continue;
    } else if (roll < 0.3 && depth > 0) {
      const inner = pattern(r, depth - 1) + (r() < 0.4 ? "|" + pattern(r, depth - 1) : "");
      piece = (r() < 0.5 ? "(?:" : "(") + inner + ")";
    } else piece = pick(ATOMS);
    out += piece + (r() < 0.35 ? pick(QUANTS) : "");
  }
  return out;
}

function text(r: () => number): string {
  const alphabet = ["a", "b", "c", "1", " ", "\n", "-", "é"];
  const n = Math.floor(r() * 12);
  let s = "";
  for (let k = 0; k < n; k++) s += alphabet[Math.floor(r() * alphabet.length)];
  return s;
}

/** Feeds `s` in random pieces, then peeks at a random tail; true when any step saw a match. */
function streamed(source: string, s: string, r: () => number): boolean {
  const m = new StreamMatcher(compileUntil(source, true));
  const cut = Math.floor(r() * (s.length + 1));
  let at = 0;
  while (at < cut) {
    const step = 1 + Math.floor(r() * (cut - at));
    if (m.feed(s.slice(at, at + step))) return true;
    at += step;
  }
  return m.peek(s.slice(cut));
}

Deno.test("random patterns and texts: the same verdict as RegExp(p, 'm').test, whole and streamed", () => {
  let compared = 0;
  for (let seed = 1; seed <= 4000; seed++) {
    const r = rng(seed);
    const source = pattern(r, 2);
    try {
      new RegExp(source, "m");
    } catch {
      continue; // e.g. a quantifier after an assertion: JavaScript refuses it too
    }
    for (let k = 0; k < 6; k++) {
      const s = text(r);
      const expected = new RegExp(source, "m").test(s);
      const whole = new StreamMatcher(compileUntil(source, true)).peek(s);
      assertEquals(whole, expected, `seed ${seed}: /${source}/m on ${JSON.stringify(s)}`);
      assertEquals(streamed(source, s, r), expected, `seed ${seed} streamed: /${source}/m on ${JSON.stringify(s)}`);
      compared++;
    }
  }
  assert(compared > 15_000, `compared ${compared}`);
});

Deno.test("Annex B syntax and escapes read as JavaScript reads them", () => {
  const cases: [string, string[]][] = [
    ["a{", ["a{", "xa{y"]],
    ["x{2,}y", ["xxy", "xxxxy", "xy"]],
    ["\\u{2}", ["uu", "u", "\u0002"]],
    ["\\u0041\\x42", ["AB", "ab"]],
    ["\\x4", ["x4", "\x04"]],
    ["\\cJ", ["\n", "cJ"]],
    ["\\c1", ["\\c1", "\x11"]],
    ["[\\c1]", ["\x11", "c"]],
    ["[\\d-z]", ["5", "-", "z", "y"]],
    ["[]a", ["a", "[]a"]],
    ["[^]", ["\n", "x", ""]],
    ["[\\b]", ["\b", "b"]],
    ["\\0", ["\0", "0"]],
    ["a]b}", ["a]b}", "ab"]],
    ["\\k", ["k", "\\k"]],
    ["(?<n>ab)c", ["abc", "ab"]],
    ["\\p{L}", ["p{L}", "é"]],
    ["^\\s*\\$$", ["  $", "x$", "a\n$\nb"]],
    ["😀+", ["😀😀", "\ud83d"]],
    ["[😀]", ["\ude00", "x"]],
    ["\\bfoo\\B", ["foox", "foo ", "afoox"]],
    ["$^", ["a\n\nb", "ab", ""]],
  ];
  for (const [source, texts] of cases) {
    for (const s of texts) {
      assertEquals(
        new StreamMatcher(compileUntil(source, true)).peek(s),
        new RegExp(source, "m").test(s),
        `/${source}/m on ${JSON.stringify(s)}`,
      );
    }
  }
});

Deno.test("a literal until matches itself exactly, specials included, also across feeds", () => {
  const lit = "a.b*(c)[d]{2}|$^\\";
  const m = new StreamMatcher(compileUntil(lit, false));
  assertEquals(m.feed("xx a.b*(c)[d]"), false);
  assertEquals(m.peek("{2}|$^"), false);
  assertEquals(m.peek("{2}|$^\\ tail"), true);
  assertEquals(new StreamMatcher(compileUntil("abc", false)).peek("aXbc"), false);
});

Deno.test("backtracking features and oversized patterns are INVALID_ARGUMENT; nothing runs", () => {
  const refused = (source: string, isRegex = true) => {
    try {
      compileUntil(source, isRegex);
    } catch (err) {
      assert(err instanceof AppError, String(err));
      assertEquals(err.code, "INVALID_ARGUMENT");
      return err.message;
    }
    throw new Error(`accepted ${source}`);
  };
  assert(refused("(a)\\1").includes("backreference"));
  assert(refused("(?<n>a)\\k<n>").includes("backreference"));
  assert(refused("a(?=b)").includes("lookahead"));
  assert(refused("a(?!b)").includes("lookahead"));
  assert(refused("(?<=a)b").includes("lookbehind"));
  assert(refused("(?<!a)b").includes("lookbehind"));
  assert(refused("\\01").includes("octal"));
  assert(refused("([").includes("Invalid regular expression"));
  assert(refused("x".repeat(MAX_UNTIL_CHARS + 1), false).includes(`limit is ${MAX_UNTIL_CHARS}`));
  assert(refused("(?:a{100}){300}").includes("states"));
  assert(refused("(?:){99999999}").includes("states"));
  compileUntil("x".repeat(MAX_UNTIL_CHARS), false);
});

Deno.test("patterns that backtrack exponentially in RegExp complete, in one pass per state", () => {
  // In V8 each of these takes about 2^n steps for n = 30: minutes. Here they are linear.
  const run = (source: string, s: string) => new StreamMatcher(compileUntil(source, true)).peek(s);
  const a = "a".repeat(100_000);
  assertEquals(run("(a+)+$", a + "!"), false);
  assertEquals(run("(a+)+$", a), true);
  assertEquals(run("^(x+x+)+y$", "x".repeat(50_000)), false);
  assertEquals(run("(a|aa)+b", a), false);
  assertEquals(run("(.*a){12}", "a".repeat(11) + "b".repeat(50_000)), false);
  assertEquals(run("(\\w+\\s?)+$", "word ".repeat(10_000) + "!"), false);
});
