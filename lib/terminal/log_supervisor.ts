/**
 * Keeps every session's durable log honest while any aiterm process runs:
 *
 * - Liveness: a pane's writer (`split`) dies for good when the disk fills or it is killed, and a
 *   writer whose current file was deleted writes into nothing. {@link LogSupervisor.check} notices
 *   (the multiplexer no longer pipes the pane, or the log's end fell below what was seen before)
 *   and attaches a new writer at a fresh base past everything on disk (platform/output_sink.ts), so
 *   cursors only grow and the bytes in between are a gap that readers are told about.
 * - Retention: {@link LogSupervisor.start} runs a process-wide, unref'd sweep that prunes every
 *   session's log to its cap, whether or not anyone reads it. A session whose log grows is swept
 *   again sooner (about twice per segment it writes), an idle one once a second.
 *
 * Several aiterm processes may do all of this at once: pruning is idempotent, and a restart first
 * claims its base with an exclusive `gap.<base>` marker, so two processes never start writers on
 * the same files.
 */
import { join } from "node:path";
import { log } from "../../base/log.ts";
import type { StateLayout } from "../../state/mod.ts";
import { gapMarkerName, outputSinkCommand } from "../../platform/mod.ts";
import type { Multiplexer } from "../../platform/mod.ts";
import { type LogGap, pruneLog, scanLog } from "./files/output_log.ts";
import { PaneBatch } from "./pane_batch.ts";
import { readMeta, SESSION_ID_PATTERN, type SessionMeta } from "./files/session_meta.ts";

/** What a liveness check found and did. */
export interface WriterEvent {
  /** `LOG_WRITER_RESTARTED`: a new writer is attached; `LOG_WRITER_DOWN`: none runs and none could be started. */
  code: "LOG_WRITER_RESTARTED" | "LOG_WRITER_DOWN";
  /** `writer_stopped`: the pane was not piped any more; `segment_deleted`: the file being written was deleted. */
  reason: "writer_stopped" | "segment_deleted";
  /** The end of the log when the stop was found: output after it (until `to`) was not recorded. */
  from: number;
  /** The new writer's first byte (restarted), else null. */
  to: number | null;
}

/** Options of {@link LogSupervisor.check}. */
export interface CheckOptions {
  /** A cursor known to have been inside the log (a saved read cursor, the last send's cursor). */
  floor?: number;
  /** The pane's pipe state when the caller already asked the multiplexer (the sweep asks for all at once). */
  piped?: boolean | null;
  /** Respect the retry delay after a recent restart (automatic checks); a caller's read or send does not wait. */
  backoff?: boolean;
  /** Told the log's end when the writer was found fine (a send's cursor, without a second look at the log). */
  onEnd?: (end: number) => void;
}

/** Dependencies of {@link LogSupervisor}. */
export interface LogSupervisorDeps {
  mux: Multiplexer;
  layout: StateLayout;
  /** The multiplexer's batched pane questions (the Terminal's; absent: this supervisor's own). */
  panes?: PaneBatch;
}

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
const MIN_SWEEP_MS = 20;
/** After a send or read (output is likely to follow), and after a first look, how soon a session is looked at. */
const SOON_MS = 50;
/** A log that has not grown for this long is idle (looked at by the full sweep only). */
const IDLE_MS = 2000;
/** The longest pause between looks at a log that is growing. */
const ACTIVE_MAX_MS = 250;

/** What the sweep knows of one log's speed: the last end (-1: unknown) and when, its last speed, when it last grew. */
interface Growth {
  end: number;
  at: number;
  due: number;
  /** Bytes per ms at its last growth (kept through pauses of bursty output). */
  rate: number;
  grewAt: number;
  /** The log directory's mtime after the last look (unchanged: no segment was created or deleted since). */
  mtime?: number;
}

/** Liveness and retention of session logs (see module doc). One per Terminal. */
export class LogSupervisor {
  readonly #mux: Multiplexer;
  readonly #panes: PaneBatch;
  readonly #layout: StateLayout;
  /** Called once per writer restart (the runtime-error aggregate counts it). */
  onRestart: (() => void) | null = null;
  /** Highest log end seen per session generation: a lower end later means its newest file was deleted. */
  readonly #high = new Map<string, number>();
  /** After a restart: when an automatic check may restart again, and the growing delay. */
  readonly #retry = new Map<string, { at: number; delay: number; base: number }>();
  /** Per session: the last end seen by the sweep and when, and when it is due again. */
  readonly #growth = new Map<string, Growth>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #timerAt = Infinity;
  #intervalMs = 1000;
  #lastFull = -Infinity;
  #sweeping: Promise<void> | null = null;
  #stopped = true;
  /** Restarts done by this process (diagnostics). */
  restarts = 0;

  constructor(deps: LogSupervisorDeps) {
    this.#mux = deps.mux;
    this.#layout = deps.layout;
    this.#panes = deps.panes ?? new PaneBatch(deps.mux);
  }

  /**
   * Checks one session's writer and restarts it when it stopped or its current file was deleted. Null when the
   * writer is fine, or the session has no live pane (nothing to record). Never throws.
   */
  async check(meta: SessionMeta, options: CheckOptions = {}): Promise<WriterEvent | null> {
    // A caller's send or read: output is likely to follow, so retention looks at this session soon.
    if (!options.backoff) this.#soon(meta.id);
    try {
      return await this.#check(meta, options);
    } catch (err) {
      log("warn", "log writer check failed", { session_id: meta.id, error: String(err) });
      return null;
    }
  }

  async #check(meta: SessionMeta, options: CheckOptions): Promise<WriterEvent | null> {
    const key = `${meta.id}/${meta.generation}`;
    const seg = meta.segment_bytes;
    const dir = this.#layout.sessionLogDir(meta.id);
    // Asked together with the other sessions' reads when they come at once (./pane_batch.ts).
    const piped = options.piped !== undefined ? options.piped : await this.#panes.pipeActive(meta.id);
    if (piped === null) return null;
    const layout = await scanLog(dir, seg);
    const high = Math.max(this.#high.get(key) ?? 0, options.floor ?? 0);
    this.#high.set(key, Math.max(high, layout.end));
    const deleted = layout.end < high;
    const retry = this.#retry.get(key);
    if (piped && !deleted) {
      // The restarted writer has written: the disk takes data again, so a later stop retries at once.
      if (retry && layout.end > retry.base * seg) this.#retry.delete(key);
      options.onEnd?.(layout.end);
      return null;
    }
    const reason = deleted ? "segment_deleted" as const : "writer_stopped" as const;
    const down: WriterEvent = { code: "LOG_WRITER_DOWN", reason, from: layout.end, to: null };
    if (options.backoff && retry && performance.now() < retry.at) return down;
    const lastIndex = layout.segments[layout.segments.length - 1] ?? -1;
    const newestBase = layout.bases[layout.bases.length - 1] ?? 0;
    const highIndex = high > 0 ? Math.floor((high - 1) / seg) : -1;
    const base = Math.max(lastIndex, newestBase, highIndex) + 1;
    const marker = join(dir, gapMarkerName(base));
    try {
      // The exclusive marker is the claim: another process restarting at the same base loses here.
      await Deno.writeFile(marker, new Uint8Array(0), { createNew: true, mode: 0o600 });
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) return null;
      return down;
    }
    const release = () => Deno.remove(marker).catch(() => {});
    if (!piped && (await this.#mux.pipeActive(meta.id))) {
      // Another process attached a writer meanwhile (at a base our listing did not see): keep it.
      await release();
      return null;
    }
    try {
      await this.#mux.attachOutputSink(meta.id, outputSinkCommand(dir, seg, base));
    } catch (err) {
      await release();
      log("warn", "log writer restart failed", { session_id: meta.id, error: String(err) });
      return down;
    }
    const delay = retry ? Math.min(retry.delay * 2, MAX_RETRY_MS) : FIRST_RETRY_MS;
    this.#retry.set(key, { at: performance.now() + delay, delay, base });
    this.#high.set(key, Math.max(this.#high.get(key) ?? 0, base * seg));
    this.restarts++;
    log("warn", "log writer restarted", { session_id: meta.id, reason, from: layout.end, to: base * seg });
    try {
      this.onRestart?.();
    } catch {
      // counting never affects the session
    }
    return { code: "LOG_WRITER_RESTARTED", reason, from: layout.end, to: base * seg };
  }

  /** Live sessions aiterm opened whose pane is not piped into a writer right now; null when unknown. */
  async writersDown(): Promise<number | null> {
    try {
      const states = await this.#mux.pipeStates();
      let down = 0;
      for (const s of states) {
        if (s.piped || !SESSION_ID_PATTERN.test(s.name)) continue;
        if (await readMeta(this.#layout.sessionMeta(s.name))) down++;
      }
      return down;
    } catch {
      return null;
    }
  }

  /**
   * Starts the retention sweep: every `intervalMs` over all sessions (liveness included), and sooner for a session
   * whose log grows. The timer never keeps the process alive. Idempotent.
   */
  start(intervalMs = 1000): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#intervalMs = intervalMs;
    this.#lastFull = -Infinity;
    this.#schedule(0);
  }

  /** Stops the sweep; resolves when a running one has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#sweeping;
  }

  /** Marks a session to be looked at within {@link SOON_MS}, waking the sweep earlier if it sleeps longer. */
  #soon(id: string): void {
    const now = performance.now();
    const due = now + SOON_MS;
    // The speed is learnt afresh: output after an idle spell must not be judged by the idle average.
    const prev = this.#growth.get(id);
    this.#growth.set(id, { end: -1, at: now, due: Math.min(prev?.due ?? Infinity, due), rate: 0, grewAt: now });
    if (this.#timer !== null && this.#timerAt > due) {
      clearTimeout(this.#timer);
      this.#schedule(SOON_MS);
    }
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timerAt = performance.now() + ms;
    const timer = setTimeout(() => {
      this.#timer = null;
      this.#timerAt = Infinity;
      this.#sweeping = this.sweep().finally(() => {
        this.#sweeping = null;
        this.#schedule(this.#nextDelay());
      });
    }, ms);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  #nextDelay(): number {
    const now = performance.now();
    let next = this.#lastFull + this.#intervalMs;
    for (const g of this.#growth.values()) next = Math.min(next, g.due);
    return Math.max(MIN_SWEEP_MS, Math.min(this.#intervalMs, next - now));
  }

  /**
   * One sweep: every session when a full sweep is due (prune, then restart a stopped writer), else only the sessions
   * whose logs grew since their last look (prune). Never throws.
   */
  async sweep(): Promise<void> {
    try {
      const now = performance.now();
      const full = now - this.#lastFull >= this.#intervalMs;
      let ids: string[];
      let pipes: Map<string, boolean> | null = null;
      if (full) {
        this.#lastFull = now;
        ids = await this.#sessionIds();
        pipes = new Map((await this.#mux.pipeStates().catch(() => [])).map((p) => [p.name, p.piped]));
        for (const id of this.#growth.keys()) if (!ids.includes(id)) this.#growth.delete(id);
      } else {
        ids = [...this.#growth.entries()].filter(([, g]) => g.due <= now).map(([id]) => id);
      }
      for (const id of ids) {
        // A full sweep skips a log whose directory did not change (nothing to prune) and whose writer is attached.
        const g = this.#growth.get(id);
        const changed = !full || !g || g.due <= now || g.mtime !== (await this.#dirMtime(id));
        const stopped = pipes?.get(id) === false;
        if (!changed && !stopped) continue;
        const meta = await readMeta(this.#layout.sessionMeta(id));
        if (!meta) {
          this.#growth.delete(id);
          continue;
        }
        if (changed) await this.#keep(meta);
        if (pipes?.has(id)) await this.check(meta, { piped: pipes.get(id)!, backoff: true });
      }
    } catch (err) {
      log("warn", "log retention sweep failed", { error: String(err) });
    }
  }

  /** Prunes one session and decides when to look at it again from how fast its log grows. */
  async #keep(meta: SessionMeta): Promise<void> {
    const dir = this.#layout.sessionLogDir(meta.id);
    await pruneLog(dir, meta.segment_bytes, meta.keep_segments).catch(() => 0);
    const { end } = await scanLog(dir, meta.segment_bytes).catch(() => ({ end: 0 }));
    const now = performance.now();
    const key = `${meta.id}/${meta.generation}`;
    this.#high.set(key, Math.max(this.#high.get(key) ?? 0, end));
    const prev = this.#growth.get(meta.id);
    const known = prev !== undefined && prev.end >= 0;
    const grew = known && end > prev.end && now > prev.at;
    // A decaying maximum: a small trickle after a burst must not make the next look late.
    const rate = grew ? Math.max((end - prev.end) / (now - prev.at), prev.rate / 2) : prev?.rate ?? 0;
    const grewAt = grew ? now : prev?.grewAt ?? now;
    // About twice per segment the writer fills at its last speed (a pause in bursty output keeps it); a first look
    // soon learns the speed; a log idle for a while waits for the full sweep.
    const due = !known || (rate === 0 && now - grewAt < IDLE_MS)
      ? now + SOON_MS
      : rate > 0 && now - grewAt < IDLE_MS
      ? now + Math.min(ACTIVE_MAX_MS, Math.max(MIN_SWEEP_MS, meta.segment_bytes / 2 / rate))
      : Infinity;
    this.#growth.set(meta.id, { end, at: now, due, rate, grewAt, mtime: await this.#dirMtime(meta.id) });
  }

  async #dirMtime(id: string): Promise<number> {
    return (await Deno.stat(this.#layout.sessionLogDir(id)).catch(() => null))?.mtime?.getTime() ?? -1;
  }

  async #sessionIds(): Promise<string[]> {
    const ids: string[] = [];
    try {
      for await (const entry of Deno.readDir(this.#layout.sessionsDir)) {
        if (entry.isDirectory && SESSION_ID_PATTERN.test(entry.name)) ids.push(entry.name);
      }
    } catch {
      // no sessions directory yet
    }
    return ids;
  }
}

/** The warning line a read shows for a writer event or a gap it crossed (`CODE: sentence`). */
export function logWarning(event: WriterEvent | LogGap): string {
  if (event.code === "LOG_WRITER_DOWN") {
    return "LOG_WRITER_DOWN: the session's output log writer is not running and could not be restarted " +
      `(disk full?); output after byte ${event.from} is not being recorded (screen:true still shows the screen)`;
  }
  if (event.code === "LOG_WRITER_RESTARTED") {
    const range = "to" in event && event.to !== null ? `between byte ${event.from} and ${event.to}` : "in the gap";
    return "LOG_WRITER_RESTARTED: the session's output log writer had stopped (disk full, killed, or its file " +
      `deleted) and was restarted; output ${range} was not recorded`;
  }
  return `LOG_SEGMENT_MISSING: bytes ${event.from} to ${event.to} of the log were deleted (not by retention); ` +
    "the read continues after them";
}

/** The warnings of one read: one line per code, the gaps it crossed first, then what the writer checks found. */
export function readWarnings(events: readonly WriterEvent[], gaps: readonly LogGap[]): string[] {
  const byCode = new Map<string, string>();
  for (const e of [...gaps, ...events]) if (!byCode.has(e.code)) byCode.set(e.code, logWarning(e));
  // A writer that was down and is running again by the end of the call is not down.
  if (byCode.has("LOG_WRITER_RESTARTED") && events.at(-1)?.code !== "LOG_WRITER_DOWN") byCode.delete("LOG_WRITER_DOWN");
  return [...byCode.values()];
}
