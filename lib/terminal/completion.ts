/**
 * Deciding when a command has finished, and saying how. Evidence, strongest first:
 * closed/exit (the pane or its shell ended) → sentinel (a marked send's nonce line) → until (a
 * literal or regex in new output) → shell_integration (the shell's command-end mark after the last
 * send) → quiescent (output stopped and the session's own shell is in the foreground) → nested (a
 * program other than the shell waits for input; not complete) → timeout. A requested sentinel or
 * `until` is never overridden by quiescence or a command-end mark.
 */
import { COMMAND_END_MARK, dialectById, dialectForShell, foregroundProcess } from "../../platform/mod.ts";
import type { Multiplexer } from "../../platform/mod.ts";
import type { LastSend } from "./last_send.ts";
import { waitingAtOwnPrompt } from "./foreground.ts";
import { watchLog } from "./log_watch.ts";
import { readLog } from "./output_log.ts";
import { stripControl } from "./reduce/mod.ts";
import type { Program } from "./linear_regex.ts";
import { UntilWatch } from "./until.ts";

/** How completion was decided. */
export type Via = "exit" | "closed" | "sentinel" | "until" | "shell_integration" | "quiescent" | "nested" | "timeout";

/** The verdict of a wait. */
export interface Completion {
  is_complete: boolean;
  via: Via;
  /** Exit status when the evidence carries one (sentinel, shell_integration). */
  exit_status: number | null;
  waited_ms: number;
  /** A hint when the verdict is not complete. */
  hint: string | null;
}

/** Everything a wait looks at. */
export interface WaitSpec {
  sessionId: string;
  mux: Multiplexer;
  /** Segment directory and size; null for a session aiterm has no log for. */
  logDir: string | null;
  segmentBytes: number;
  /** The session's shell integration and own shell program name. */
  integration: "osc133" | null;
  shellName: string | null;
  /** `until` scans output from here. */
  untilFrom: number;
  /** The last send (marks and sentinels are looked for after its cursor). */
  lastSend: LastSend | null;
  /** The compiled `until` (literal or regex; see ./until.ts), matched in new output only. */
  until: Program | null;
  timeoutMs: number;
  signal: AbortSignal;
  progress?: (elapsedMs: number, totalMs: number) => Promise<void>;
  /** Applies log retention (called about once a tick while waiting). */
  prune?: () => Promise<void>;
  /** Checks the log writer and restarts it if it stopped (called about twice a second while waiting). */
  checkWriter?: () => Promise<void>;
  /** Whether the session's files still exist (false after pty_close). */
  sessionFilesExist: () => Promise<boolean>;
}

const QUIET_MS = 150;
const WRITER_CHECK_MS = 500;
const TICK_MS = 100;
const UNTIL_TICK_MS = 250;
const SCAN_CHUNK = 1 << 20;
const CARRY = 4096;

/** A flat copy of a short string that no longer references the large string it was sliced from. */
function ownCopy(s: string): string {
  return (" " + s).slice(1);
}

/** Incremental scanner over the log from one offset. */
class Scanner {
  offset: number;
  #carry = "";
  #decoder = new TextDecoder();
  /** One read buffer for the scanner's life (a fresh 1 MiB per read piles up in RSS under heavy output). */
  #buffer: Uint8Array | null = null;
  constructor(from: number) {
    this.offset = from;
  }
  /** Reads what is new and returns the text window (carry + new). */
  async pull(dir: string, segmentBytes: number): Promise<{ window: string; grew: boolean }> {
    let grew = false;
    let text = "";
    for (;;) {
      this.#buffer ??= new Uint8Array(SCAN_CHUNK);
      const slice = await readLog(dir, segmentBytes, this.offset, SCAN_CHUNK, this.#buffer);
      if (slice.to <= this.offset && !slice.truncated) break;
      grew = grew || slice.bytes.length > 0;
      text += this.#decoder.decode(slice.bytes, { stream: true });
      this.offset = slice.to;
      if (slice.to >= slice.end) break;
      text = text.slice(-CARRY * 4);
    }
    const window = this.#carry + text;
    // A copy, not a slice: a slice keeps the whole window (up to 1 MiB) alive into old space every tick.
    this.#carry = ownCopy(window.slice(-CARRY));
    return { window, grew };
  }
}

/**
 * Waits for the command to complete (see module doc). A timeout is a verdict, not an error.
 * @throws {AppError} REGEX_TIMEOUT when the wait ended while `until` had new output left to examine
 */
export async function waitForCompletion(spec: WaitSpec): Promise<Completion> {
  const start = performance.now();
  const elapsed = () => Math.round(performance.now() - start);
  const done = (c: Omit<Completion, "waited_ms" | "hint"> & { hint?: string | null }): Completion => ({
    hint: null,
    ...c,
    waited_ms: elapsed(),
  });
  const sentinel = spec.lastSend?.nonce && spec.lastSend.mark_dialect
    ? dialectById(spec.lastSend.mark_dialect).sentinelPattern(spec.lastSend.nonce)
    : null;
  const strict = sentinel !== null || spec.until !== null;
  const markScan = new Scanner(spec.lastSend?.cursor ?? 0);
  // The echo of the sent line is not new output: until starts after the first newline following the send.
  const skipEcho = spec.lastSend !== null && spec.untilFrom === spec.lastSend.cursor;
  const untilWatch = spec.until ? new UntilWatch(spec.until, spec.untilFrom, skipEcho) : null;
  let lastGrowth = performance.now();
  let candidate: { pid: number; name: string; since: number } | null = null;
  let lastProgress = 0;
  let pane: Awaited<ReturnType<Multiplexer["paneInfo"]>> = null;
  let paneAt = 0;
  let writerAt = performance.now();
  using waker = watchLog(spec.logDir, TICK_MS, spec.signal);
  for (;;) {
    // Log evidence first: it is about the last send, and reading files is cheaper than asking tmux.
    if (spec.logDir) {
      // 2. sentinel and 4. shell-integration mark, after the last send
      const marks = await markScan.pull(spec.logDir, spec.segmentBytes);
      if (marks.grew) lastGrowth = performance.now();
      if (sentinel) {
        const m = stripControl(marks.window).match(sentinel);
        if (m) return done({ is_complete: true, via: "sentinel", exit_status: Number(m[1]) });
      }
      // 3. until, in new output only (linear time, yielding; at most UNTIL_TICK_MS of matching per tick)
      if (untilWatch) {
        const stopAt = Math.min(start + spec.timeoutMs, performance.now() + UNTIL_TICK_MS);
        if (await untilWatch.check(spec.logDir, spec.segmentBytes, stopAt, spec.signal)) {
          return done({ is_complete: true, via: "until", exit_status: null });
        }
      }
      if (!strict && spec.integration === "osc133") {
        const all = [...marks.window.matchAll(COMMAND_END_MARK)];
        const last = all[all.length - 1];
        if (last) {
          return done({
            is_complete: true,
            via: "shell_integration",
            exit_status: spec.lastSend ? Number(last[1]) : null,
          });
        }
      }
    }
    // 1. the pane or its shell ended (checked after the log, at most once a tick: each check spawns tmux)
    if (!pane || performance.now() - paneAt >= TICK_MS) {
      pane = await spec.mux.paneInfo(spec.sessionId);
      paneAt = performance.now();
      await spec.prune?.();
      if (spec.checkWriter && paneAt - writerAt >= WRITER_CHECK_MS) {
        writerAt = paneAt;
        await spec.checkWriter();
      }
    }
    if (!pane || pane.paneDead) {
      return done({ is_complete: true, via: (await spec.sessionFilesExist()) ? "exit" : "closed", exit_status: null });
    }
    // 5. quiescent / nested
    const quietFor = performance.now() - lastGrowth;
    if (!strict && quietFor >= QUIET_MS) {
      const fg = foregroundProcess(pane.panePid);
      const fgName = fg?.name ?? pane.currentCommand;
      const atShell = fg ? fg.pid === pane.panePid : dialectForShell(pane.currentCommand) !== null &&
        (spec.shellName === null || pane.currentCommand === spec.shellName);
      if (atShell && spec.integration !== "osc133") {
        return done({ is_complete: true, via: "quiescent", exit_status: null });
      }
      const waiting = !atShell && waitingAtOwnPrompt({ name: fgName, readingInput: fg?.readingInput ?? null });
      const fgPid = fg?.pid ?? pane.panePid;
      if (!waiting) {
        candidate = null;
      } else if (!candidate || candidate.pid !== fgPid || candidate.name !== fgName) {
        // Seen once: confirm it is still the same program a quiet window later (a fork that has not
        // exec'd yet looks like a nested shell for an instant).
        candidate = { pid: fgPid, name: fgName, since: performance.now() };
      } else if (performance.now() - candidate.since >= QUIET_MS) {
        return done({
          is_complete: false,
          via: "nested",
          exit_status: null,
          hint: nestedHint(fgName),
        });
      }
    }
    const t = elapsed();
    if (t >= spec.timeoutMs) {
      // Output the matcher has not examined yet may hold the text: say so instead of "timeout".
      if (untilWatch && !untilWatch.caughtUp) throw untilWatch.timeoutError(spec.timeoutMs);
      return done({
        is_complete: false,
        via: "timeout",
        exit_status: null,
        hint: "still running; read again with wait:true, or press C-c with pty_key",
      });
    }
    if (spec.progress && t - lastProgress >= 1000) {
      lastProgress = t;
      await spec.progress(t, spec.timeoutMs);
    }
    const why = await waker.next();
    if (why === "aborted") {
      return done({ is_complete: false, via: "timeout", exit_status: null, hint: "the request was cancelled" });
    }
  }
}

/** POSIX shells and PowerShell: the only foreground programs a `mark` sentinel may be typed into. */
const MARKABLE_SHELL = /^(bash|zsh|sh|dash|ksh|mksh|ash|busybox|pwsh|powershell)$/;

/** The hint of a `nested` verdict: `mark` is offered only where a shell reads the line (never into vim, a REPL, …). */
export function nestedHint(fgName: string): string {
  if (MARKABLE_SHELL.test(fgName)) {
    return `${fgName} is in the foreground and waiting; pass until (text its prompt prints) or send with mark:true`;
  }
  return `${fgName} is in the foreground and waiting for input; read screen:true, or pass until (text its prompt prints)`;
}
