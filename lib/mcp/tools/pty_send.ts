import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { readAgentRecord } from "../../agent/mod.ts";
import { AppError } from "../../../base/errors.ts";
import { NotShellSession } from "../../terminal/mod.ts";
import { type CallContext, defineTool, GenerationSchema, SessionIdSchema, type ToolDeps } from "../tool.ts";
import { NextSchema, ParentDeliverySchema, WaitProcessSchema, WarningSchema } from "./agent_schemas.ts";
import { receiptGuidance, sendToAgent } from "../../agent/delivery/mod.ts";

interface SendArgs {
  session_id: string;
  text: string;
  enter: boolean;
  raw: boolean;
  mark: boolean | "posix" | "pwsh";
  image?: string[] | undefined;
  generation?: string | null | undefined;
}

/** The note a result carries when it took over a dead sender's lock (pty_key says the same). */
export const STALE_LOCK_NOTE =
  "warning: an earlier send to this session was cut off (its aiterm process died) and may have been partly typed; " +
  "look at the screen (pty_read screen:true) before relying on what runs there";

async function send(input: SendArgs, deps: ToolDeps, ctx: CallContext) {
  await deps.terminal.checkGeneration(input.session_id, input.generation);
  // A session this process already sent to as pty_open's is never an agent's: no look for an agent record (the
  // terminal checks the pane is still that session's, and sends nothing when it is not).
  if (!input.image?.length && deps.terminal.remembersShell(input.session_id)) {
    try {
      return await deps.terminal.send(input, { shellOnly: true });
    } catch (err) {
      if (!(err instanceof NotShellSession)) throw err;
    }
  }
  const rec = await readAgentRecord(deps.terminal.sessionDir(input.session_id)).catch(() => null);
  if (!rec) {
    if (input.image?.length) {
      throw new AppError("INVALID_ARGUMENT", "Cannot attach images to a plain terminal send", {
        data: { field: "image" },
      });
    }
    return await deps.terminal.send(input);
  }
  if (input.raw || input.mark !== false || !input.enter) {
    throw new AppError(
      "INVALID_ARGUMENT",
      "Cannot use raw, mark or enter:false on an agent session: a turn is always submitted",
      {
        suggestion: "nothing was typed; use pty_key for single keys",
        data: { field: input.raw ? "raw" : input.mark !== false ? "mark" : "enter" },
      },
    );
  }
  // The one agent-request pipeline (lib/agent/delivery/request.ts): clean, deliver, dispatch, route.
  const r = await sendToAgent(
    {
      deps: { terminal: deps.terminal, env: deps.env, defaultCwd: deps.cwd, transcripts: deps.transcripts },
      delivery: deps.delivery,
      parent: ctx.parent,
      progress: ctx.progress,
    },
    { session_id: input.session_id, text: input.text, images: input.image ?? [] },
  );
  return {
    session_id: r.session_id,
    mode: r.mode,
    bytes: r.bytes,
    enter: true,
    removed_controls: r.removed_controls,
    log_cursor: null,
    marked: false,
    event_cursor: r.event_cursor,
    joined_event_cursor: r.joined_event_cursor,
    wait_process: r.wait_process,
    submit_residue: r.submit_residue,
    harness: r.harness,
    launch_id: r.launch_id,
    parent_delivery: r.parent_delivery,
    pane_input_recovery: r.pane_input_recovery,
    // Agent turns never take a dead sender's lock over (SEND_LOCK_STALE instead).
    recovered_stale_lock: false,
    // What this parent must do now (lib/agent/delivery/guidance.ts).
    ...receiptGuidance(ctx.parent, r),
  };
}

export const ptySend = defineTool({
  name: "pty_send",
  title: "Type text into a terminal",
  description:
    "Type text into a session and press Enter (enter:false leaves it unsubmitted); returns at once with log_cursor, then pty_read wait:true gives the output. Single keys such as C-c: pty_key. Control characters are removed unless raw:true. At the session's own shell multi-line text runs as one script in the current shell (heredocs, cd, variables work; trailing newlines are the Enter); other programs (a REPL, ssh, a nested shell) get it exactly as given. At most 64 KiB; a refused send types nothing. On an agent session (agent_launch) the text is a turn: a running turn takes it as a steer (agent_steer), an idle agent starts a new one with a new event_cursor; the receipt's `next` says what to do for the answer.",
  input: z.object({
    session_id: SessionIdSchema,
    generation: GenerationSchema,
    text: z.string().describe("Text to type (UTF-8, at most 65536 bytes)"),
    enter: z.boolean().default(true).describe("Press Enter after the text (default true)"),
    raw: z.boolean().default(false).describe("Send the bytes exactly: no sanitising, no multi-line wrapping, no LF→CR"),
    image: z.array(z.string()).max(16).optional().describe(
      "Agent sessions: up to 16 absolute image paths for the turn",
    ),
    mark: z.union([z.boolean(), z.enum(["posix", "pwsh"])]).default(false).describe(
      'Append an end marker (nonce + exit status) so pty_read wait:true completes exactly. Only where a shell reads the line (bash, zsh, sh, pwsh; or ssh, docker, su showing a $ # PS> prompt: then "posix" or "pwsh" names its dialect); elsewhere MARK_UNAVAILABLE, nothing typed',
    ),
    remote: RemoteSchema.optional(),
  }).strict(),
  output: z.object({
    session_id: z.string().describe("The session typed into"),
    mode: z.enum(["script", "typed", "raw", "agent_dispatch", "agent_steer"]).describe(
      "script = multi-line text wrapped for the shell; typed = as is; raw = exact bytes; agent_dispatch = a new agent turn; agent_steer = joined the running turn",
    ),
    bytes: z.number().int().describe("UTF-8 bytes of the text after sanitising"),
    enter: z.boolean().describe("Whether Enter was pressed"),
    removed_controls: z.number().int().describe("Control characters removed by sanitising"),
    log_cursor: z.number().int().nullable().describe(
      "Output log cursor just before this send: pty_read from here to see its effect (null for agent turns)",
    ),
    marked: z.boolean().describe("An end marker was appended"),
    // The agent fields are present only on agent sends: a plain terminal's receipt carries none of them.
    event_cursor: z.number().int().nullable().optional().describe("Agent dispatch: the new turn's cursor"),
    joined_event_cursor: z.number().int().nullable().optional().describe(
      "Agent steer: the running turn the text joined",
    ),
    wait_process: WaitProcessSchema.optional(),
    submit_residue: z.boolean().nullable().optional().describe(
      "Agent: text was left in the composer after submitting",
    ),
    harness: z.string().nullable().optional().describe("Agent: the harness"),
    launch_id: z.string().nullable().optional().describe("Agent: the launch"),
    parent_delivery: ParentDeliverySchema.optional(),
    pane_input_recovery: z.array(z.string()).optional().describe(
      "Agent: dialogs aiterm dismissed before typing (e.g. grok_rate_limit_dialog_dismissed)",
    ),
    next: NextSchema.optional(),
    warning: WarningSchema,
    recovered_stale_lock: z.boolean().default(false).describe(
      "The send lock of an aiterm process that died mid-send was taken over: that earlier send may have been partly typed",
    ),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  handler: (input, deps, ctx) => send(input, deps, ctx),
  text: (out) => {
    if (out.mode === "agent_dispatch") {
      return `dispatched turn ${out.event_cursor} to ${out.session_id} (harness=${out.harness}); next: ${out.next}` +
        (out.warning ? `\nwarning: ${out.warning.code}: ${out.warning.message}` : "") +
        (out.submit_residue ? "\nwarning: text was left in the composer (do not resend)" : "") +
        `\n${JSON.stringify(out)}`;
    }
    if (out.mode === "agent_steer") {
      return `steered the running turn ${
        out.joined_event_cursor ?? "?"
      } of ${out.session_id}; its completion and answer boundary is unchanged`;
    }
    return `sent ${out.bytes} bytes to ${out.session_id}${
      out.enter ? " (+Enter)" : ""
    } [${out.mode}] cursor=${out.log_cursor}${out.recovered_stale_lock ? `\n${STALE_LOCK_NOTE}` : ""}`;
  },
});
