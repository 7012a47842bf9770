import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { readAnswer } from "../../agent/mod.ts";
import { AppError } from "../../errors.ts";
import { formatRead, MAX_UNTIL_CHARS, type ReadInput, type ReadResult, readSession } from "../../terminal/mod.ts";
import { type CallContext, defineTool, SessionIdSchema, type ToolDeps } from "../tool.ts";
import { summaryText, TEXT_COPY_BYTES } from "../result.ts";

type AgentRead = ReadResult & { turn_id: string | null; answer_empty: boolean | null; harness: string | null };

async function read(
  input: ReadInput & { agent_transcript: boolean; generation?: string | null | undefined },
  deps: ToolDeps,
  ctx: CallContext,
): Promise<AgentRead> {
  await deps.terminal.checkGeneration(input.session_id, input.generation);
  if (!input.agent_transcript) {
    const r = await readSession(
      deps.terminal,
      input,
      (ms, total) => ctx.progress(ms, total, "waiting for the command to finish"),
      ctx.signal,
    );
    return { ...r, turn_id: null, answer_empty: null, harness: null };
  }
  const bad = (["screen", "full", "wait"] as const).find((k) => input[k]) ??
    (input.line_range ? "line_range" : input.until ? "until" : null);
  if (bad) {
    throw new AppError("INVALID_ARGUMENT", `Cannot combine agent_transcript with ${bad}`, { data: { field: bad } });
  }
  const a = await readAnswer(
    { terminal: deps.terminal, env: deps.env, defaultCwd: deps.cwd },
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
    turn_id: a.turn_id,
    answer_empty: a.answer_empty,
    harness: a.harness,
  };
}

const VIA = [
  "exit",
  "closed",
  "sentinel",
  "until",
  "shell_integration",
  "quiescent",
  "input_prompt",
  "nested",
  "screen_settled",
  "timeout",
] as const;

export const ptyRead = defineTool({
  name: "pty_read",
  title: "Read a terminal",
  description:
    'Read what a session printed since your last read, reduced to what matters (control codes stripped, repeats and blank runs collapsed, long output folded to head+tail, test/build/git/grep/install output summarised with every failure and error kept). wait:true first waits until the last command finishes and says how it knows (via: exit, sentinel, until, shell_integration, quiescent; input_prompt with prompt continuation|read|password, nested, screen_settled (a full-screen program such as vim, less or top whose screen stopped changing) or timeout when not complete). screen:true shows the rendered screen (for full-screen programs), trimmed, with a meta line. full:true or line_range:"A:B" give exact lines; raw:true the unreduced text; cursor reads from a byte offset without moving your default cursor. A result is at most 1 MiB: has_more:true means read again with cursor=next_cursor (line_range: from next_line).',
  input: z.object({
    session_id: SessionIdSchema,
    generation: z.string().regex(/^[0-9a-f]{12}$/).nullish().describe(
      "The session generation from its receipt; a session closed and reopened under the same name is then SESSION_STALE",
    ),
    wait: z.boolean().default(false).describe("Wait for the last command to complete before reading"),
    until: z.string().min(1).max(MAX_UNTIL_CHARS).nullish().describe(
      "Wait until this text appears in new output (implies wait)",
    ),
    until_regex: z.boolean().default(false).describe(
      "Treat until as a JavaScript regular expression (flag m: ^ and $ at line ends and at the end of the output so far), matched in linear time; backreferences and lookaround are refused",
    ),
    timeout: z.number().min(0).default(10).describe("Seconds to wait at most (capped at 600)"),
    screen: z.boolean().default(false).describe("Return the rendered visible screen instead of the log"),
    full: z.boolean().default(false).describe(
      "No folding: the retained log from its first byte, or from cursor when given, in pages of at most 1 MiB",
    ),
    lines: z.number().int().positive().nullish().describe(
      "Only the last N lines (with screen: the last N rows that hold text, reaching into the scrollback when N is larger than the screen)",
    ),
    line_range: z.string().nullish().describe(
      'Exact lines "A:B" of the retained log (counted from cursor when given), 1-based inclusive; "A:" to the end',
    ),
    raw: z.boolean().default(false).describe("Return the text unreduced (control sequences kept)"),
    cursor: z.number().int().min(0).nullish().describe(
      "Read from this byte offset without moving your default cursor; with agent_transcript, the turn's event_cursor",
    ),
    agent_transcript: z.boolean().default(false).describe(
      "Agent sessions: the final answer of the turn at cursor (default: the last finished turn), from the harness's own transcript",
    ),
    remote: RemoteSchema.optional(),
  }).strict(),
  output: z.object({
    session_id: z.string().describe("The session"),
    state: z.enum(["running", "ended"]).describe("ended = its shell exited; the log stays readable until pty_close"),
    view: z.enum(["log", "screen", "full", "line_range", "agent_transcript"]).describe("What was read"),
    meta: z.string().nullable().describe("Lines and estimated tokens shown versus raw"),
    reducer: z.string().nullable().describe("Which reduction was applied (generic or a command-specific one)"),
    cursor: z.number().int().nullable().describe("Byte offset the text starts at"),
    next_cursor: z.number().int().nullable().describe("Byte offset to continue from"),
    end: z.number().int().nullable().describe("Byte offset of the end of the log"),
    has_more: z.boolean().describe(
      "More follows: the result stopped at the 1 MiB limit or the end of a page; read again with cursor=next_cursor (line_range: with next_line)",
    ),
    next_line: z.number().int().nullable().describe(
      'line_range: the first line not returned when has_more; continue with line_range "<next_line>:<B>"',
    ),
    truncated: z.boolean().describe(
      "Part of what was asked for is not in the log: rotated out, deleted, or lost while its writer was stopped",
    ),
    warnings: z.array(z.string()).optional().describe(
      "CODE: sentence lines about the log: LOG_WRITER_RESTARTED (its writer had stopped and was restarted; output in the gap was lost), LOG_WRITER_DOWN (new output is not being recorded), LOG_SEGMENT_MISSING (part of the log was deleted)",
    ),
    is_complete: z.boolean().nullable().describe("Whether the last command finished (null when not waiting)"),
    via: z.enum(VIA).nullable().describe("How completion was decided"),
    exit_status: z.number().int().nullable().describe("Exit status when the evidence carries one"),
    waited_ms: z.number().int().nullable().describe("How long the wait took"),
    timeout_used: z.number().nullable().describe("The timeout applied, in seconds, after capping"),
    hint: z.string().nullable().describe("What to do when not complete"),
    prompt: z.enum(["continuation", "read", "password"]).nullable().optional().describe(
      "via input_prompt: the shell waits for the rest of a command (continuation, PS2), a program reads a line (read), or echo is off for a secret (password)",
    ),
    turn_id: z.string().nullable().describe("agent_transcript: the harness's id of the turn"),
    answer_empty: z.boolean().nullable().describe("agent_transcript: the finished turn's answer is empty"),
    harness: z.string().nullable().describe("agent_transcript: the harness"),
    ...REMOTE_RESULT_FIELDS,
    // Last, so that a client that cuts a large result keeps the verdict and cursors above.
    text: z.string().describe("The (reduced) output"),
  }).strict(),
  annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  handler: (input, deps, ctx) => read(input, deps, ctx),
  // A long body is in structuredContent only (what Claude Code and Codex show); the text block then summarises.
  text: (out) =>
    out.text.length > TEXT_COPY_BYTES
      ? summaryText(out)
      : out.view === "agent_transcript"
      ? out.text
      : formatRead(out as ReadResult),
});
