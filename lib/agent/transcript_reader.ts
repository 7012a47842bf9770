/**
 * The incremental transcript reader: one per transcript file, it reads only the bytes appended since
 * its last check and feeds their complete lines to the harness's incremental parser
 * (`TranscriptRules.parser`), which keeps its state. A check that finds nothing new costs one `stat`;
 * one that finds new records costs their parsing plus a copy of the turn list, never a re-parse of
 * the file. A file that shrank or was replaced (another inode) is read again from its start.
 *
 * Readers are kept per process ({@link TranscriptReaders}, built by the program root), so every check in
 * this process (the start-up and turn-start polls, the steer confirmation, the waiter's loop, answers)
 * shares one parse.
 */
import type { TranscriptRules, TranscriptTurn, TurnParser } from "../../harnesses/mod.ts";

/** The most of a transcript ever read: a longer file is read from this far before its end. */
export const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;
/** Readers kept per process (least recently used dropped first). */
const KEEP_READERS = 64;

/** Reads one transcript file incrementally (see module doc). */
export class TranscriptReader {
  readonly path: string;
  readonly rules: TranscriptRules;
  #parser: TurnParser;
  /** Bytes of the file consumed (complete lines fed to the parser). */
  #offset = 0;
  /** The bytes of an unfinished last line, kept until its newline arrives. */
  #carry: Uint8Array = new Uint8Array(0);
  #identity: string | null = null;
  /** The turns as last handed out (a copy; null after new records). */
  #snapshot: TranscriptTurn[] | null = [];
  #exists = false;

  constructor(rules: TranscriptRules, path: string) {
    this.rules = rules;
    this.path = path;
    this.#parser = rules.parser();
  }

  /** Bytes of the file consumed so far (for tests and benches). */
  get offset(): number {
    return this.#offset;
  }

  /**
   * One check: reads what was appended since the last one and returns the turns so far (a fresh
   * array of fresh turn objects whenever they changed; the same array otherwise), or null when the
   * file cannot be read.
   */
  async read(): Promise<TranscriptTurn[] | null> {
    let st: Deno.FileInfo;
    try {
      st = await Deno.stat(this.path);
    } catch {
      this.#reset();
      this.#exists = false;
      return null;
    }
    const identity = st.ino !== null ? `${st.dev}:${st.ino}` : null;
    if (st.size < this.#offset + this.#carry.length || identity !== this.#identity) {
      this.#reset();
      this.#identity = identity;
    }
    this.#exists = true;
    const end = st.size;
    if (end > this.#offset + this.#carry.length) {
      const ok = await this.#consume(end);
      if (!ok) return null;
    }
    this.#snapshot ??= this.#parser.turns().map((t) => ({ ...t }));
    return this.#snapshot;
  }

  /** Whether the last check found the file. */
  get exists(): boolean {
    return this.#exists;
  }

  #reset(): void {
    this.#parser = this.rules.parser();
    this.#offset = 0;
    this.#carry = new Uint8Array(0);
    this.#snapshot = [];
  }

  /** Reads from the end of what was seen to `end` and feeds the complete lines. */
  async #consume(end: number): Promise<boolean> {
    let from = this.#offset + this.#carry.length;
    let skipFirstLine = false;
    if (this.#offset === 0 && this.#carry.length === 0 && end > MAX_TRANSCRIPT_BYTES) {
      // Read the tail only; turns before it are not addressable anyway.
      from = end - MAX_TRANSCRIPT_BYTES;
      this.#offset = from;
      skipFirstLine = true;
    }
    let bytes: Uint8Array;
    try {
      using f = await Deno.open(this.path);
      await f.seek(from, Deno.SeekMode.Start);
      bytes = new Uint8Array(end - from);
      let got = 0;
      while (got < bytes.length) {
        const n = await f.read(bytes.subarray(got));
        if (n === null) break;
        got += n;
      }
      bytes = bytes.subarray(0, got);
    } catch {
      return false;
    }
    let data = bytes;
    if (this.#carry.length > 0) {
      data = new Uint8Array(this.#carry.length + bytes.length);
      data.set(this.#carry);
      data.set(bytes, this.#carry.length);
    }
    let start = 0;
    if (skipFirstLine) {
      const nl = data.indexOf(10);
      start = nl < 0 ? data.length : nl + 1;
    }
    const lastNl = data.lastIndexOf(10);
    const complete = lastNl >= start ? data.subarray(start, lastNl + 1) : new Uint8Array(0);
    let rest = data.subarray(Math.max(start, lastNl + 1));
    let pushed = this.#feed(complete);
    // A last line without its newline is fed once it parses as a whole object (no proper prefix of
    // a JSON object does); otherwise it is kept until more bytes come.
    if (rest.length > 0 && this.#feedLine(new TextDecoder().decode(rest))) {
      pushed = true;
      this.#offset += start + complete.length + rest.length;
      rest = new Uint8Array(0);
    } else {
      this.#offset += start + complete.length;
    }
    this.#carry = rest.slice();
    if (pushed) this.#snapshot = null;
    return true;
  }

  /** Feeds complete lines; returns whether any record was pushed. */
  #feed(lines: Uint8Array): boolean {
    if (lines.length === 0) return false;
    let pushed = false;
    for (const line of new TextDecoder().decode(lines).split("\n")) pushed = this.#feedLine(line) || pushed;
    return pushed;
  }

  /** Feeds one line when it is a JSON object record (other lines are ignored, as parseTurns does). */
  #feedLine(line: string): boolean {
    const l = line.trim();
    if (l === "" || l[0] !== "{") return false;
    let v: unknown;
    try {
      v = JSON.parse(l);
    } catch {
      return false;
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
    this.#parser.push(v as Record<string, unknown>);
    return true;
  }
}

/**
 * The incremental readers of one process, by transcript path (the {@link KEEP_READERS} most recently
 * used). A program root creates one (lib/app.ts, aiterm-wait) and hands it down (AgentDeps.transcripts);
 * code without one reads through a fresh instance, which is correct but parses from the start.
 */
export class TranscriptReaders {
  readonly #readers = new Map<string, TranscriptReader>();

  /**
   * The reader of `path` for a harness's rules (created on first use, kept for later checks).
   * This is the per-check function: `await readers.get(rules, path).read()`.
   */
  get(rules: TranscriptRules, path: string): TranscriptReader {
    let r = this.#readers.get(path);
    this.#readers.delete(path);
    if (!r || r.rules !== rules) r = new TranscriptReader(rules, path);
    this.#readers.set(path, r);
    while (this.#readers.size > KEEP_READERS) this.#readers.delete(this.#readers.keys().next().value!);
    return r;
  }
}
