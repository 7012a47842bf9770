/** Typing into an agent's TUI: one bracketed paste, then the harness's submit steps, then a residue check. */
import type { HarnessAdapter, KeyStep, ScreenState } from "../../harnesses/mod.ts";
import type { Multiplexer } from "../../platform/mod.ts";
import { utf8Chunks } from "../terminal/mod.ts";

/** Runs key steps in order. */
export async function runSteps(mux: Multiplexer, sessionId: string, steps: KeyStep[]): Promise<void> {
  for (const step of steps) {
    if ("pauseMs" in step) await new Promise((r) => setTimeout(r, step.pauseMs));
    else if ("key" in step) await mux.sendKeys(sessionId, [step.key]);
    else await mux.pasteText(sessionId, utf8Chunks(step.text), {});
  }
}

/** The screen's state right now (a capture, classified by the harness). */
export async function screenState(
  mux: Multiplexer,
  adapter: HarnessAdapter,
  sessionId: string,
): Promise<ScreenState & { screen: string }> {
  const screen = await mux.capture(sessionId).catch(() => "");
  return { ...adapter.classifyScreen(screen), screen };
}

/**
 * Pastes `text` once as a bracketed paste and submits it. Returns whether text was left in the
 * composer after one retry of the final key (submit residue).
 */
export async function pasteAndSubmit(
  mux: Multiplexer,
  adapter: HarnessAdapter,
  sessionId: string,
  text: string,
): Promise<boolean> {
  await mux.pasteText(sessionId, utf8Chunks(text), { bracketed: true });
  await runSteps(mux, sessionId, adapter.submitSteps);
  await new Promise((r) => setTimeout(r, 150));
  let screen = await mux.capture(sessionId).catch(() => "");
  if (!adapter.composerHolds(screen, text)) return false;
  // Some TUIs swallow an Enter that arrives inside a paste burst: press the last key once more.
  const last = [...adapter.submitSteps].reverse().find((s) => "key" in s);
  if (last && "key" in last) {
    await new Promise((r) => setTimeout(r, 400));
    await mux.sendKeys(sessionId, [last.key]);
    await new Promise((r) => setTimeout(r, 250));
    screen = await mux.capture(sessionId).catch(() => "");
  }
  return adapter.composerHolds(screen, text);
}
