/**
 * `pty_read`: incremental, token-reduced reads of a session's durable log, the rendered screen, or
 * exact line ranges, optionally after waiting for the last command to complete.
 */
import { AppError } from "../errors.ts";
import { readJsonFile, writeJsonAtomic } from "../state/mod.ts";
import { dialectById } from "../../platform/mod.ts";
import { type Completion, waitForCompletion } from "./completion.ts";
import { completeUtf8Prefix, leadingContinuationBytes, logExtent, readLog } from "./output_log.ts";
import { reduceOutput, stripControl } from "./reduce/mod.ts";
import type { Terminal } from "./terminal.ts";

/** The longest wait a read accepts; larger values are clamped. */
export const MAX_TIMEOUT_S = 600;
/** The most log bytes one incremental read returns (the rest is `has_more`). */
export const MAX_READ_BYTES = 4 * 1024 * 1024;
/** The most log bytes `full` and `line_range` look at (the newest ones). */
export const MAX_FULL_BYTES = 8 * 1024 * 1024;

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
  truncated: boolean;
  is_complete: boolean | null;
  via: Completion["via"] | null;
  exit_status: number | null;
  waited_ms: number | null;
  timeout_used: number | null;
  hint: string | null;
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

function hideSentinel(text: string, suffix: string | null): string {
  let out = suffix ? text.split(suffix).join("") : text;
  out = out.replace(/^__AITERM_[0-9a-f]{8,}_-?\d+__\r?$\n?/gm, "");
  return out;
}

/**
 * Reads a session (see module doc).
 * @throws {AppError} SESSION_NOT_FOUND, INVALID_ARGUMENT
 */
export async function readSession(
  terminal: Terminal,
  input: ReadInput,
  progress?: (ms: number, total: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<ReadResult> {
  const id = input.session_id;
  if ((input.screen && (input.full || input.line_range)) || (input.full && input.line_range)) {
    throw new AppError("INVALID_ARGUMENT", "Cannot combine screen, full and line_range: pick one view", {
      data: { field: "screen" },
    });
  }
  const range = input.line_range ? parseLineRange(input.line_range) : null;
  let untilRegex: RegExp | null = null;
  if (input.until && input.until_regex) {
    try {
      untilRegex = new RegExp(input.until, "m");
    } catch (err) {
      throw new AppError("INVALID_ARGUMENT", `Cannot use until as a regex: ${(err as Error).message}`, {
        data: { field: "until" },
      });
    }
  }
  const meta = await terminal.meta(id);
  const live = meta ? null : await terminal.mux.paneInfo(id);
  if (!meta && !live) {
    throw new AppError("SESSION_NOT_FOUND", `Cannot read session "${id}": no such session`, {
      suggestion: "call pty_list",
    });
  }
  const layout = terminal.layout;
  const logDir = meta ? layout.sessionLogDir(id) : null;
  const seg = meta?.segment_bytes ?? 1;
  if (meta) await terminal.prune(meta);
  const lastSend = await terminal.lastSend(id);
  const cursorFile = layout.sessionCursor(id);
  const saved = meta ? (await readJsonFile<{ cursor: number }>(cursorFile).catch(() => null))?.cursor ?? 0 : 0;
  const start = input.cursor ?? saved;

  let completion: Completion | null = null;
  const timeoutS = Math.min(Math.max(input.timeout ?? 10, 0), MAX_TIMEOUT_S);
  if (input.wait || input.until) {
    completion = await waitForCompletion({
      sessionId: id,
      mux: terminal.mux,
      logDir,
      segmentBytes: seg,
      integration: meta?.integration ?? null,
      shellName: meta ? meta.shell_path.split("/").pop() ?? null : null,
      // "New output": what the last send caused, unless the caller named a cursor.
      untilFrom: input.cursor ?? Math.max(start, lastSend?.cursor ?? 0),
      lastSend,
      until: input.until && !untilRegex ? input.until : null,
      untilRegex,
      timeoutMs: timeoutS * 1000,
      signal: signal ?? new AbortController().signal,
      ...(progress ? { progress } : {}),
      ...(meta ? { prune: () => terminal.prune(meta) } : {}),
      sessionFilesExist: async () => (await Deno.stat(layout.sessionDir(id)).catch(() => null)) !== null,
    });
  }
  // The shell printing a mark or the awaited text proves it is alive; otherwise ask the multiplexer.
  const alive = completion && ["shell_integration", "sentinel", "until"].includes(completion.via)
    ? true
    : completion && ["exit", "closed"].includes(completion.via)
    ? false
    : await terminal.mux.paneInfo(id).then((p) => p !== null && !p.paneDead);
  const ended = !alive;
  const base = {
    session_id: id,
    state: ended ? "ended" as const : "running" as const,
    is_complete: completion?.is_complete ?? null,
    via: completion?.via ?? null,
    exit_status: completion?.exit_status ?? null,
    waited_ms: completion?.waited_ms ?? null,
    timeout_used: completion ? timeoutS : null,
    hint: completion?.hint ?? null,
  };

  if (input.screen) {
    if (ended) {
      throw new AppError("SESSION_ENDED", `Cannot show the screen of session "${id}": it has ended`, {
        suggestion: "read its log without screen:true",
      });
    }
    const shot = await terminal.mux.capture(id, input.lines ? { scrollback: input.lines } : {});
    const text = input.raw ? shot : shot.replace(/\s+$/, "");
    return {
      ...base,
      view: "screen",
      text,
      meta: null,
      reducer: null,
      cursor: null,
      next_cursor: null,
      end: null,
      has_more: false,
      truncated: false,
    };
  }
  if (!logDir) {
    throw new AppError("SESSION_NOT_FOUND", `Cannot read the log of session "${id}": it was not opened by aiterm`, {
      suggestion: "use screen:true",
    });
  }

  const ext = await logExtent(logDir, seg);
  const whole = input.full || range !== null;
  const fullFrom = input.full && input.cursor != null ? input.cursor : Math.max(ext.start, ext.end - MAX_FULL_BYTES);
  const from = whole ? fullFrom : start;
  const slice = await readLog(logDir, seg, from, whole ? MAX_FULL_BYTES : MAX_READ_BYTES);
  let bytes = slice.bytes;
  let textStart = slice.from;
  const skip = (whole || slice.truncated || input.cursor != null) ? leadingContinuationBytes(bytes) : 0;
  bytes = bytes.subarray(skip);
  textStart += skip;
  const keep = completeUtf8Prefix(bytes);
  const nextCursor = textStart + keep;
  let text = new TextDecoder().decode(bytes.subarray(0, keep));
  text = hideSentinel(text, lastSend?.mark_suffix ?? null);

  let view: ReadResult["view"] = input.full ? "full" : range ? "line_range" : "log";
  let out: string;
  let metaLine: string | null = null;
  let reducer: string | null = null;
  if (range) {
    const all = stripControl(text).split("\n");
    out = all.slice(range.lo - 1, range.hi ?? undefined).join("\n");
    view = "line_range";
    metaLine = `[aiterm ${id}: lines ${range.lo}-${Math.min(range.hi ?? all.length, all.length)} of ${all.length}]`;
  } else {
    if (input.lines && input.lines > 0) {
      const ls = text.split("\n");
      if (ls.length > input.lines + 1) text = ls.slice(-(input.lines + (text.endsWith("\n") ? 1 : 0))).join("\n");
    }
    if (input.raw) {
      out = text;
    } else {
      // The echo of aiterm's own multi-line wrapper says nothing the caller did not send: show a marker.
      for (const id of ["posix", "pwsh"] as const) {
        text = text.replace(dialectById(id).scriptEchoPattern, "⟨aiterm multi-line script⟩");
      }
      const r = reduceOutput(text, {
        sessionId: id,
        command: lastSend && lastSend.cursor >= textStart ? lastSend.text : null,
        elide: !input.full,
      });
      // The fold marker names lines of the unfolded view of exactly this text: full=true from the same
      // cursor reproduces that view.
      out = r.text.replace(
        /pty_read full=true for all, line_range="\d+:\d+" for these/g,
        `pty_read cursor=${textStart} full=true shows them`,
      );
      metaLine = r.meta;
      reducer = r.reducer;
    }
  }
  if (input.cursor == null && !range) {
    await writeJsonAtomic(cursorFile, { cursor: input.full ? Math.max(nextCursor, saved) : nextCursor }).catch(
      () => {},
    );
  }
  return {
    ...base,
    view,
    text: out,
    meta: metaLine,
    reducer,
    cursor: whole
      ? textStart
      : Math.min(start, ext.end) < ext.start
      ? ext.start
      : Math.min(Math.max(textStart, 0), ext.end),
    next_cursor: nextCursor,
    end: slice.end,
    has_more: nextCursor < slice.end,
    truncated: slice.truncated,
  };
}

/** The text an AI reads for a read result: the output, the meta line, and the completion verdict. */
export function formatRead(r: ReadResult): string {
  const parts = [r.text];
  if (r.meta) parts.push(r.meta);
  const cur = r.next_cursor !== null
    ? ` next_cursor=${r.next_cursor}${r.has_more ? " has_more" : ""}${r.truncated ? " truncated" : ""}`
    : "";
  if (r.via) {
    const exit = r.exit_status !== null ? ` exit=${r.exit_status}` : "";
    parts.push(
      `[is_complete=${r.is_complete} via ${r.via}${exit} in ${r.waited_ms} ms;${cur}${
        r.state === "ended" ? " session ended" : ""
      }]`,
    );
    if (r.hint) parts.push(`[hint: ${r.hint}]`);
  } else if (cur || r.state === "ended") {
    parts.push(`[${cur.trim()}${r.state === "ended" ? " session ended" : ""}]`);
  }
  return parts.filter((p) => p !== "").join("\n");
}
