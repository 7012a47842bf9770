/** Schemas shared by agent_launch, its deprecated aliases and pty_send's agent receipts. */
import { z } from "zod";
import { REMOTE_RESULT_FIELDS } from "../../remote/mod.ts";
import { HARNESS_IDS } from "../../../harnesses/mod.ts";
import { PARENT_KINDS, RECEIPT_WARNING_CODES } from "../../../harnesses/clients/mod.ts";

export const HarnessSchema = z.enum(HARNESS_IDS).describe(
  "The agent CLI (it owns the loop, auth and transcript); the model is a separate choice",
);

export const WaitProcessSchema = z.object({
  executable: z.string().describe("Program to start in the background (do not wait on it in your turn)"),
  args: z.array(z.string()).describe("Its arguments, as given"),
  windows_start_process_argument_list: z.string().nullable().describe(
    "PowerShell 7 Start-Process -ArgumentList as one string (Windows only)",
  ),
}).strict().nullable().describe(
  "Start this to be told when the turn ends: exit 0 done, 3 timeout (600 s), 4 closed, 5 blocked (stuck on a dialog or stopped; see pty_observe/agent_approval, then start it again), 6 not found, 7 error (no result)",
);

/** `next`: what this parent must do now (the one route for its client; see lib/agent/delivery/guidance.ts). */
export const NextSchema = z.string().describe(
  "What you must do now, for your client: nothing (the answer comes by itself), or start wait_process in the background",
);

/** `warning`: something the parent should know that did not fail the call. */
export const WarningSchema = z.object({
  code: z.enum(RECEIPT_WARNING_CODES).describe("Warning code"),
  message: z.string().describe("What it means and what to do"),
}).strict().optional().describe(
  "Present only when there is something to know, e.g. no automatic delivery for this request",
);

/** `parent_delivery` in agent_launch and pty_send receipts. */
export const ParentDeliverySchema = z.object({
  delivery_id: z.string().describe("This delivery (hooks and receivers find it by this id)"),
  parent: z.enum(PARENT_KINDS).describe("The parent kind the answer goes to"),
  state: z.enum(["waiting", "ready", "sending", "submitted", "failed", "unknown"]).describe(
    "waiting = child turn running; ready = answer saved; submitted = handed to the parent's queue/hook (not read yet); failed/unknown = body kept, never resent",
  ),
  child_outcome: z.enum(["done", "closed", "rate_limited", "error"]).nullable().describe("How the child's turn ended"),
  child_turn_id: z.string().nullable().describe("The harness's id of the answered turn"),
  queued_submission_id: z.string().nullable().describe("Codex: the official queue entry"),
  error_code: z.string().nullable().describe("Why the delivery failed or is unknown"),
}).strict().nullable().describe(
  "Automatic delivery of the child's answer to you (Codex, Claude Code, Cursor parents); null = use wait_process",
);

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");

/** agent_launch input fields (harness added by agent_launch; fixed by the aliases). */
export const launchFields = {
  model: z.string().nullish().describe(
    "Model id from agent_models (default: the CLI's); one not in its live catalog is MODEL_UNKNOWN, never replaced",
  ),
  reasoning_effort: z.string().min(1).nullish().describe(
    "Effort in the harness's terms (e.g. low, high); one it does not offer is EFFORT_UNSUPPORTED",
  ),
  fast: z.boolean().nullish().describe(
    "true: the harness's own fast mode, confirmed on its screen (else FAST_MODE_NOT_SUPPORTED); false with a fast model id: FAST_MODE_MODEL_CONFLICT",
  ),
  prompt: z.string().nullish().describe("First task, sent once the CLI accepts input"),
  image: z.array(z.string()).max(16).optional().describe(
    "Up to 16 absolute png/jpg/jpeg/gif/webp paths for prompt",
  ),
  cwd: z.string().nullish().describe("Absolute working directory (default: the server's cwd)"),
  env_vars: z.array(EnvName).max(64).optional().describe(
    "Server environment variables to copy in, by name",
  ),
  write_scope: z.string().min(1).nullish().describe(
    '"read-only": the harness\'s own read-only mode where it has one; other values are only declared',
  ),
  session_name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).nullish().describe("Session id (default: automatic)"),
  trust_project: z.boolean().optional().describe(
    "Answer the workspace-trust, hooks and MCP-consent dialogs for cwd at start-up",
  ),
  throughline_source_session: z.string().min(1).nullish().describe(
    "Throughline session to read context from (needs Throughline)",
  ),
  throughline_supplement_file: z.string().min(1).nullish().describe("Throughline supplement JSON path, passed as is"),
  launch_operation_id: z.string().nullish().describe(
    "sha256:<hex> (claude-code, session_name, no prompt): the same launch again returns the first receipt",
  ),
};

export const LaunchOutputSchema = z.object({
  schema: z.literal("aiterm.agent-launch-result.v1").describe("Result schema id"),
  harness: z.enum(HARNESS_IDS).describe("The harness launched"),
  provider: z.string().describe("Legacy vendor name (claude, codex, grok, cursor)"),
  session_id: z.string().describe("The agent's session id (pty_send dispatches turns to it)"),
  startup: z.object({
    status: z.enum(["ready", "not_checked", "blocked"]).describe(
      "ready = accepts input; blocked = see reason; nothing was typed",
    ),
    reason: z.string().describe("Why"),
  }).strict(),
  initial_prompt: z.object({
    status: z.enum(["not_requested", "not_sent", "submitted_unconfirmed", "started"]).describe(
      "What happened to prompt",
    ),
    reason: z.string().describe("Why"),
    turn_started: z.boolean().nullable().describe("Evidence that the turn began"),
  }).strict(),
  event_cursor: z.number().int().nullable().describe(
    "The first turn's cursor (pty_read agent_transcript cursor, aiterm-wait --cursor)",
  ),
  wait_process: WaitProcessSchema,
  wait_command: z.string().nullable().describe("Human-readable form of wait_process (display only)"),
  submit_residue: z.boolean().nullable().describe("Text was left in the composer after submitting"),
  managed_completion: z.literal(true).describe("aiterm correlates completion from the harness's own records"),
  fast: z.boolean().describe("true only when fast mode is confirmed (from the harness's screen, or a fast model id)"),
  fast_error: z.object({ code: z.string().describe("Code"), message: z.string().describe("Why") }).strict().nullable()
    .describe("FAST_MODE_UNCONFIRMED: fast:true was asked for but not confirmed, and why"),
  write_scope: z.string().optional().describe("write_scope as given"),
  write_scope_enforcement: z.enum(["enforced_read_only", "declaration_only_unsupported"]).optional().describe(
    "How write_scope is enforced",
  ),
  attach_command: z.string().describe("Run this to watch the agent"),
  parent_delivery: ParentDeliverySchema,
  next: NextSchema,
  warning: WarningSchema,
  generation: z.string().describe("This generation of the session id (pass it back to detect a replaced session)"),
  ...REMOTE_RESULT_FIELDS,
}).strict();
