/**
 * `pty_read`: incremental, token-reduced reads of a session's durable log, the rendered screen, or
 * exact line ranges, optionally after waiting for the last command to complete.
 */
import { AppError } from "../../base/errors.ts";
import { readJsonFile } from "../../state/mod.ts";
import { dialectById } from "../../platform/mod.ts";
import { type Completion, waitForCompletion } from "./completion.ts";
import { compileUntil } from "./linear_regex.ts";
import { logExtent, type LogSlice } from "./files/output_log.ts";
import {
  findLine,
  fitTail,
  MAX_PAGE_TEXT_BYTES,
  type ReadBuffers,
  readBytePage,
  readLinePage,
  type Rendered,
} from "./read_page.ts";
import { reduceOutput, stripControl } from "./reduce/mod.ts";
import { reduceScreen } from "./screen.ts";
import { lastLogLine } from "./waiting_line.ts";
import { readWarnings, type WriterEvent } from "./log_supervisor.ts";
import type { TerminalParts } from "./parts.ts";
import type { LastSend } from "./files/last_send.ts";

/** The longest wait a read accepts; larger values are clamped. */
export const MAX_TIMEOUT_S = 600;
/**
 * The most log bytes one folded (reduced) read looks at (the rest is `has_more`): reducing holds
 * several copies of its input, so more than a result's worth would only cost memory.
 */
export const MAX_READ_BYTES = 1024 * 1024;

/** Input of {@link readSession}. */
export interface ReadInput {
  session_id: string;
  wait?: boolean | undefined;
  until?: string | null | undefined;
  until_regex?: boolean | undefined;
  timeout?: number | undefined;
  screen?: boolean | undefined;
  full?: boolean | undefined;
  lines?: number | null | undefined;
  line_range?: string | null | undefined;
  raw?: boolean | undefined;
  cursor?: number | null | undefined;
  /** JSON bytes the text may take (the calling client's size, less room for the other fields); default 992 KiB. */
  budget?: number | undefined;
}

/** How {@link readSession} reports and hands over. */
export interface ReadOptions {
  /** Called about once a second while waiting. */
  progress?: ((ms: number, total: number) => Promise<void>) | undefined;
  /** Ends a wait early; an aborted read moves no cursor. */
  signal?: AbortSignal | undefined;
  /**
   * Hands the cursor's move to the caller: the function runs once the result reached the client (`true`: the cursor
   * moves) or did not (`false`: it stays). Absent: the cursor moves before the read returns, unless aborted.
   */
  settle?: ((fn: (delivered: boolean) => Promise<void>) => void) | undefined;
}

/** Result of {@link readSession}. */
export interface ReadResult {
  session_id: string;
  state: "running" | "ended";
  view: "log" | "screen" | "full" | "line_range" | "agent_transcript";
  text: string;
  meta: string | null;
  reducer: string | null;
  cursor: number | null;
  next_cursor: number | null;
  end: number | null;
  has_more: boolean;
  /** line_range: the first line not returned yet, when more of the range follows. */
  next_line: number | null;
  truncated: boolean;
  is_complete: boolean | null;
  via: Completion["via"] | null;
  exit_status: number | null;
  waited_ms: number | null;
  timeout_used: number | null;
  hint: string | null;
  /** With via input_prompt: which prompt waits (continuation, read, password); null otherwise. */
  prompt: Completion["prompt"];
  /** `CODE: sentence` lines about the log itself (LOG_WRITER_RESTARTED, LOG_WRITER_DOWN, LOG_SEGMENT_MISSING). */
  warnings: string[];
  /** A wait that did not see the command finish: how long since the last send, in ms (null otherwise). */
  running_ms: number | null;
}

function parseLineRange(spec: string): { lo: number; hi: number | null } {
  const m = spec.match(/^\s*(\d*)\s*:\s*(\d*)\s*$/);
  if (!m) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `Cannot read line_range "${spec}": use "A:B" (1-based, inclusive; either side may be empty)`,
      {
        data: { field: "line_range" },
      },
    );
  }
  const lo = m[1] ? Number(m[1]) : 1;
  const hi = m[2] ? Number(m[2]) : null;
  if (lo < 1 || (hi !== null && hi < lo)) {
    throw new AppError("INVALID_ARGUMENT", `Cannot read line_range "${spec}": the high bound is below the low bound`, {
      data: { field: "line_range" },
    });
  }
  return { lo, hi };
}

/** Hides sentinel lines and the typed sentinel suffix; `keepLines` blanks a sentinel line instead of removing it. */
function hideSentinel(text: string, suffix: string | null, keepLines = false): string {
  const out = suffix ? text.split(suffix).join("") : text;
  return keepLines
    ? out.replace(/^__AITERM_[0-9a-f]{8,}_-?\d+__\r?$/gm, "")
    : out.replace(/^__AITERM_[0-9a-f]{8,}_-?\d+__\r?$\n?/gm, "");
}

/** The hint of a wait that ran out while another call held the session's output. */
const GATE_BUSY_HINT =
  "another call is waiting on this session's output and returns it; wait again (pty_read wait:true) for what follows";

/**
 * Reads a session (see module doc). A read that moves the session's cursor (no `cursor`, no line_range, not the
 * screen) takes the session's read gate first (./read_gate.ts): a second one waits its turn and reads the rest.
 * @throws {AppError} SESSION_NOT_FOUND, INVALID_ARGUMENT, READ_IN_PROGRESS
 */
export async function readSession(
  terminal: TerminalParts,
  input: ReadInput,
  options: ReadOptions = {},
): Promise<ReadResult> {
  const { progress, signal } = options;
  const id = input.session_id;
  if ((input.screen && (input.full || input.line_range)) || (input.full && input.line_range)) {
    throw new AppError("INVALID_ARGUMENT", "Cannot combine screen, full and line_range: pick one view", {
      data: { field: "screen" },
    });
  }
  const range = input.line_range ? parseLineRange(input.line_range) : null;
  // Compiled (and refused when invalid, too long or backtracking-only) before anything is read or waited for.
  const until = input.until ? compileUntil(input.until, input.until_regex === true) : null;
  const meta = await terminal.meta(id);
  const live = meta ? null : await terminal.mux.paneInfo(id);
  if (!meta && !live) {
    throw new AppError("SESSION_NOT_FOUND", `Cannot read session "${id}": no such session`, {
      suggestion: "call pty_list",
    });
  }
  const waits = Boolean(input.wait || input.until);
  const timeoutS = Math.min(Math.max(input.timeout ?? 10, 0), MAX_TIMEOUT_S);
  const consumes = meta !== null && input.cursor == null && !range && !input.screen;
  const gateStart = performance.now();
  const ticket = consumes
    ? await terminal.readGate.enter(id, {
      timeoutMs: waits ? timeoutS * 1000 : 0,
      signal,
      ...(progress ? { tick: (ms: number) => void progress(ms, timeoutS * 1000).catch(() => {}) } : {}),
    })
    : null;
  if (consumes && !ticket) {
    if (!waits) {
      throw new AppError("READ_IN_PROGRESS", `Cannot read session "${id}" now: another call is waiting on its output`, {
        suggestion:
          "that call's result carries the output; wait:true takes the rest after it, cursor=N looks without consuming",
      });
    }
    const last = await terminal.lastSend(id);
    return gateBusy(id, timeoutS, Math.round(performance.now() - gateStart), last);
  }
  let handedOver = false;
  try {
    const r = await readHeld(terminal, input, options, {
      meta,
      range,
      until,
      waits,
      timeoutMs: Math.max(0, timeoutS * 1000 - (performance.now() - gateStart)),
      timeoutS,
      hold: ticket
        ? (commit) => {
          handedOver = true;
          const settle = async (delivered: boolean) => {
            try {
              if (delivered) await commit();
            } finally {
              ticket.release();
            }
          };
          if (options.settle) options.settle(settle);
          else return settle(!signal?.aborted);
          return Promise.resolve();
        }
        : null,
    });
    return r;
  } finally {
    if (!handedOver) ticket?.release();
  }
}

function gateBusy(id: string, timeoutS: number, waitedMs: number, last: LastSend | null): ReadResult {
  return {
    session_id: id,
    state: "running",
    view: "log",
    text: "",
    meta: null,
    reducer: null,
    cursor: null,
    next_cursor: null,
    end: null,
    has_more: false,
    next_line: null,
    truncated: false,
    is_complete: false,
    via: "timeout",
    exit_status: null,
    waited_ms: waitedMs,
    timeout_used: timeoutS,
    hint: GATE_BUSY_HINT,
    prompt: null,
    warnings: [],
    running_ms: runningMs(last),
  };
}

/** How long since `last` was sent, in ms (null without one). */
function runningMs(last: LastSend | null): number | null {
  const at = last ? Date.parse(last.at) : NaN;
  return Number.isFinite(at) ? Math.max(0, Date.now() - at) : null;
}

/** What {@link readSession} decided before reading, and how the cursor's move is handed over. */
interface Held {
  meta: Awaited<ReturnType<TerminalParts["meta"]>>;
  range: { lo: number; hi: number | null } | null;
  until: ReturnType<typeof compileUntil> | null;
  waits: boolean;
  timeoutMs: number;
  timeoutS: number;
  /** Moves the cursor as the caller says (null: this read moves none). */
  hold: ((commit: () => Promise<void>) => Promise<void>) | null;
}

async function readHeld(terminal: TerminalParts, input: ReadInput, options: ReadOptions, h: Held): Promise<ReadResult> {
  const { progress, signal } = options;
  const { meta, range, until, waits } = h;
  const id = input.session_id;
  const layout = terminal.layout;
  const logDir = meta ? layout.sessionLogDir(id) : null;
  const seg = meta?.segment_bytes ?? 1;
  if (meta) await terminal.prune(meta);
  const lastSend = await terminal.lastSend(id);
  const cursorFile = layout.sessionCursor(id);
  const saved = meta ? (await readJsonFile<{ cursor: number }>(cursorFile).catch(() => null))?.cursor ?? 0 : 0;
  const start = input.cursor ?? saved;
  // The log writer is checked (and restarted if it stopped) before reading, and while waiting.
  const writerEvents: WriterEvent[] = [];
  const noteWriter = (e: WriterEvent | null) =>
    void (e && e.code !== writerEvents.at(-1)?.code && writerEvents.push(e));
  const floor = Math.max(saved, lastSend?.cursor ?? 0);
  // A wait asks tmux for the pane only when its first look at the log does not decide (a command that already ended
  // is answered from the log alone: the log holds the end the writer recorded). Then that one answer's pipe state
  // serves the writer check, the rest the wait's first look at the pane.
  let firstCheck: Promise<WriterEvent | null> = meta && !waits
    ? terminal.logs.check(meta, { floor })
    : Promise.resolve(null);
  const firstPane = meta && waits
    ? () => {
      const pane = terminal.panes.paneInfo(id);
      firstCheck = pane.then(
        (p) => terminal.logs.check(meta, { floor, piped: p === null || p.paneDead ? null : p.piped !== false }),
        () => null,
      );
      return pane;
    }
    : null;
  if (!waits) noteWriter(await firstCheck);

  let completion: Completion | null = null;
  const timeoutS = h.timeoutS;
  if (waits) {
    // When the wait asks for the pane, it goes on watching while that check runs: a stopped writer is restarted all
    // the same, and the wait sees what the new writer records. Its events come first in the warnings.
    const during: WriterEvent[] = [];
    // The file work of the cursor's update is done while waiting, too.
    completion = await waitForCompletion({
      sessionId: id,
      mux: terminal.mux,
      panes: terminal.panes,
      logDir,
      segmentBytes: seg,
      integration: meta?.integration ?? null,
      shellName: meta ? meta.shell_path.split("/").pop() ?? null : null,
      // "New output": what the last send caused, unless the caller named a cursor.
      untilFrom: input.cursor ?? Math.max(start, lastSend?.cursor ?? 0),
      lastSend,
      until,
      timeoutMs: h.timeoutMs,
      signal: signal ?? new AbortController().signal,
      ...(progress ? { progress } : {}),
      ...(meta ? { prune: () => terminal.prune(meta) } : {}),
      ...(meta
        ? {
          checkWriter: async () => {
            const e = await terminal.logs.check(meta, { backoff: true });
            if (e) during.push(e);
          },
        }
        : {}),
      sessionFilesExist: async () => (await Deno.stat(layout.sessionDir(id)).catch(() => null)) !== null,
      ...(firstPane ? { firstPane } : {}),
    });
    noteWriter(await firstCheck);
    for (const e of during) noteWriter(e);
  }
  // The shell's mark or the send's sentinel after the last send: the shell took that line (./type_ahead.ts).
  if (completion && (completion.via === "shell_integration" || completion.via === "sentinel")) terminal.lineTaken(id);
  // The shell printing a mark or the awaited text proves it is alive; otherwise ask the multiplexer.
  const alive = completion && ["shell_integration", "sentinel", "until"].includes(completion.via)
    ? true
    : completion && ["exit", "closed"].includes(completion.via)
    ? false
    : await terminal.mux.paneInfo(id).then((p) => p !== null && !p.paneDead);
  const ended = !alive;
  // A session aiterm opened that ended under a wait or a screen read: say so if the whole server is gone.
  if (ended && meta && (completion || input.screen)) {
    await terminal.throwIfServerGone(id, input.screen ? "show the screen of" : "wait on");
  }
  const base = {
    session_id: id,
    state: ended ? "ended" as const : "running" as const,
    is_complete: completion?.is_complete ?? null,
    via: completion?.via ?? null,
    exit_status: completion?.exit_status ?? null,
    waited_ms: completion?.waited_ms ?? null,
    timeout_used: completion ? timeoutS : null,
    hint: completion?.hint ?? null,
    prompt: completion?.prompt ?? null,
    warnings: readWarnings(writerEvents, []),
    running_ms: completion && !completion.is_complete ? runningMs(lastSend) : null,
  };

  // A session aiterm did not open (a person's, on the same socket) has no log: its plain read is its screen.
  const noLog = !logDir && !input.full && !range && input.cursor == null;
  // A wait that ended on a settled full screen answers with that screen (the log holds its drawing, rows run
  // together), unless the caller asked for the log's bytes (raw, full, line_range, cursor), or it ended since.
  const settled = completion?.via === "screen_settled" && !ended && !input.screen && !input.full && !range &&
    !input.raw && input.cursor == null;
  if (input.screen || noLog || settled) {
    if (ended) {
      throw new AppError("SESSION_ENDED", `Cannot show the screen of session "${id}": it has ended`, {
        suggestion: "read its log without screen:true",
      });
    }
    // lines: N rows of scrollback above the screen, so the last N rows that hold text can be kept (./screen.ts).
    const shot = await terminal.mux.capture(id, input.lines ? { scrollback: input.lines } : {});
    const view = reduceScreen(shot, { sessionId: id, lines: input.lines, raw: input.raw });
    // A long scrollback keeps its newest lines that fit one result.
    const fit = fitTail(view.text, input.budget);
    // The drawing the screen stands for is read: the cursor moves past it (cursor=<before> full=true shows it), once
    // the result reached the client.
    const drawn = settled && logDir ? (await logExtent(logDir, seg)).end : null;
    if (drawn !== null && h.hold) {
      const value = { cursor: Math.max(drawn, saved) };
      await h.hold(() => terminal.hotFiles.putJson(cursorFile, value));
    }
    const notes = [
      ...(fit.dropped
        ? [`the oldest ${fit.dropped} lines are left out (1 MiB result limit); ask for fewer lines`]
        : []),
      ...(drawn !== null
        ? [`the screen it settled on; its drawing in the log: pty_read cursor=${start} full=true`]
        : !input.screen
        ? ["no log: aiterm did not open this session, so this is its screen"]
        : []),
    ];
    return {
      ...base,
      view: "screen",
      text: fit.text,
      meta: notes.length ? `${view.meta.slice(0, -1)}; ${notes.join("; ")}]` : view.meta,
      reducer: null,
      cursor: null,
      next_cursor: drawn,
      end: drawn,
      has_more: false,
      next_line: null,
      truncated: fit.dropped > 0,
    };
  }
  if (!logDir) {
    throw new AppError("LOG_UNAVAILABLE", `Cannot read the log of session "${id}": it was not opened by aiterm`, {
      suggestion: "read its screen: pty_read screen:true (lines:N reaches into its scrollback)",
    });
  }

  const ext = await logExtent(logDir, seg);
  const whole = input.full || range !== null;
  // The saved cursor is past the end: the log's newest part was deleted (and no writer could be restarted).
  const shrank = !whole && input.cursor == null && start > ext.end;
  const suffix = lastSend?.mark_suffix ?? null;
  const page = range
    ? await readLineRange({
      dir: logDir,
      segmentBytes: seg,
      id,
      range,
      base: input.cursor ?? ext.start,
      suffix,
      buffers: terminal.readBuffers,
      budget: input.budget,
    })
    : await readLogPage({
      dir: logDir,
      segmentBytes: seg,
      buffers: terminal.readBuffers,
      id,
      input,
      from: input.full ? input.cursor ?? ext.start : start,
      lastSend,
      waiting: completion !== null && !completion.is_complete,
    });
  // A program that waits for input always shows what it asks: with nothing new, the line it printed last.
  const asks = completion?.via === "nested" || completion?.via === "input_prompt";
  const asked = asks && !range && !input.raw && page.text.trim() === ""
    ? await lastLogLine(logDir, seg, page.textStart)
    : null;
  if (asked !== null) {
    page.text = asked;
    page.meta = `[aiterm ${id}: no new output; the line it waits on, printed before cursor ${page.textStart}]`;
  }
  const { slice, nextCursor } = page;
  if (h.hold) {
    // A hot, rebuildable file (state/atomic.ts): atomic, without an fsync on every read. It moves only once the
    // result reached the client: a cancelled call consumes nothing.
    const value = { cursor: input.full ? Math.max(nextCursor, saved) : nextCursor };
    await h.hold(() => terminal.hotFiles.putJson(cursorFile, value));
  }
  return {
    ...base,
    view: input.full ? "full" : range ? "line_range" : "log",
    text: page.text,
    meta: page.meta,
    reducer: page.reducer,
    cursor: page.textStart,
    next_cursor: nextCursor,
    end: slice.end,
    has_more: page.hasMore,
    next_line: page.nextLine,
    truncated: page.truncated || shrank || writerEvents.some((e) => e.code === "LOG_WRITER_RESTARTED"),
    warnings: readWarnings(writerEvents, [
      ...slice.gaps,
      ...(shrank ? [{ from: ext.end, to: start, code: "LOG_SEGMENT_MISSING" as const }] : []),
    ]),
  };
}

/** One page of the log in a read's view. */
interface LogPage extends Rendered {
  slice: LogSlice;
  textStart: number;
  nextCursor: number;
  hasMore: boolean;
  nextLine: number | null;
  truncated: boolean;
}

/**
 * The folded, full or raw view of one page from `from`: folded reads look at up to 4 MiB, full and
 * raw pages at what fits one result; every page is cut until its text fits (see read_page.ts).
 */
async function readLogPage(o: {
  dir: string;
  segmentBytes: number;
  buffers: ReadBuffers;
  id: string;
  input: ReadInput;
  from: number;
  lastSend: LastSend | null;
  /** The program still runs and may wait for input: reduction keeps the last line it printed. */
  waiting: boolean;
}): Promise<LogPage> {
  const { input, lastSend } = o;
  const render = (raw: string, textStart: number): Rendered => {
    let text = hideSentinel(raw, lastSend?.mark_suffix ?? null);
    if (input.lines && input.lines > 0) {
      const ls = text.split("\n");
      if (ls.length > input.lines + 1) text = ls.slice(-(input.lines + (text.endsWith("\n") ? 1 : 0))).join("\n");
    }
    if (input.raw) return { text, meta: null, reducer: null };
    // The echo of aiterm's own multi-line wrapper says nothing the caller did not send: show a marker.
    for (const d of ["posix", "pwsh"] as const) {
      text = text.replace(dialectById(d).scriptEchoPattern, "⟨aiterm multi-line script⟩");
    }
    const r = reduceOutput(text, {
      sessionId: o.id,
      command: lastSend && lastSend.cursor >= textStart ? lastSend.text : null,
      elide: !input.full,
      waiting: o.waiting,
    });
    // The fold marker names lines of the unfolded view of exactly this text: full=true from the same
    // cursor reproduces that view.
    const folded = r.text.replace(
      /pty_read full=true for all, line_range="\d+:\d+" for these/g,
      `pty_read cursor=${textStart} full=true shows them`,
    );
    return { text: folded, meta: r.meta, reducer: r.reducer };
  };
  const p = await readBytePage({
    dir: o.dir,
    segmentBytes: o.segmentBytes,
    buffers: o.buffers,
    from: o.from,
    // JSON escaping makes text a little longer than its bytes (newlines, escapes): start a little under the
    // budget so that a typical page is rendered once.
    maxBytes: input.full || input.raw ? Math.floor((input.budget ?? MAX_PAGE_TEXT_BYTES) * 0.95) : MAX_READ_BYTES,
    alignStart: input.full === true || input.cursor != null,
    wholeLines: !input.raw,
    ...(input.budget !== undefined ? { budget: input.budget } : {}),
    render,
  });
  return { ...p, hasMore: p.nextCursor < p.slice.end, nextLine: null, truncated: p.slice.truncated };
}

/**
 * Lines `range` of the log, counted from `base` (the first byte kept, or the caller's cursor), as
 * many as fit one result; the meta line says how to continue.
 */
async function readLineRange(o: {
  dir: string;
  segmentBytes: number;
  id: string;
  range: { lo: number; hi: number | null };
  base: number;
  suffix: string | null;
  buffers: ReadBuffers;
  budget?: number | undefined;
}): Promise<LogPage> {
  const { lo, hi } = o.range;
  const at = await findLine(o.dir, o.segmentBytes, { base: o.base, line: lo, buffers: o.buffers });
  const count = hi === null ? null : hi - lo + 1;
  const p = await readLinePage({
    dir: o.dir,
    segmentBytes: o.segmentBytes,
    buffers: o.buffers,
    from: at.offset,
    count,
    ...(o.budget !== undefined ? { budget: o.budget } : {}),
    render: (text) => stripControl(hideSentinel(text, o.suffix, true)).split("\n"),
  });
  const shown = p.complete + (p.cutLine ? 1 : 0);
  const last = lo + shown - 1;
  const atEnd = p.nextCursor >= p.slice.end;
  const hasMore = !atEnd && (count === null || p.complete < count);
  const nextLine = hasMore && !p.cutLine ? lo + p.complete : null;
  const tag = `[aiterm ${o.id}:`;
  const meta = shown === 0
    ? `${tag} no line ${lo}; the log has ${at.found ? lo - 1 : at.lines} lines]`
    : p.cutLine
    ? `${tag} line ${last} is longer than one result; it continues at cursor=${p.nextCursor} (pty_read cursor=${p.nextCursor} line_range="1:" counts lines from there)]`
    : hasMore
    ? `${tag} lines ${lo}-${last}; more: line_range="${nextLine}:${hi ?? ""}"]`
    : atEnd
    ? `${tag} lines ${lo}-${last} of ${last}]`
    : `${tag} lines ${lo}-${last}]`;
  return {
    text: p.lines.join("\n"),
    meta,
    reducer: null,
    slice: p.slice,
    textStart: p.textStart,
    nextCursor: p.nextCursor,
    hasMore,
    nextLine,
    truncated: at.truncated || p.slice.truncated,
  };
}
