/**
 * Deciding when a command has finished, and saying how. Evidence, strongest first:
 * closed/exit (the pane or its shell ended) → sentinel (a marked send's nonce line) → until (a
 * literal or regex in new output) → shell_integration (the shell's command-end mark after the last
 * send) → quiescent (output stopped and the session's own shell is in the foreground) → nested (a
 * program other than the shell waits for input; not complete) → screen_settled (a full-screen
 * program whose rendered screen stopped changing, see ./full_screen.ts; not complete) → timeout. A
 * requested sentinel or `until` is never overridden by quiescence or a command-end mark.
 */
import {
  COMMAND_END_MARK,
  dialectById,
  dialectForShell,
  foregroundOf,
  lastIntegrationMark,
  sameProcessAlive,
} from "../../platform/mod.ts";
import type { Multiplexer, MuxSession } from "../../platform/mod.ts";
import type { LastSend } from "./files/last_send.ts";
import { ownPromptWait } from "./foreground.ts";
import { promptAt, promptHint, type PromptKind } from "./prompt.ts";
import { LazyLogWaker, watchLog } from "./log_watch.ts";
import { PaneBatch } from "./pane_batch.ts";
import { readLog } from "./files/output_log.ts";
import { stripControl } from "./reduce/mod.ts";
import type { Program } from "./linear_regex.ts";
import { UntilWatch } from "./until.ts";
import { markOffer } from "./send/mod.ts";
import { fullScreenProgram, screenBusyHint, ScreenSettle, screenSettledHint } from "./full_screen.ts";

/** How completion was decided. */
export type Via =
  | "exit"
  | "closed"
  | "sentinel"
  | "until"
  | "shell_integration"
  | "quiescent"
  | "input_prompt"
  | "nested"
  | "screen_settled"
  | "timeout";

/** The verdict of a wait. */
export interface Completion {
  is_complete: boolean;
  via: Via;
  /** Exit status when the evidence carries one (sentinel, shell_integration). */
  exit_status: number | null;
  waited_ms: number;
  /** A hint when the verdict is not complete. */
  hint: string | null;
  /** With via input_prompt: which prompt waits (continuation, read, password); null otherwise. */
  prompt: PromptKind | null;
}

/** Everything a wait looks at. */
export interface WaitSpec {
  sessionId: string;
  mux: Multiplexer;
  /** The multiplexer's batched pane questions (the Terminal's; absent: this wait's own). */
  panes?: PaneBatch;
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
  /**
   * Asks for the pane the way the caller does it, together with its own checks (retention, the log writer): the first
   * look at the pane uses it, and the first round of those checks is not repeated. Called only when the log does not
   * decide at the first look (a command that already ended is answered from the log alone, without tmux).
   */
  firstPane?: () => Promise<MuxSession | null>;
}

const QUIET_MS = 150;
const WRITER_CHECK_MS = 500;
const TICK_MS = 100;
const UNTIL_TICK_MS = 250;
const SCAN_CHUNK = 1 << 20;
/** A read this large means output streams: the scanner keeps one buffer from then on. */
const STREAMING_BYTES = 64 * 1024;
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
  /**
   * One read buffer for the scanner's life once output streams (a fresh 1 MiB per read piles up in RSS under heavy
   * output). Not before: most waits see a few hundred bytes, and a zeroed MiB per wait costs more than the wait's
   * whole scan (0.6 ms each with 50 reads waiting at once); until then each read allocates what it finds.
   */
  #buffer: Uint8Array | null = null;
  constructor(from: number) {
    this.offset = from;
  }
  /** Reads what is new and returns the text window (carry + new). */
  async pull(dir: string, segmentBytes: number): Promise<{ window: string; grew: boolean }> {
    let grew = false;
    let text = "";
    for (;;) {
      const slice = await readLog(dir, segmentBytes, {
        from: this.offset,
        maxBytes: SCAN_CHUNK,
        buffer: this.#buffer ?? undefined,
      });
      if (!this.#buffer && slice.bytes.length >= STREAMING_BYTES) this.#buffer = new Uint8Array(SCAN_CHUNK);
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
  const panes = spec.panes ?? new PaneBatch(spec.mux);
  const done = (
    c: Omit<Completion, "waited_ms" | "hint" | "prompt"> & { hint?: string | null; prompt?: PromptKind | null },
  ): Completion => ({
    hint: null,
    prompt: null,
    ...c,
    waited_ms: elapsed(),
  });
  let sentinel = spec.lastSend?.nonce && spec.lastSend.mark_dialect
    ? dialectById(spec.lastSend.mark_dialect).sentinelPattern(spec.lastSend.nonce)
    : null;
  let strict = sentinel !== null || spec.until !== null;
  // The process a marked send went to: once it is gone the sentinel can never come (checked below, per tick).
  const markedProcess = sentinel ? spec.lastSend?.mark_process ?? null : null;
  let markedGoneAt: number | null = null;
  let markedCheckAt = -Infinity;
  const markScan = new Scanner(spec.lastSend?.cursor ?? 0);
  // The echo of the sent line is not new output: until starts after the first newline following the send.
  const skipEcho = spec.lastSend !== null && spec.untilFrom === spec.lastSend.cursor;
  const untilWatch = spec.until ? new UntilWatch(spec.until, spec.untilFrom, skipEcho) : null;
  let lastGrowth = performance.now();
  let candidate: { pid: number; name: string; since: number } | null = null;
  // A full-screen program (vim, less, top…) settles on its rendered screen; the last one seen names the timeout hint.
  const settle = new ScreenSettle();
  let fullScreenName: string | null = null;
  // The last integration mark after the send (a continuation prompt or a command end), and a prompt
  // verdict seen once (confirmed a quiet window later, like a nested candidate).
  let lastMark = null as "end" | "continuation" | null;
  let promptSeen = null as { kind: PromptKind; since: number } | null;
  let lastProgress = 0;
  let pane: Awaited<ReturnType<Multiplexer["paneInfo"]>> = null;
  let paneAt = 0;
  let writerAt = performance.now();
  let firstPane = spec.firstPane ?? null;
  using waker = new LazyLogWaker(() => watchLog(spec.logDir, TICK_MS, spec.signal));
  for (;;) {
    // Log evidence first: it is about the last send, and reading files is cheaper than asking tmux.
    if (spec.logDir) {
      // 2. sentinel and 4. shell-integration mark, after the last send
      const marks = await markScan.pull(spec.logDir, spec.segmentBytes);
      if (marks.grew) lastGrowth = performance.now();
      lastMark = lastIntegrationMark(marks.window) ?? lastMark;
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
    if (firstPane) {
      pane = await firstPane();
      firstPane = null;
      paneAt = performance.now();
    } else if (!pane || performance.now() - paneAt >= TICK_MS) {
      // Shared with every other waiting read: one listing answers them all (./pane_batch.ts).
      pane = await panes.paneInfo(spec.sessionId);
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
    // An unmatched sentinel never outlives the program it was typed into: a quiet window after that process
    // is gone (its last output may still be on the way), the other evidence decides.
    if (sentinel && markedProcess) {
      if (markedGoneAt === null && performance.now() - markedCheckAt >= TICK_MS) {
        markedCheckAt = performance.now(); // at most once a tick (off Linux it spawns ps)
        if (!sameProcessAlive(markedProcess.pid, markedProcess.start)) markedGoneAt = markedCheckAt;
      }
      if (markedGoneAt !== null && performance.now() - markedGoneAt >= QUIET_MS) {
        sentinel = null;
        strict = spec.until !== null;
      }
    }
    // 5. quiescent / nested
    const quietFor = performance.now() - lastGrowth;
    if (!strict && quietFor >= QUIET_MS) {
      const fg = await foregroundOf(pane.panePid, pane.tty);
      const fgName = fg?.name ?? pane.currentCommand;
      const atShell = fg ? fg.pid === pane.panePid : dialectForShell(pane.currentCommand) !== null &&
        (spec.shellName === null || pane.currentCommand === spec.shellName);
      // 5'. a full-screen program: no prompt or end mark will come; the screen staying the same decides
      const fullScreen = atShell ? null : fullScreenProgram({
        alternateOn: pane.alternateOn,
        name: fgName,
        members: fg?.inputWait?.processes.map((p) => p.name),
        readingInput: fg?.readingInput ?? null,
      });
      fullScreenName = fullScreen;
      if (!fullScreen) {
        settle.reset();
      } else {
        const capture = () => spec.mux.capture(spec.sessionId).catch(() => null);
        if (await settle.settled(performance.now(), spec.logDir ? lastGrowth : null, capture)) {
          return done({
            is_complete: false,
            via: "screen_settled",
            exit_status: null,
            hint: screenSettledHint(fullScreen),
          });
        }
      }
      // 5a. a prompt that is not a fresh command prompt: PS2, a line read, a password
      const asked = fullScreen !== null ? null : await promptAt({
        panePid: pane.panePid,
        tty: pane.tty,
        fg,
        atShell,
        integrated: spec.integration === "osc133",
        lastMark,
      });
      const prompt = asked?.kind ?? null;
      if (!prompt) {
        promptSeen = null;
      } else if (promptSeen?.kind !== prompt) {
        promptSeen = { kind: prompt, since: performance.now() };
      } else if (performance.now() - promptSeen.since >= QUIET_MS) {
        return done({ is_complete: false, via: "input_prompt", exit_status: null, prompt, hint: promptHint(prompt) });
      }
      if (atShell && spec.integration !== "osc133" && !promptSeen) {
        return done({ is_complete: true, via: "quiescent", exit_status: null });
      }
      const own = ownPromptWait({ name: fgName, readingInput: fg?.readingInput ?? null, modes: asked?.modes ?? null });
      const waiting = !promptSeen && !atShell && fullScreen === null && own.waiting;
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
          hint: nestedHint(fgName, own.evidence === "guess"),
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
        hint: fullScreenName || pane.alternateOn
          ? screenBusyHint(fullScreenName ?? pane.currentCommand)
          : "still running: make next_call to wait for the rest, or press C-c with pty_key to stop it",
      });
    }
    if (spec.progress && t - lastProgress >= 1000) {
      lastProgress = t;
      await spec.progress(t, spec.timeoutMs);
    }
    if (!waker.started) {
      // The first look did not decide: watch from now on, and look once more (a write just before the watch started
      // raised no event).
      waker.begin();
      continue;
    }
    const why = await waker.next();
    if (why === "aborted") {
      return done({ is_complete: false, via: "timeout", exit_status: null, hint: "the request was cancelled" });
    }
  }
}

/**
 * The hint of a `nested` verdict: `mark` is offered exactly where pty_send would accept it (lib/terminal/send/mark_target.ts:
 * a shell of a known dialect, or a prompt host with a named dialect; never vim, a REPL, …). `guessed`: the kernel
 * could not tell whether the program reads the terminal (ssh reads it together with its connection; no wait channel
 * from ps on macOS), so "waiting" rests on the program's name, and the hint says so.
 */
export function nestedHint(fgName: string, guessed = false): string {
  const offer = markOffer(fgName);
  const why = guessed
    ? `${fgName} is in the foreground; guessed from its name to be waiting at its prompt (the kernel does not show whether it is reading the terminal)`
    : null;
  if (offer) {
    return `${why ?? `${fgName} is in the foreground and waiting`}; pass until (text its prompt prints) or ${offer}`;
  }
  return `${
    why ?? `${fgName} is in the foreground and waiting for input`
  }; read screen:true, or pass until (text its prompt prints)`;
}
