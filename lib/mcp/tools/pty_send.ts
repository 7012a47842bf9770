import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { readAgentRecord } from "../../agent/mod.ts";
import { AppError, toAppError } from "../../../base/errors.ts";
import { formatRead, INPUT_LIMIT_BYTES, type SendResult } from "../../terminal/mod.ts";
import { knob } from "../../../base/config.ts";
import { type CallContext, defineTool, GenerationSchema, SessionIdSchema, type ToolDeps } from "../tool.ts";
import { NextSchema, ParentDeliverySchema, WaitProcessSchema, WarningSchema } from "./agent_schemas.ts";
import { receiptGuidance, sendToAgent } from "../../agent/delivery/mod.ts";
import { nextCall, NextCallSchema, planWait, remainingS, textBudget, VIA } from "./terminal_wait.ts";

interface SendArgs {
  session_id: string;
  text: string;
  enter: boolean;
  raw: boolean;
  mark: boolean | "posix" | "pwsh";
  image?: string[] | undefined;
  generation?: string | null | undefined;
  wait?: boolean | undefined;
  timeout?: number | null | undefined;
}

/** The note a result carries when it took over a dead sender's lock (pty_key says the same). */
export const STALE_LOCK_NOTE =
  "warning: an earlier send to this session was cut off (its aiterm process died) and may have been partly typed; " +
  "look at the screen (pty_read screen:true) before relying on what runs there";

/**
 * A waited send's receipt without the fields at their defaults (ADR 0039): Enter pressed, no control character
 * removed, no marker, no dead sender's lock taken over. A field that says otherwise stays; wait:false keeps them all.
 */
type LeanReceipt =
  & Omit<SendResult, "enter" | "removed_controls" | "marked" | "recovered_stale_lock">
  & Partial<Pick<SendResult, "enter" | "removed_controls" | "marked" | "recovered_stale_lock">>;

function leanReceipt(receipt: SendResult): LeanReceipt {
  const defaults: Partial<Record<keyof SendResult, unknown>> = {
    enter: true,
    removed_controls: 0,
    marked: false,
    recovered_stale_lock: false,
  };
  return Object.fromEntries(
    Object.entries(receipt).filter(([k, v]) => !(k in defaults) || defaults[k as keyof SendResult] !== v),
  ) as LeanReceipt;
}

/**
 * A terminal send, then (by default, when Enter is pressed) the wait and read pty_read wait:true would make, in the
 * same call: the verdict first, the receipt, the output last. Without a wait: the receipt alone.
 */
async function terminalSend<R extends SendResult | null>(
  input: SendArgs,
  deps: ToolDeps,
  ctx: CallContext,
  typed: () => Promise<R>,
) {
  const waits = input.wait ?? (input.enter && deps.sendWaitS > 0);
  const plan = waits ? planWait(ctx, input.timeout, deps.sendWaitS > 0 ? deps.sendWaitS : null) : null;
  const receipt = await typed();
  // Nothing typed (a send only for pty_open's shells found another kind of session): the caller looks again.
  if (!receipt || !plan) return receipt;
  // The text is typed: a wait that fails now must not read as "nothing typed". The receipt says what happened.
  const r = await deps.terminal.read(
    {
      session_id: input.session_id,
      wait: true,
      // The allowance left after typing, unless the call asked for less.
      timeout: Math.min(plan.timeoutS, remainingS(ctx)),
      budget: textBudget(ctx),
    },
    {
      progress: (ms, total) => ctx.progress(ms, total, "waiting for the command to finish"),
      signal: ctx.signal,
      settle: ctx.settle,
    },
  ).catch((err) => {
    if (ctx.signal.aborted) throw err;
    return toAppError(err);
  });
  if (r instanceof AppError) {
    return { ...receipt, hint: `typed; the wait after it failed: ${r.toText()}; read with pty_read` };
  }
  const verdict = Object.fromEntries(
    Object.entries({
      is_complete: r.is_complete,
      via: r.via,
      exit_status: r.exit_status,
      prompt: r.prompt,
      hint: r.hint,
      running_ms: r.running_ms,
      next_call: nextCall(r, plan),
      has_more: r.has_more || null,
      next_cursor: r.next_cursor,
      truncated: r.truncated || null,
      warnings: r.warnings.length ? r.warnings : null,
      state: r.state === "ended" ? r.state : null,
      waited_ms: r.waited_ms,
      timeout_capped: plan.capped,
    }).filter(([, v]) => v !== null),
  );
  return { ...leanReceipt(receipt), ...verdict, text: r.text };
}

async function send(input: SendArgs, deps: ToolDeps, ctx: CallContext) {
  await deps.terminal.checkGeneration(input.session_id, input.generation);
  // A session this process already sent to as pty_open's is never an agent's: no look for an agent record (the
  // terminal checks the pane is still that session's, and sends nothing when it is not: then look as below).
  if (!input.image?.length && deps.terminal.remembersShell(input.session_id)) {
    const r = await terminalSend(input, deps, ctx, () => deps.terminal.sendIfShell(input));
    if (r) return r;
  }
  const rec = await readAgentRecord(deps.terminal.sessionDir(input.session_id)).catch(() => null);
  if (!rec) {
    if (input.image?.length) {
      throw new AppError("INVALID_ARGUMENT", "Cannot attach images to a plain terminal send", {
        data: { field: "image" },
      });
    }
    return await terminalSend(input, deps, ctx, () => deps.terminal.send(input));
  }
  if (input.wait === true || input.timeout != null) {
    throw new AppError(
      "INVALID_ARGUMENT",
      "Cannot wait on an agent session: a turn is dispatched without blocking",
      {
        suggestion:
          "nothing was typed; send again without wait and timeout; the receipt's next says how the answer comes",
        data: { field: input.wait === true ? "wait" : "timeout" },
      },
    );
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

const DESCRIPTION = "Type text into a session and press Enter. On a terminal session it then waits for what it typed " +
  `(default ${knob("sendWaitS").default} s, at most what your client allows) and returns the verdict and output, as ` +
  "pty_read wait:true does; a REPL, prompt or full-screen program returns once it waits for input. Still running " +
  "when the wait ends: make the returned next_call, or stop it with pty_key. At the session's own shell multi-line " +
  `text runs as one script (heredocs, cd, variables work). Over ${INPUT_LIMIT_BYTES / 1024} KiB is INPUT_TOO_LARGE; ` +
  "a refused send types nothing. To an agent session the text is a new turn, or joins the running one, and the call " +
  "returns at once: its `next` says how the answer reaches you.";

export const ptySend = defineTool({
  name: "pty_send",
  title: "Type text into a terminal",
  description: DESCRIPTION,
  input: z.object({
    session_id: SessionIdSchema,
    generation: GenerationSchema,
    text: z.string().describe("What to type; control characters are removed unless raw"),
    enter: z.boolean().default(true).describe("false: type without submitting (and without waiting)"),
    raw: z.boolean().default(false).describe("Exact bytes: controls kept, no script wrapping, no LF→CR"),
    image: z.array(z.string()).max(16).optional().describe("Agent sessions: up to 16 absolute image paths"),
    mark: z.union([z.boolean(), z.enum(["posix", "pwsh"])]).default(false).describe(
      'End marker (nonce + exit status) for an exact verdict; needs a shell reading the line ("posix"/"pwsh" names one behind ssh, docker, su), else MARK_UNAVAILABLE',
    ),
    wait: z.boolean().optional().describe("Terminal sessions: false returns the receipt at once"),
    timeout: z.number().min(0).nullish().describe("Seconds to wait for the command"),
    remote: RemoteSchema.optional(),
  }).strict(),
  // The verdict and cursors first, the output last: a client that cuts a large result keeps what to do next.
  output: z.object({
    session_id: z.string().describe("The session typed into"),
    is_complete: z.boolean().optional().describe("Waited: whether the command finished"),
    via: z.enum(VIA).optional().describe("Waited: how completion was decided (as pty_read)"),
    exit_status: z.number().int().optional().describe("Waited: the exit status, when the evidence carries one"),
    prompt: z.enum(["continuation", "read", "password"]).optional().describe("Waited, via input_prompt: which prompt"),
    hint: z.string().optional().describe("Waited, not complete: what to do"),
    running_ms: z.number().int().optional().describe("Waited, not complete: how long the command has run"),
    next_call: NextCallSchema.optional(),
    has_more: z.boolean().optional().describe("Waited: more output than fits; pty_read cursor=next_cursor"),
    next_cursor: z.number().int().optional().describe("Waited: log offset after the text returned"),
    truncated: z.boolean().optional().describe("Waited: part of the output is not in the log any more"),
    warnings: z.array(z.string()).optional().describe("Waited: notes about the log (as pty_read)"),
    state: z.literal("ended").optional().describe("Waited: the session's shell exited"),
    waited_ms: z.number().int().optional().describe("Waited: how long"),
    timeout_capped: z.string().optional().describe("The asked timeout was lowered to fit your client: why"),
    mode: z.enum(["script", "typed", "raw", "agent_dispatch", "agent_steer"]).describe(
      "script = multi-line text wrapped for the shell; typed = as is; raw = exact bytes; agent_dispatch = a new agent turn; agent_steer = joined the running turn",
    ),
    bytes: z.number().int().describe("UTF-8 bytes of the text after sanitising"),
    enter: z.boolean().optional().describe("Whether Enter was pressed (absent: it was)"),
    removed_controls: z.number().int().optional().describe("Control characters removed by sanitising (absent: none)"),
    log_cursor: z.number().int().nullable().describe(
      "Output log cursor just before this send: pty_read from here to see its effect (null for agent turns)",
    ),
    marked: z.boolean().optional().describe("An end marker was appended (absent: none)"),
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
    recovered_stale_lock: z.boolean().optional().describe(
      "The send lock of an aiterm process that died mid-send was taken over: that earlier send may have been partly typed (absent: no)",
    ),
    ...REMOTE_RESULT_FIELDS,
    text: z.string().optional().describe("Waited: the output (reduced, as pty_read)"),
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
    const receipt = `sent ${out.bytes} bytes to ${out.session_id}${
      out.enter !== false ? " (+Enter)" : ""
    } [${out.mode}] cursor=${out.log_cursor}${out.recovered_stale_lock ? `\n${STALE_LOCK_NOTE}` : ""}`;
    if (out.via === undefined) return receipt;
    const read = formatRead({
      session_id: out.session_id,
      state: out.state ?? "running",
      view: "log",
      text: out.text ?? "",
      meta: null,
      reducer: null,
      cursor: null,
      next_cursor: out.next_cursor ?? null,
      end: null,
      has_more: out.has_more ?? false,
      next_line: null,
      truncated: out.truncated ?? false,
      is_complete: out.is_complete ?? null,
      via: out.via,
      exit_status: out.exit_status ?? null,
      waited_ms: out.waited_ms ?? null,
      timeout_used: null,
      hint: out.hint ?? null,
      prompt: out.prompt ?? null,
      warnings: out.warnings ?? [],
      running_ms: out.running_ms ?? null,
    });
    return `${receipt}\n${read}${out.next_call ? `\nnext: ${JSON.stringify(out.next_call)}` : ""}`;
  },
});
