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
 * - harness key steps (KeyStep): named keys, pauses, waits until the composer shows the text typed
 *   before them (`shownMs`), and text. A text step that is one whole escape sequence is a key the
 *   harness encodes as bytes (Cursor's CSI-u Enter) and is typed as is; any other text step (e.g.
 *   `/model <id>`, which carries a caller's value) is sanitised like caller text.
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

/**
 * How long {@link PaneInput.submit} watches for the composer to let the text go after the submit key,
 * before pressing it once more (and again after that one retry). Only a swallowed key waits this long:
 * a taken Enter empties the composer in 5–160 ms (median), 330 ms at worst, on the real CLIs on a loaded
 * 2-core machine (tests/probes/submit_pause.ts, ADR 0023's amendment); the bound leaves room for a
 * slower redraw so a slow CLI is not pressed twice or reported as residue.
 */
const LEAVE_MS = 1000;

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

  /**
   * Runs harness key steps in order (text steps sanitised unless they are one escape sequence). A
   * `shownMs` step waits until the composer holds the text typed just before it: the last text step, or
   * `typed` (the prompt pasted before these steps) when none came yet.
   */
  async steps(steps: KeyStep[], typed: string | null = null): Promise<void> {
    let last = typed;
    for (const step of steps) {
      if ("pauseMs" in step) await sleep(step.pauseMs);
      else if ("shownMs" in step) {
        if (last !== null) await this.#composer(last, true, step.shownMs);
      } else if ("key" in step) await this.terminal.typeExact(this.id, { keys: [step.key] });
      else {
        const key = isKeySequence(step.text);
        const text = key ? step.text : sanitizeInput(step.text).text;
        await this.terminal.typeExact(this.id, { paste: text, bracketed: false });
        if (!key) last = text;
      }
    }
  }

  /** Presses one harness-named key (an approval choice's key, Enter). */
  async key(name: string): Promise<void> {
    await this.terminal.typeExact(this.id, { keys: [name] });
  }

  /**
   * Pastes caller `text` once as a bracketed paste (sanitised here, whatever the caller did) and
   * submits it with the harness's steps (which wait until the composer shows the text before the submit
   * key). Then the screen is watched until the composer lets the text go; while it still holds it after
   * {@link LEAVE_MS}, the last submit key is pressed once more and the screen watched again. Returns
   * whether text was left in the composer after that one retry (submit residue).
   */
  async submit(text: string): Promise<boolean> {
    const clean = sanitizeInput(text).text;
    await this.terminal.typeExact(this.id, { paste: clean, bracketed: true });
    await this.steps(this.adapter.submitSteps, clean);
    if (await this.#composer(clean, false, LEAVE_MS)) return false;
    // A TUI that swallowed the submit key (e.g. an Enter taken as a newline inside a paste burst) takes
    // the same key again: press the last one once more.
    const last = [...this.adapter.submitSteps].reverse().find((s) => "key" in s);
    if (!last || !("key" in last)) return true;
    await this.key(last.key);
    return !(await this.#composer(clean, false, LEAVE_MS));
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
      // A failed "send now" puts the text back in the queue: look once more. The 300 ms is not measured:
      // the screen shows the requeue only after Grok's own retry, whose timing was not probed.
      await sleep(300);
      after = place(await this.screen());
    }
    return {
      place: after === "queued" || after === "queued_behind" || after === "composer" ? after : "joined",
      pressed: true,
    };
  }

  /**
   * Watches the screen (at most `ms`) until the composer holds `text` (`holds` true) or no longer holds
   * it (`holds` false), seen on two looks in a row so one capture taken in the middle of a redraw does
   * not count. True when it did.
   */
  async #composer(text: string, holds: boolean, ms: number): Promise<boolean> {
    let streak = 0;
    const seen = await waitUntil(async () => {
      streak = this.adapter.composerHolds(await this.screen(), text) === holds ? streak + 1 : 0;
      return streak >= 2;
    }, { timeoutMs: ms, intervalMs: 10 });
    return seen.status === "done";
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
