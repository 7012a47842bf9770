/**
 * `until` over new output. The log is read from an offset once (each byte is decoded and matched once), the text is
 * taken as the terminal printed it (control sequences removed, `\r`/backspace overwrites applied, trailing spaces
 * kept: a prompt's `>>> ` or `Password: ` ends in a real space), and the linear-time matcher (./linear_regex.ts) runs
 * over complete lines, committed, and over the line still being written, provisionally (its end counts as the end
 * of the input, so `prompt> $` matches a prompt that has no newline yet). Matching yields to the event loop every
 * few milliseconds, so no pattern and no amount of output can hold up other calls; a matcher that has not caught
 * up with the output when the wait ends is `REGEX_TIMEOUT`, never a silent "not found".
 */
import { AppError } from "../../base/errors.ts";
import { sleep } from "../../base/wait.ts";
import { type Program, StreamMatcher } from "./linear_regex.ts";
import { readLog } from "./files/output_log.ts";
import { printedText } from "./reduce/mod.ts";

/** The longest line kept while it is being written; a longer line is matched on its newest part. */
export const MAX_LINE_CHARS = 1 << 20;
/** A line still being written is tried provisionally only up to this length (longer: matched once complete). */
export const MAX_PEEK_CHARS = 16 * 1024;
const READ_CHUNK = 256 * 1024; // decoded and stripped in one go: bounded so that step stays short
const MIN_SLICE = 64;
const MAX_SLICE = 64 * 1024;
const SLICE_MS = 5;

const yieldToLoop = () => sleep(0);

/** Watches new output for one `until` (see module doc). */
export class UntilWatch {
  readonly #program: Program;
  readonly #matcher: StreamMatcher;
  #offset: number;
  #decoder = new TextDecoder();
  /** The raw line still being written (no newline yet). */
  #line = "";
  #echoSkipped: boolean;
  /** Printed complete lines not yet given to the matcher, from #at. */
  #backlog = "";
  #at = 0;
  /** Characters of the line being written that the last provisional try did not get to. */
  #peekLeft = 0;
  /** The log offset at the last complete provisional try (nothing new since: no need to try again). */
  #peekedAt = -1;
  /** Log bytes after the last read that were not read yet (the matcher was behind). */
  #unread = 0;
  /** Characters fed per slice (adapted to the pattern's cost). */
  #slice = 4096;

  /** `skipEcho`: the first line from `from` is the echo of the sent command, not output. */
  constructor(program: Program, from: number, skipEcho: boolean) {
    this.#program = program;
    this.#matcher = new StreamMatcher(program);
    this.#offset = from;
    this.#echoSkipped = !skipEcho;
  }

  /** Characters of output the matcher has not examined yet. */
  get behind(): number {
    return this.#backlog.length - this.#at + this.#peekLeft;
  }

  /** True when everything read so far was examined and the last read reached the end of the log. */
  get caughtUp(): boolean {
    return this.behind === 0 && this.#unread === 0;
  }

  /**
   * Reads what is new and matches it, until the output is used up (then the line being written is peeked at) or
   * `stopAt` (a performance.now() time) passes or `signal` aborts. True on a match.
   */
  async check(dir: string, segmentBytes: number, stopAt: number, signal?: AbortSignal): Promise<boolean> {
    this.#peekLeft = 0;
    for (;;) {
      if (await this.#drain(stopAt, signal)) return true;
      if (this.behind > 0) return false;
      const slice = await readLog(dir, segmentBytes, { from: this.#offset, maxBytes: READ_CHUNK });
      if (slice.to <= this.#offset && !slice.truncated) {
        this.#unread = 0; // nothing more can be read now: not the matcher's delay
        break;
      }
      if (slice.truncated) this.#restart(); // bytes were lost: a match may not span the hole
      this.#take(this.#decoder.decode(slice.bytes, { stream: true }));
      this.#offset = slice.to;
      this.#unread = Math.max(0, slice.end - slice.to);
      if (slice.to >= slice.end && this.behind === 0) break;
    }
    if (!this.#echoSkipped || this.#line.length > MAX_PEEK_CHARS || this.#offset === this.#peekedAt) return false;
    if (await this.#peek(stopAt, signal)) return true;
    if (this.#peekLeft === 0) this.#peekedAt = this.#offset; // the same tail need not be tried again
    return false;
  }

  /** The error for a wait that ended while output was still unexamined. */
  timeoutError(timeoutMs: number): AppError {
    const what = this.#program.isRegex ? "until_regex" : "until";
    return new AppError(
      "REGEX_TIMEOUT",
      `Cannot finish matching ${what}: when the ${
        timeoutMs / 1000
      } s wait ended the pattern (${this.#program.sourceLength} characters) had not examined ${this.behind} characters of new output and ${this.#unread} more bytes of the log`,
      {
        data: {
          pattern_length: this.#program.sourceLength,
          unexamined_chars: this.behind,
          unread_bytes: this.#unread,
          timeout_ms: timeoutMs,
        },
        suggestion: "use a simpler pattern (fewer nested or counted repetitions) or a literal until; nothing was read",
      },
    );
  }

  #restart(): void {
    this.#decoder = new TextDecoder();
    this.#line = "";
    this.#matcher.reset();
  }

  /** Splits new raw text into printed complete lines (the backlog) and the line still being written. */
  #take(text: string): void {
    let raw = this.#line + text;
    if (!this.#echoSkipped) {
      const nl = raw.indexOf("\n");
      if (nl < 0) {
        this.#line = raw.slice(-MAX_LINE_CHARS);
        return;
      }
      raw = raw.slice(nl + 1);
      this.#echoSkipped = true;
    }
    const last = raw.lastIndexOf("\n");
    if (last >= 0) {
      this.#backlog = this.#backlog.slice(this.#at) + printedText(raw.slice(0, last + 1));
      this.#at = 0;
      raw = raw.slice(last + 1);
    }
    this.#line = raw.length > MAX_LINE_CHARS ? raw.slice(-MAX_LINE_CHARS) : raw;
  }

  /** Tries the line being written (its end as the end of the input) on a copy of the matcher, in slices. */
  async #peek(stopAt: number, signal?: AbortSignal): Promise<boolean> {
    const tail = printedText(this.#line);
    const trial = this.#matcher.clone();
    const r = await this.#feedSliced(trial, tail, 0, { stopAt, signal });
    if (r.hit) return true;
    if (r.at < tail.length) {
      this.#peekLeft = tail.length - r.at;
      return false;
    }
    return trial.peek("");
  }

  /** Feeds the backlog in slices, yielding to the event loop between them. */
  async #drain(stopAt: number, signal?: AbortSignal): Promise<boolean> {
    const r = await this.#feedSliced(this.#matcher, this.#backlog, this.#at, { stopAt, signal });
    this.#at = r.at;
    if (this.#at >= this.#backlog.length) {
      this.#backlog = "";
      this.#at = 0;
    }
    return r.hit;
  }

  /**
   * Feeds `text` from `at` in slices sized so that each takes about SLICE_MS (a pattern with many live states
   * gets short slices), yielding to the event loop between slices; stops at `bound.stopAt` or on its abort.
   */
  async #feedSliced(
    m: StreamMatcher,
    text: string,
    at: number,
    bound: { stopAt: number; signal?: AbortSignal | undefined },
  ): Promise<{ hit: boolean; at: number }> {
    const { stopAt, signal } = bound;
    let busySince = performance.now();
    while (at < text.length) {
      const t0 = performance.now();
      const end = Math.min(text.length, at + this.#slice);
      const hit = m.feed(text.slice(at, end));
      at = end;
      if (hit) return { hit, at };
      const took = performance.now() - t0;
      if (took > SLICE_MS) this.#slice = Math.max(MIN_SLICE, this.#slice >> 1);
      else if (took < SLICE_MS / 4) this.#slice = Math.min(MAX_SLICE, this.#slice << 1);
      if (performance.now() - busySince >= SLICE_MS) {
        await yieldToLoop();
        if (performance.now() >= stopAt || signal?.aborted) break;
        busySince = performance.now();
      }
    }
    return { hit: false, at };
  }
}
