/**
 * Type-ahead into a shell that has not taken the previous line yet. A send ending with Enter at the
 * session's own (integrated) shell starts a command: `sh`, `python3`, `ssh host`. Until the shell has
 * taken that line, its line editor holds the terminal in raw mode (bash: readline, with bracketed
 * paste); a second send typed in that window is planned for the shell (bracketed paste, the shell's
 * mark) but is read by the program the first line starts, in a mode it did not expect. Seen here: a
 * nested `sh` received the paste markers and a carriage return without a newline, waited for the rest
 * of the line forever, and the marked send's read timed out (1 run in 25 under load).
 *
 * So a send right after such a line first waits, bounded, until the shell has taken it: a program other
 * than the shell holds the terminal's foreground, or the shell printed a new prompt mark after that
 * line. Only then is the send planned (for the program, or for the shell again). Nothing waits when
 * the previous line was typed longer ago than the bound, or went to a program, or the shell has no
 * integration (no prompt marks to tell).
 */
import { waitUntil } from "../../../base/wait.ts";

/** How long a send waits for the shell to take the previous line. */
export const TYPE_AHEAD_WAIT_MS = 2_000;

/** A line typed into the session's own shell that it may not have taken yet. */
interface Pending {
  /** The log offset before the line was typed: a prompt mark after it means the shell took the line. */
  cursor: number;
  /** The shell's pid (the pane process). */
  shell: number;
  /** performance.now() when it was typed. */
  at: number;
}

/** What {@link TypeAhead.settle} looks at. */
export interface TypeAheadLook {
  /** The pid of the pane terminal's foreground process, or null when it cannot be told. */
  foreground(shell: number): number | null;
  /** Whether the session's log holds a prompt mark after `cursor`. */
  promptAfter(cursor: number): Promise<boolean>;
}

/** The lines each session's shell may not have taken yet (one per session: the last one typed). */
export class TypeAhead {
  readonly #pending = new Map<string, Pending>();

  /** Records a line that ended with Enter at session `id`'s own integrated shell (pid `shell`). */
  submitted(id: string, cursor: number, shell: number): void {
    this.#pending.set(id, { cursor, shell, at: performance.now() });
  }

  /** Forgets session `id` (closed). */
  forget(id: string): void {
    this.#pending.delete(id);
  }

  /**
   * Waits until the shell of session `id` took its last line, or the bound from when it was typed ran out.
   * @returns how long it waited (0 when there was nothing to wait for)
   */
  async settle(id: string, look: TypeAheadLook): Promise<number> {
    const p = this.#pending.get(id);
    if (!p) return 0;
    this.#pending.delete(id);
    const left = TYPE_AHEAD_WAIT_MS - (performance.now() - p.at);
    if (left <= 0) return 0;
    const taken = async () => {
      const fg = look.foreground(p.shell);
      return (fg !== null && fg !== p.shell) || (await look.promptAfter(p.cursor));
    };
    const out = await waitUntil(taken, { timeoutMs: left, intervalMs: 2, maxIntervalMs: 20 });
    return out.elapsedMs;
  }
}
