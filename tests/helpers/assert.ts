/** Minimal assertions (the JSR std library is unreachable here). */

/** Deep structural equality for JSON-like values and typed arrays. */
function equal(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((v, i) => v === b[i]);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function show(v: unknown): string {
  if (v instanceof Uint8Array) return `Uint8Array[${[...v].join(",")}]`;
  const s = JSON.stringify(v);
  return s && s.length > 2000 ? s.slice(0, 2000) + "…" : String(s);
}

/** Fails unless `cond` is truthy. */
export function assert(cond: unknown, msg = "assertion failed"): asserts cond {
  if (!cond) throw new Error(msg);
}

/** Fails unless the values are deeply equal. */
export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (!equal(actual, expected)) {
    throw new Error(`${msg ? msg + ": " : ""}expected ${show(expected)}, got ${show(actual)}`);
  }
}

/** Fails unless `text` contains `part`. */
export function assertStringIncludes(text: string, part: string, msg?: string): void {
  if (!text.includes(part)) throw new Error(`${msg ? msg + ": " : ""}expected ${show(text)} to include ${show(part)}`);
}

/** Fails unless `text` matches `re`. */
export function assertMatch(text: string, re: RegExp, msg?: string): void {
  if (!re.test(text)) throw new Error(`${msg ? msg + ": " : ""}expected ${show(text)} to match ${re}`);
}

/** Fails unless `fn` throws (or rejects); returns the error. */
export async function assertRejects(fn: () => unknown): Promise<Error> {
  try {
    await fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a rejection");
}
