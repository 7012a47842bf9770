import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { dispatchTurn, readAgentRecord, waitProcessFor } from "../../agent/mod.ts";
import { AppError } from "../../errors.ts";
import { assertInputSize, sanitizeInput } from "../../terminal/mod.ts";
import { type CallContext, defineTool, SessionIdSchema, type ToolDeps } from "../tool.ts";
import { ParentDeliverySchema, WaitProcessSchema } from "./agent_schemas.ts";
import { withParentDelivery } from "../../agent/delivery/mod.ts";

interface SendArgs {
  session_id: string;
  text: string;
  enter: boolean;
  raw: boolean;
  mark: boolean | "posix" | "pwsh";
  image?: string[] | undefined;
  generation?: string | null | undefined;
}

const NULL_AGENT = {
  event_cursor: null,
  joined_event_cursor: null,
  wait_process: null,
  submit_residue: null,
  harness: null,
  launch_id: null,
  parent_delivery: null,
  pane_input_recovery: [],
};

/** The note a result carries when it took over a dead sender's lock (pty_key says the same). */
export const STALE_LOCK_NOTE =
  "warning: an earlier send to this session was cut off (its aiterm process died) and may have been partly typed; " +
  "look at the screen (pty_read screen:true) before relying on what runs there";

async function send(input: SendArgs, deps: ToolDeps, ctx: CallContext) {
  await deps.terminal.checkGeneration(input.session_id, input.generation);
  const rec = await readAgentRecord(deps.terminal.sessionDir(input.session_id)).catch(() => null);
  if (!rec) {
    if (input.image?.length) {
      throw new AppError("INVALID_ARGUMENT", "Cannot attach images to a plain terminal send", {
        data: { field: "image" },
      });
    }
    return { ...(await deps.terminal.send(input)), ...NULL_AGENT };
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
  const { text, removed } = sanitizeInput(input.text);
  const size = assertInputSize(text);
  if (text.trim() === "") {
    throw new AppError("INVALID_ARGUMENT", "Cannot dispatch an empty turn", { data: { field: "text" } });
  }
  const d = await withParentDelivery(
    deps.delivery,
    ctx.parent,
    (hooks) =>
      dispatchTurn({ terminal: deps.terminal, env: deps.env, defaultCwd: deps.cwd }, input.session_id, text, {
        images: input.image ?? [],
        ...hooks,
      }),
  );
  const r = d.value;
  return {
    session_id: r.session_id,
    mode: r.mode,
    bytes: size,
    enter: true,
    removed_controls: removed,
    log_cursor: null,
    marked: false,
    event_cursor: r.event_cursor,
    joined_event_cursor: r.joined_event_cursor,
    wait_process: d.wait_process !== undefined
      ? d.wait_process
      : r.event_cursor !== null
      ? waitProcessFor(r.session_id, r.event_cursor, r.generation)
      : null,
    submit_residue: r.submit_residue,
    harness: r.harness,
    launch_id: r.launch_id,
    parent_delivery: d.parent_delivery,
    pane_input_recovery: r.pane_input_recovery,
    // Agent turns never take a dead sender's lock over (SEND_LOCK_STALE instead).
    recovered_stale_lock: false,
  };
}

export const ptySend = defineTool({
  name: "pty_send",
  title: "Type text into a terminal",
  description:
    "Type text into a session, then Enter (enter=false to leave it unsubmitted). Control sequences and control characters are removed unless raw=true. At the session's own shell, multi-line text arrives as one line that runs the whole script in the current shell (heredocs, variables and cd work) and trailing newlines are dropped (Enter submits); any other program (a REPL, a nested shell, ssh) gets the text exactly as given, blank lines included, then Enter. At most 64 KiB of UTF-8; nothing is typed when a send is refused. Keys such as C-c go through pty_key.",
  input: z.object({
    session_id: SessionIdSchema,
    generation: z.string().regex(/^[0-9a-f]{12}$/).nullish().describe(
      "The session generation from its receipt; a session closed and reopened under the same name is then SESSION_STALE",
    ),
    text: z.string().describe("Text to type (UTF-8, at most 65536 bytes)"),
    enter: z.boolean().default(true).describe("Press Enter after the text"),
    raw: z.boolean().default(false).describe("Send the bytes exactly: no sanitising, no multi-line wrapping, no LF→CR"),
    image: z.array(z.string()).max(16).optional().describe(
      "Agent sessions: absolute image paths referenced in the turn",
    ),
    mark: z.union([z.boolean(), z.enum(["posix", "pwsh"])]).default(false).describe(
      'Append an end marker with a per-send nonce and the exit status, so pty_read wait:true completes exactly. Only where a shell reads the line: the foreground is bash/zsh/sh/pwsh…, or ssh/docker/su/sudo showing a $/#/PS> prompt; "posix" or "pwsh" names the dialect inside such a prompt host. Into python, node, vim… it is MARK_UNAVAILABLE (nothing typed)',
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
    event_cursor: z.number().int().nullable().describe("Agent dispatch: the new turn's cursor"),
    joined_event_cursor: z.number().int().nullable().describe("Agent steer: the running turn the text joined"),
    wait_process: WaitProcessSchema,
    submit_residue: z.boolean().nullable().describe("Agent: text was left in the composer after submitting"),
    harness: z.string().nullable().describe("Agent: the harness"),
    launch_id: z.string().nullable().describe("Agent: the launch"),
    parent_delivery: ParentDeliverySchema,
    pane_input_recovery: z.array(z.string()).describe(
      "Agent: dialogs aiterm dismissed before typing (e.g. grok_rate_limit_dialog_dismissed)",
    ),
    recovered_stale_lock: z.boolean().default(false).describe(
      "The send lock of an aiterm process that died mid-send was taken over: that earlier send may have been partly typed",
    ),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  handler: (input, deps, ctx) => send(input, deps, ctx),
  text: (out) => {
    if (out.mode === "agent_dispatch") {
      const how = out.parent_delivery && !out.wait_process
        ? `the answer comes to you by itself (parent_delivery ${out.parent_delivery.delivery_id}); do not poll`
        : `do not wait here: start wait_process in the background, then pty_read agent_transcript:true cursor:${out.event_cursor}`;
      return `dispatched turn ${out.event_cursor} to ${out.session_id} (harness=${out.harness}); ${how}` +
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
