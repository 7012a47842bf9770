/** Helpers for the harness adapters' tests (never imported by product code). */
import type { ConfigureGoal, LaunchOptions, ScreenState } from "./types.ts";

/** harnesses/testdata/: the reference screens and transcript samples. */
export const TESTDATA = new URL("../testdata/", import.meta.url);

/** Reads `screens/<name>.txt` under `dir` (a folder URL under {@link TESTDATA}). */
export function screenIn(dir: URL, name: string): string {
  return Deno.readTextFileSync(new URL(`screens/${name}.txt`, dir));
}

/** A screen state in one word: its kind, or `blocked:<reason>`. */
export function shortState(s: ScreenState): string {
  return s.kind === "blocked" ? `blocked:${s.reason}` : s.kind;
}

/** A configure goal that keeps everything except what `g` sets. */
export function configureGoal(g: Partial<ConfigureGoal>): ConfigureGoal {
  return { model: null, modelLabel: null, effort: null, currentEffort: null, ...g };
}

/** Launch options with nothing asked for (no model, effort, write scope, fast, images or notice) except what `o` sets. */
export function launchOptions(o: Partial<LaunchOptions> & { bin: string; cwd: string }): LaunchOptions {
  return {
    model: null,
    reasoningEffort: null,
    writeScope: null,
    fast: null,
    images: [],
    sessionUuid: "11111111-2222-4333-8444-555555555555",
    notice: null,
    ...o,
  };
}
