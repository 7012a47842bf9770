import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { readAnswer } from "../../agent/mod.ts";
import { AppError } from "../../../base/errors.ts";
import { formatRead, MAX_UNTIL_CHARS, type ReadInput, type ReadResult } from "../../terminal/mod.ts";
import { type CallContext, defineTool, GenerationSchema, SessionIdSchema, type ToolDeps } from "../tool.ts";
import { summaryText, TEXT_COPY_BYTES } from "../result.ts";
import { nextCall, NextCallSchema, planWait, textBudget, VIA } from "./terminal_wait.ts";

type AgentRead = ReadResult & {
  turn_id: string | null;
  answer_empty: boolean | null;
  harness: string | null;
  next_call?: z.infer<typeof NextCallSchema> | null;
  timeout_capped?: string | null;
};

async function read(
  input: Omit<ReadInput, "timeout"> & {
    timeout?: number | null | undefined;
    agent_transcript: boolean;
    generation?: string | null | undefined;
  },
  deps: ToolDeps,
  ctx: CallContext,
): Promise<AgentRead> {
  await deps.terminal.checkGeneration(input.session_id, input.generation);
  if (!input.agent_transcript) {
    // A wait without a timeout waits as long as the calling client lets one call run (lib/mcp/tools/terminal_wait.ts).
    const plan = planWait(ctx, input.timeout, null);
    const r = await deps.terminal.read({ ...input, timeout: plan.timeoutS, budget: textBudget(ctx) }, {
      progress: (ms, total) => ctx.progress(ms, total, "waiting for the command to finish"),
      signal: ctx.signal,
      settle: ctx.settle,
    });
    const waited = Boolean(input.wait || input.until);
    return {
      ...r,
      turn_id: null,
      answer_empty: null,
      harness: null,
      // A wait for text goes on waiting for that text.
      next_call: nextCall(r, plan, input.until ? { until: input.until, until_regex: input.until_regex } : {}),
      timeout_capped: waited ? plan.capped : null,
    };
  }
  const bad = (["screen", "full", "wait"] as const).find((k) => input[k]) ??
    (input.line_range ? "line_range" : input.until ? "until" : null);
  if (bad) {
    throw new AppError("INVALID_ARGUMENT", `Cannot combine agent_transcript with ${bad}`, { data: { field: bad } });
  }
  const a = await readAnswer(
    { terminal: deps.terminal, env: deps.env, defaultCwd: deps.cwd, transcripts: deps.transcripts },
    input.session_id,
    input.cursor ?? null,
  );
  let text = a.text;
  if (input.lines && input.lines > 0) text = text.split("\n").slice(-input.lines).join("\n");
  return {
    session_id: a.session_id,
    state: "running",
    view: "agent_transcript",
    text,
    meta: null,
    reducer: null,
    cursor: a.cursor,
    next_cursor: null,
    end: null,
    has_more: false,
    next_line: null,
    truncated: false,
    is_complete: true,
    via: null,
    exit_status: null,
    waited_ms: null,
    timeout_used: null,
    hint: null,
    prompt: null,
    warnings: [],
    running_ms: null,
    turn_id: a.turn_id,
    answer_empty: a.answer_empty,
    harness: a.harness,
  };
}

const DESCRIPTION =
  "Read what a session printed since your last read, reduced for a model: control codes stripped, repeats folded, " +
  "long output cut to head and tail, test/build/install output summarised, errors kept (full, line_range or raw show " +
  "all). wait:true first blocks until the last command finishes (is_complete, via, exit_status), as long as your " +
  "client lets a call run (by default 110 s in Claude Code, 285 s in Codex, 55 s elsewhere); still running: make the " +
  "returned next_call. has_more: read on from next_cursor. pty_observe gives state without output. " +
  "agent_transcript:true reads an agent turn's final answer; before the turn ends it is AGENT_RESULT_PENDING: wait as " +
  "the receipt's `next` says, then read.";

export const ptyRead = defineTool({
  name: "pty_read",
  title: "Read a terminal",
  description: DESCRIPTION,
  input: z.object({
    session_id: SessionIdSchema,
    generation: GenerationSchema,
    wait: z.boolean().default(false).describe("Block until the last command finishes, then read"),
    until: z.string().min(1).max(MAX_UNTIL_CHARS).nullish().describe(
      "Block until this text appears in new output instead",
    ),
    until_regex: z.boolean().default(false).describe(
      "until is a JavaScript regex (flag m; no backreferences or lookaround)",
    ),
    timeout: z.number().min(0).nullish().describe("Seconds to block at most (default: all your client allows)"),
    screen: z.boolean().default(false).describe("The rendered screen (vim, less, top) instead of the log"),
    full: z.boolean().default(false).describe("The whole retained log unfolded, from its start or cursor, in pages"),
    lines: z.number().int().positive().nullish().describe(
      "Only the last N lines (screen: rows with text, reaching into the scrollback)",
    ),
    line_range: z.string().nullish().describe(
      'Exact log lines "A:B", 1-based, inclusive, "A:" to the end; counted from cursor if given',
    ),
    raw: z.boolean().default(false).describe("Unreduced, control sequences kept"),
    cursor: z.number().int().min(0).nullish().describe(
      "Byte offset to read from without moving your own; agent_transcript: the turn's event_cursor",
    ),
    agent_transcript: z.boolean().default(false).describe(
      "Agent sessions: the answer of turn cursor (default: the last finished one)",
    ),
    remote: RemoteSchema.optional(),
  }).strict(),
  // What Claude Code and Codex give the model is this object as JSON (the text block never reaches them):
  // the verdict, the cursors and what to do next first, fields without a value left out, the text last.
  // Fields that may be absent are nullish: a remote aiterm from before this shape sends them as null.
  output: z.object({
    session_id: z.string().describe("The session"),
    is_complete: z.boolean().nullish().describe("Whether the last command finished (absent when not waiting)"),
    via: z.enum(VIA).nullish().describe("How completion was decided"),
    exit_status: z.number().int().nullish().describe("Exit status when the evidence carries one"),
    prompt: z.enum(["continuation", "read", "password"]).nullish().describe(
      "via input_prompt: the shell waits for the rest of a command (continuation, PS2), a program reads a line (read), or echo is off for a secret (password)",
    ),
    hint: z.string().nullish().describe("What to do when not complete"),
    running_ms: z.number().int().nullish().describe("Not complete: how long since the last send"),
    next_call: NextCallSchema.nullish(),
    has_more: z.boolean().nullish().describe(
      "More follows: the result stopped at the 1 MiB limit or the end of a page; read again with cursor=next_cursor (line_range: with next_line)",
    ),
    next_cursor: z.number().int().nullish().describe("Byte offset to continue from"),
    next_line: z.number().int().nullish().describe(
      'line_range: the first line not returned when has_more; continue with line_range "<next_line>:<B>"',
    ),
    truncated: z.boolean().nullish().describe(
      "Part of what was asked for is not in the log: rotated out, deleted, or lost while its writer was stopped",
    ),
    warnings: z.array(z.string()).optional().describe(
      "CODE: sentence lines about the log: LOG_WRITER_RESTARTED (its writer had stopped and was restarted; output in the gap was lost), LOG_WRITER_DOWN (new output is not being recorded), LOG_SEGMENT_MISSING (part of the log was deleted)",
    ),
    state: z.enum(["running", "ended"]).nullish().describe(
      "ended = its shell exited; the log stays readable until pty_close (absent: running)",
    ),
    view: z.enum(["log", "screen", "full", "line_range", "agent_transcript"]).nullish().describe(
      "What was read (absent: log)",
    ),
    cursor: z.number().int().nullish().describe("Byte offset the text starts at"),
    end: z.number().int().nullish().describe("Byte offset of the end of the log"),
    waited_ms: z.number().int().nullish().describe("How long the wait took"),
    timeout_used: z.number().nullish().describe("The timeout applied, in seconds, after capping"),
    timeout_capped: z.string().nullish().describe("The asked timeout was lowered to fit your client: why"),
    meta: z.string().nullish().describe("Lines and estimated tokens shown versus raw"),
    reducer: z.string().nullish().describe("Which reduction was applied (generic or a command-specific one)"),
    turn_id: z.string().nullish().describe("agent_transcript: the harness's id of the turn"),
    answer_empty: z.boolean().nullish().describe("agent_transcript: the finished turn's answer is empty"),
    harness: z.string().nullish().describe("agent_transcript: the harness"),
    ...REMOTE_RESULT_FIELDS,
    // Last, so that a client that cuts a large result keeps the verdict and cursors above.
    text: z.string().describe("The (reduced) output"),
  }).strict(),
  annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps, ctx) => leanRead(await read(input, deps, ctx)),
  // A long body is in structuredContent only (what Claude Code and Codex show); the text block then summarises.
  text: (out) =>
    out.text.length > TEXT_COPY_BYTES
      ? summaryText(out)
      : out.view === "agent_transcript"
      ? out.text
      : formatRead(asReadResult(out)),
});

/** `T` with its nullable fields optional instead (and never null), and an optional warnings list. */
type Compact<T> =
  & { [K in keyof T as null extends T[K] ? never : K extends "warnings" ? never : K]: T[K] }
  & { [K in keyof T as null extends T[K] ? K : never]?: Exclude<T[K], null> }
  & { warnings?: string[] };

/** A read's meta line that says nothing beyond `reducer` and the text: the generic reducer hid no line. */
const PLAIN_META = /; reducer generic; 0 lines hidden\]$/;

/**
 * The read as the model gets it (ADR 0039): one field per fact, and what is null, empty or at its default left out —
 * `has_more`/`truncated` unless true, `state` unless "ended", `view` unless not "log", `reducer` unless a
 * command-specific one, `meta` unless it says more than that, `cursor` unless the text starts after a gap (or names the
 * agent turn read), `end` unless more follows, `timeout_used` unless the asked timeout was lowered.
 */
export function leanRead(r: AgentRead): Compact<AgentRead> {
  const log = r.view === "log" || r.view === "full" || r.view === "line_range";
  const drop = (k: string, v: unknown): boolean => {
    if (v === null || (Array.isArray(v) && v.length === 0)) return true;
    switch (k) {
      case "has_more":
      case "truncated":
        return v === false;
      case "state":
        return v === "running";
      case "view":
        return v === "log";
      case "reducer":
        return v === "generic";
      case "meta":
        return log && typeof v === "string" && PLAIN_META.test(v);
      case "cursor":
        return log && !r.truncated;
      case "end":
        return log && !r.has_more;
      case "timeout_used":
        return !r.timeout_capped;
      default:
        return false;
    }
  };
  return Object.fromEntries(Object.entries(r).filter(([k, v]) => !drop(k, v))) as Compact<AgentRead>;
}

/** The read result formatRead() expects: absent fields back as null or their default. */
function asReadResult(out: Record<string, unknown>): ReadResult {
  const field = <T>(k: string): T | null => (out[k] ?? null) as T | null;
  return {
    ...(out as unknown as ReadResult),
    state: (out.state as ReadResult["state"] | undefined) ?? "running",
    view: (out.view as ReadResult["view"] | undefined) ?? "log",
    has_more: out.has_more === true,
    truncated: out.truncated === true,
    meta: field("meta"),
    reducer: field("reducer"),
    cursor: field("cursor"),
    next_cursor: field("next_cursor"),
    end: field("end"),
    next_line: field("next_line"),
    is_complete: field("is_complete"),
    via: field("via"),
    exit_status: field("exit_status"),
    waited_ms: field("waited_ms"),
    timeout_used: field("timeout_used"),
    hint: field("hint"),
    prompt: field("prompt"),
    warnings: (out.warnings as string[] | undefined) ?? [],
  };
}
