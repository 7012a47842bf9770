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

/** Where a steer's text ended up on screen (see {@link HarnessAdapter.steerPlace}). */
export type SteerPlace = ReturnType<NonNullable<HarnessAdapter["steerPlace"]>>;

/** What {@link pasteAndSteer} saw. */
export interface SteerTyping {
  /** `joined` when the screen shows nothing left behind; otherwise where the text stayed. */
  place: SteerPlace;
  /** The adapter's steer steps were pressed (the text had been seen first in the queue). */
  pressed: boolean;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads the screen until `done(place)` or `ms` pass; returns the last place seen. */
async function watchPlace(
  mux: Multiplexer,
  sessionId: string,
  place: (screen: string) => SteerPlace,
  done: (p: SteerPlace) => boolean,
  ms: number,
): Promise<SteerPlace> {
  const deadline = Date.now() + ms;
  for (;;) {
    const p = place(await mux.capture(sessionId).catch(() => ""));
    if (done(p) || Date.now() >= deadline) return p;
    await pause(100);
  }
}

/**
 * Types a steer into a running turn: one bracketed paste and the submit steps; then, for harnesses that
 * queue text typed during a turn (`steerSteps` + `steerPlace`), presses the steer steps only once the
 * text is seen first in the queue, and looks again that it left the queue. Nothing is ever retyped.
 */
export async function pasteAndSteer(
  mux: Multiplexer,
  adapter: HarnessAdapter,
  sessionId: string,
  text: string,
): Promise<SteerTyping> {
  const residue = await pasteAndSubmit(mux, adapter, sessionId, text);
  const placeOf = adapter.steerPlace;
  if (!adapter.steerSteps || !placeOf) return { place: residue ? "composer" : "joined", pressed: false };
  const place = (screen: string) => placeOf(screen, text);
  const before = await watchPlace(mux, sessionId, place, (p) => p === "queued" || p === "joined", 2000);
  if (before !== "queued") return { place: before, pressed: false };
  await runSteps(mux, sessionId, adapter.steerSteps);
  let after = await watchPlace(mux, sessionId, place, (p) => p !== "queued", 3000);
  if (after !== "queued") {
    // A failed "send now" puts the text back in the queue: look once more.
    await pause(300);
    after = place(await mux.capture(sessionId).catch(() => ""));
  }
  return {
    place: after === "queued" || after === "queued_behind" || after === "composer" ? after : "joined",
    pressed: true,
  };
}
