/**
 * Full-screen programs (vim, less, man, top, htop, …) under a wait: they never print a shell's prompt or
 * end mark, so a wait settles on the rendered screen instead. A program is full-screen when the pane
 * shows its alternate screen (tmux `#{alternate_on}`), or when a program known to draw a screen and
 * wait for keys is in the foreground and not busy (top from procps and `less -X` draw on the normal
 * screen; a multiplexer that does not report the alternate screen). Shells and REPLs on the normal
 * screen are not full-screen: they stay `nested`.
 */
import { SCREEN_PROGRAMS } from "./send/mod.ts";

/** What decides whether the foreground is a full-screen program. */
export interface FullScreenFacts {
  /** The pane shows its alternate screen; undefined when the multiplexer does not say. */
  alternateOn: boolean | undefined;
  /** The foreground program's name (the group leader: `git` when git runs its pager). */
  name: string;
  /** Names of every process of the foreground group (the pager git started is one); empty when unknown. */
  members?: readonly string[] | undefined;
  /** The kernel's verdict on the foreground group (platform/input_wait.ts); null when it cannot tell. */
  readingInput: boolean | null;
}

/**
 * The name of the program that owns the whole screen, or null: the foreground program when the
 * alternate screen is on, else a known screen-drawing program (see SCREEN_PROGRAMS in ./programs.ts) in the
 * foreground group that is not busy. The caller has already ruled out the session's own shell.
 */
export function fullScreenProgram(f: FullScreenFacts): string | null {
  if (f.readingInput === false && f.alternateOn !== true) return null;
  const drawing = [f.name, ...(f.members ?? [])].find((n) => SCREEN_PROGRAMS.has(n));
  if (f.alternateOn === true) return drawing ?? f.name;
  return drawing ?? null;
}

/** {@link fullScreenProgram} as a yes/no. */
export function isFullScreen(f: FullScreenFacts): boolean {
  return fullScreenProgram(f) !== null;
}

/** How long the rendered screen must stay the same before a wait settles on it (see the notes on top). */
export const SCREEN_SETTLE_MS = 500;
/** The least time between two captures when there is no log to tell whether anything was drawn. */
const CAPTURE_GAP_MS = 200;

/**
 * Tracks whether the rendered screen stopped changing. With a log, no output since the last capture
 * means the screen cannot have changed, so a capture (one multiplexer call) is taken only after output:
 * about one per redraw burst. Without a log (a session aiterm did not open) it captures at most every
 * {@link CAPTURE_GAP_MS}.
 */
export class ScreenSettle {
  #shot: string | null = null;
  #stableSince = 0;
  #capturedAt = -Infinity;
  /** Captures taken so far (what settling cost). */
  captures = 0;

  constructor(readonly windowMs: number = SCREEN_SETTLE_MS) {}

  /** Forgets the screen (the foreground stopped being full-screen). */
  reset(): void {
    this.#shot = null;
    this.#capturedAt = -Infinity;
  }

  /**
   * Whether the screen has been the same for the window. `outputAt` is when the log last grew (null
   * without a log); `capture` returns the rendered screen, or null when it could not be read.
   */
  async settled(now: number, outputAt: number | null, capture: () => Promise<string | null>): Promise<boolean> {
    const stale = this.#shot === null ||
      (outputAt === null ? now - this.#capturedAt >= CAPTURE_GAP_MS : outputAt > this.#capturedAt);
    if (stale) {
      this.#capturedAt = now;
      this.captures++;
      const shot = await capture();
      if (shot === null) return false;
      // Output that redrew the same screen (a clock that did not tick, a repaint) is not a change.
      if (shot !== this.#shot) {
        this.#stableSince = outputAt ?? now;
        this.#shot = shot;
      }
    }
    return now - this.#stableSince >= this.windowMs;
  }
}

/**
 * The hint of a `screen_settled` verdict (its read shows the screen, see ./read.ts): drive it with keys; never C-c.
 */
export function screenSettledHint(name: string): string {
  return `${name} shows a full screen and waits for keys (a wait without raw, full or cursor shows it; screen:true reads it again); drive it ` +
    `with pty_key (or pty_send for text it asks for)`;
}

/** The hint of a timeout while a full-screen program kept redrawing (top, watch with a short interval). */
export function screenBusyHint(name: string): string {
  return `${name} shows a full screen that kept changing; read screen:true, and drive it with pty_key`;
}
