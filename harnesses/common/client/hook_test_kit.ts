/** What the hook-file tests of the vendor folders share (never imported by product code). */

/** A server command from source, and a newer compiled one. */
export const BASE = { command: "/opt/deno", args: ["run", "-A", "/src/aiterm/main.ts"] };
export const NEWER = { command: "/opt/aiterm/aiterm-mcp", args: [] };

/** Asserts that `fn` throws an instance of `type`. */
export function throwsA(fn: () => unknown, type: new (...a: never[]) => Error): void {
  try {
    fn();
  } catch (err) {
    if (err instanceof type) return;
    throw new Error(`expected ${type.name}, got ${String(err)}`);
  }
  throw new Error(`expected ${type.name}`);
}

/** A throwaway HOME with a server command whose program and module both exist. */
export interface HookBox {
  home: string;
  env: Record<string, string>;
  /** A server command whose program and module both exist. */
  server: { command: string; args: string[] };
}

/** Runs `fn` in a fresh {@link HookBox}, removed afterwards. */
export async function withHome(fn: (box: HookBox) => Promise<void>): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "aiterm-hooks-" });
  try {
    const main = `${home}/aiterm/main.ts`;
    await Deno.mkdir(`${home}/aiterm`);
    await Deno.writeTextFile(main, "// stand-in\n");
    await fn({
      home,
      env: { HOME: home, PATH: "/usr/bin:/bin" },
      server: { command: Deno.execPath(), args: ["run", "-A", main] },
    });
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}
