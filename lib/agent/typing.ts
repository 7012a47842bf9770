/**
 * The one typing chokepoint of the agent layer: everything aiterm types into an agent's TUI goes
 * through a {@link PaneInput} — the first prompt of agent_launch, pty_send dispatches and steers,
 * start-up dialog answers, usage-limit recoveries, approvals and agent_configure's stages (a remote
 * relay's request is typed by the remote aiterm, through its own chokepoint). It reaches the pane only
 * through lib/terminal's program-input methods, and its callers hold the session's send lock.
 *
 * Two kinds of input, kept apart:
 * - caller text (a prompt or steer): sanitised here, always ({@link cleanPrompt}: no escape sequence,
 *   so no bracketed-paste end marker, and no control character but tab and newline), pasted as one
 *   bracketed paste, then submitted with the harness's steps;
 * - harness key steps (KeyStep): named keys, pauses, and text. A text step that is one whole escape
 *   sequence is a key the harness encodes as bytes (Cursor's CSI-u Enter) and is typed as is; any
 *   other text step (e.g. `/model <id>`, which carries a caller's value) is sanitised like caller text.
 */
import type { HarnessAdapter, KeyStep, ScreenState } from "../../harnesses/mod.ts";
import { AppError } from "../../base/errors.ts";
import { sleep, waitUntil } from "../../base/wait.ts";
import { assertInputSize, sanitizeInput, type Terminal } from "../terminal/mod.ts";

/** A prompt as it will be typed. */
export interface CleanPrompt {
  text: string;
  /** Characters sanitising removed. */
  removed: number;
  /** UTF-8 bytes of `text`. */
  bytes: number;
}

/**
 * The rule for caller text typed into an agent: sanitised, at most 64 KiB, not blank. Used to
 * validate before anything exists or is typed; {@link PaneInput.submit} applies the same sanitising.
 * @throws {AppError} INPUT_TOO_LARGE, INVALID_ARGUMENT (blank after sanitising)
 */
export function cleanPrompt(input: string, field = "text"): CleanPrompt {
  const { text, removed } = sanitizeInput(input);
  const bytes = assertInputSize(text);
  if (text.trim() === "") {
    throw new AppError("INVALID_ARGUMENT", "Cannot dispatch an empty turn", {
      data: { field },
      suggestion: "nothing was typed",
    });
  }
  return { text, removed, bytes };
}

/** True when `text` is a single escape sequence (a key the harness encodes as bytes). */
function isKeySequence(text: string): boolean {
  return text.length > 1 && text.startsWith("\x1b") && sanitizeInput(text).text === "";
}

/** Where a steer's text ended up on screen (see {@link HarnessAdapter.steerPlace}). */
export type SteerPlace = ReturnType<NonNullable<HarnessAdapter["steerPlace"]>>;

/** What {@link PaneInput.steer} saw. */
export interface SteerTyping {
  /** `joined` when the screen shows nothing left behind; otherwise where the text stayed. */
  place: SteerPlace;
  /** The adapter's steer steps were pressed (the text had been seen first in the queue). */
  pressed: boolean;
}

/** The typing chokepoint for one agent session (see module doc). */
export class PaneInput {
  readonly terminal: Terminal;
  readonly id: string;
  readonly adapter: HarnessAdapter;

  constructor(terminal: Terminal, id: string, adapter: HarnessAdapter) {
    this.terminal = terminal;
    this.id = id;
    this.adapter = adapter;
  }

  /** The screen now ("" when it cannot be read), with `scrollback` history lines when asked. */
  async screen(options: { scrollback?: number } = {}): Promise<string> {
    return (await this.terminal.screen(this.id, options)) ?? "";
  }

  /** The screen's state right now (a capture, classified by the harness). */
  async state(): Promise<ScreenState & { screen: string }> {
    const screen = await this.screen();
    return { ...this.adapter.classifyScreen(screen), screen };
  }

  /** Runs harness key steps in order (text steps sanitised unless they are one escape sequence). */
  async steps(steps: KeyStep[]): Promise<void> {
    for (const step of steps) {
      if ("pauseMs" in step) await sleep(step.pauseMs);
      else if ("key" in step) await this.terminal.typeExact(this.id, { keys: [step.key] });
      else {
        const text = isKeySequence(step.text) ? step.text : sanitizeInput(step.text).text;
        await this.terminal.typeExact(this.id, { paste: text, bracketed: false });
      }
    }
  }

  /** Presses one harness-named key (an approval choice's key, Enter). */
  async key(name: string): Promise<void> {
    await this.terminal.typeExact(this.id, { keys: [name] });
  }

  /**
   * Pastes caller `text` once as a bracketed paste (sanitised here, whatever the caller did) and
   * submits it. Returns whether text was left in the composer after one retry of the final key
   * (submit residue).
   */
  async submit(text: string): Promise<boolean> {
    const clean = sanitizeInput(text).text;
    await this.terminal.typeExact(this.id, { paste: clean, bracketed: true });
    await this.steps(this.adapter.submitSteps);
    await sleep(150);
    let screen = await this.screen();
    if (!this.adapter.composerHolds(screen, clean)) return false;
    // Some TUIs swallow an Enter that arrives inside a paste burst: press the last key once more.
    const last = [...this.adapter.submitSteps].reverse().find((s) => "key" in s);
    if (last && "key" in last) {
      await sleep(400);
      await this.key(last.key);
      await sleep(250);
      screen = await this.screen();
    }
    return this.adapter.composerHolds(screen, clean);
  }

  /**
   * Types a steer into a running turn: {@link submit}; then, for harnesses that queue text typed during
   * a turn (`steerSteps` + `steerPlace`), presses the steer steps only once the text is seen first in the
   * queue, and looks again that it left the queue. Nothing is ever retyped.
   */
  async steer(text: string): Promise<SteerTyping> {
    const residue = await this.submit(text);
    const placeOf = this.adapter.steerPlace;
    if (!this.adapter.steerSteps || !placeOf) return { place: residue ? "composer" : "joined", pressed: false };
    const clean = sanitizeInput(text).text;
    const place = (screen: string) => placeOf(screen, clean);
    const before = await this.#watchPlace(place, (p) => p === "queued" || p === "joined", 2000);
    if (before !== "queued") return { place: before, pressed: false };
    await this.steps(this.adapter.steerSteps);
    let after = await this.#watchPlace(place, (p) => p !== "queued", 3000);
    if (after !== "queued") {
      // A failed "send now" puts the text back in the queue: look once more.
      await sleep(300);
      after = place(await this.screen());
    }
    return {
      place: after === "queued" || after === "queued_behind" || after === "composer" ? after : "joined",
      pressed: true,
    };
  }

  /** Reads the screen until `done(place)` or `ms` pass; returns the last place seen. */
  async #watchPlace(
    place: (screen: string) => SteerPlace,
    done: (p: SteerPlace) => boolean,
    ms: number,
  ): Promise<SteerPlace> {
    const seen = await waitUntil(async () => place(await this.screen()), {
      timeoutMs: ms,
      intervalMs: 100,
      until: done,
    });
    return seen.status === "done" ? seen.value : seen.last!;
  }
}
