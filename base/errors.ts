/**
 * The one error class of aiterm and its closed set of codes. Every failure a caller can see is an
 * `AppError`; the MCP edge (lib/mcp/result.ts) turns it into `CODE: message` with `isError: true`.
 */

/** Every code a caller can receive. Add a code here before throwing it anywhere. */
export const ERROR_CODES = [
  "INVALID_ARGUMENT", // a tool argument or CLI flag is malformed; data.field names it
  "CONFIG_INVALID", // an AITERM_* environment knob has a value it does not accept (docs/config.md); data.variable; the program exits 2 before doing anything
  "TOOL_UNKNOWN", // tools/call named a tool this server does not have
  "TMUX_NOT_FOUND", // no tmux binary; data.hint holds the install command
  "TMUX_TOO_OLD", // tmux older than the minimum; data.version, data.minimum
  "TMUX_COMMAND_FAILED", // a tmux invocation failed; data.subcommand, data.exit_code
  "TMUX_TRANSPORT_LOST", // the tmux control client (the default transport) ended before answering a command that changes state; it may have run; data.subcommand
  "TMUX_SERVER_GONE", // aiterm's tmux server is not running (killed, crashed, reboot): the session's shell is gone, its log remains
  "STATE_ROOT_INVALID", // the state root is not a private directory we own
  "STATE_ROOT_UNSAFE", // a state directory others could write to (or a link, or another user's), or a tmux socket not ours; data.path; nothing ran, nothing was chmod-ed
  "STATE_WRITE_FAILED", // an atomic write under the state root failed
  "SESSION_NOT_FOUND", // no such session (and no log left to read)
  "LOG_UNAVAILABLE", // full, line_range or cursor on a live session aiterm did not open (no log); its screen is readable
  "SESSION_EXISTS", // an explicit session name is already taken
  "SESSION_ENDED", // the session's process has ended; only its log remains
  "SESSION_STALE", // a generation from a closed session was used after a new one opened under the same name
  "SHELL_NOT_FOUND", // the requested shell is not an executable
  "CWD_NOT_FOUND", // cwd is not an existing directory
  "CWD_UNUSABLE", // cwd exists but the session could not start in it (no permission to enter it, removed meanwhile, or the pane reported another directory); nothing was left open; data.field
  "ENV_VAR_UNSET", // env_vars named a variable the server does not have
  "INPUT_TOO_LARGE", // text over the 64 KiB limit; data.limit_bytes, data.size_bytes
  "RESULT_TOO_LARGE", // a tool result over the 1 MiB serialized limit (never sent as one line); data.tool, data.size_bytes, data.limit_bytes
  "MARK_UNAVAILABLE", // pty_send mark where the foreground is not a shell of a known dialect (python, vim, ssh without a prompt); nothing typed
  "KEY_UNKNOWN", // pty_key got a name that is not in the key table; data.valid, data.close_matches
  "KEY_UNSUPPORTED", // pty_key got a known key with modifiers no terminal has a code for (S-a, C-Enter); data.accepted_forms; nothing sent
  "SEND_LOCK_BUSY", // another live process is sending to the session; data.owner_pid
  "READ_IN_PROGRESS", // a read without wait while another call of this process waits on the session's output (that call returns it); nothing consumed
  "SEND_LOCK_STALE", // agent steps: a dead process left the send lock; pty_key/pty_send take it over
  "LOG_WRITER_RESTARTED", // a pty_read warning, never thrown: the session's log writer had stopped and was restarted; output in the gap was lost
  "LOG_WRITER_DOWN", // a pty_read warning, never thrown: the log writer is stopped and could not be restarted (disk full?)
  "LOG_SEGMENT_MISSING", // a pty_read warning, never thrown: part of the log was deleted under a live session
  "WAIT_TIMEOUT", // a bounded internal wait ran out (base/wait.ts); data.what, data.timeout_ms, data.last (the last observation)
  "REGEX_TIMEOUT", // a wait ended before until/until_regex had examined all new output; data.pattern_length, data.unexamined_chars, data.unread_bytes; nothing read
  "HARNESS_NOT_INSTALLED", // the harness CLI binary was not found; data.harness, data.env_override
  "HARNESS_NOT_SUPPORTED", // the harness adapter is not built in this version
  "MODEL_UNKNOWN", // the model is not in the harness's live catalog; data.available
  "MODEL_CATALOG_UNAVAILABLE", // the harness CLI could not list its models
  "EFFORT_UNSUPPORTED", // reasoning_effort is not accepted by the harness/model; data.accepted
  "FAST_MODE_NOT_SUPPORTED", // fast:true for a model without a fast tier
  "FAST_MODE_MODEL_CONFLICT", // a fast model id together with fast:false
  "IMAGE_INVALID", // an image is not an absolute existing png/jpg/jpeg/gif/webp file
  "THROUGHLINE_UNAVAILABLE", // throughline_* given but the Throughline CLI is not installed
  "LINEAGE_INVALID", // agent_launch: an inherited lineage variable (AITERM_DELEGATION_DEPTH) is malformed; data.variable; nothing started
  "LAUNCH_OPERATION_CONFLICT", // agent_launch: launch_operation_id replayed with a different request; data.fields, data.session_id; nothing launched
  "AGENT_SESSION_REQUIRED", // an agent-only operation on a session that has no agent
  "AGENT_BLOCKED", // the agent shows a blocking dialog; nothing was typed; data.reason
  "AGENT_NOT_READY", // the agent's TUI does not accept input; nothing was typed
  "AGENT_BUSY", // the agent is running a turn (agent_configure waits for idle); nothing was typed
  "CONFIGURE_UNSUPPORTED", // the harness has no in-place command for that change (e.g. effort); nothing was typed
  "CONFIGURE_REJECTED", // the CLI refused the change or does not offer it; data.vendor_message; pickers were left, nothing changed
  "CONFIGURE_UNCONFIRMED", // keys were typed but the CLI never confirmed the change; data.stage; the record is unchanged
  "AGENT_RESULT_PENDING", // the turn has not finished yet; do not resend
  "AGENT_RESULT_UNAVAILABLE", // no answer can be correlated to that turn (missing or ambiguous)
  "CLAUDE_PARENT_HOOK_UNAVAILABLE", // a Claude Code parent without aiterm's hooks (or without toolUseId): nothing sent to the child
  "CLAUDE_PARENT_AGENT_UNSUPPORTED", // a Claude Code sub-agent / --agent conversation cannot receive answers: nothing sent
  "CURSOR_PARENT_HOOK_UNAVAILABLE", // a Cursor parent without aiterm's hooks.json entries: nothing sent to the child
  "CHILD_CLAIMED", // the child is working on another parent's request; nothing typed
  "DELIVERY_PREVIOUS_PENDING", // the previous request's answer is not recorded yet; nothing typed
  "CODEX_APP_SERVER_UNAVAILABLE", // the parent's codex app-server could not start, initialize or read; nothing was queued; data.stderr_tail
  "CODEX_PARENT_ID_UNAVAILABLE", // a Codex parent's request carried no usable _meta.threadId: no automatic delivery; a receipt warning (use wait_process), not a failure
  "CODEX_PARENT_THREAD_NOT_FOUND", // the parent's Codex thread is unknown to its CODEX_HOME; nothing was queued; data.thread_id
  "CODEX_QUEUE_REFUSED", // thread/queue/add answered a JSON-RPC error; nothing was queued; data.rpc_code
  "CODEX_QUEUE_UNCONFIRMED", // thread/queue/add was written but no answer came (exit, disconnect, timeout); never resend
  "CODEX_HOOK_DELIVERY_UNCONFIRMED", // a Codex steer hook may have removed the queued answer but its output was not confirmed; body kept, never resent
  "AGENT_TURN_ERROR", // the harness recorded an API error for that turn; there is no result
  "AGENT_STEER_NOT_TAKEN", // a steer's text stayed in the composer or queue (or was not seen queued); data.where, data.joined_event_cursor
  "GROK_SANDBOX_STARTUP_FAILED", // Grok refused to start its sandbox (write_scope read-only); data.cause; nothing sent
  "GROK_RATE_LIMIT_RECOVERY_BLOCKED", // Grok's usage-limit card is up but the latest turn did not end in error; nothing sent
  "GROK_RATE_LIMIT_RECOVERY_FAILED", // the usage-limit card was dismissed once but input is not ready; nothing sent
  "REMOTE_CONNECT_FAILED", // ssh could not reach or log in to the remote host; data.host, data.ssh_error
  "REMOTE_PASSPHRASE_ENV_MISSING", // remote.passphrase_env names a variable the server does not have
  "REMOTE_AITERM_NOT_FOUND", // the remote host has no aiterm-mcp on its login PATH
  "REMOTE_PROTOCOL_FAILED", // the relay to the remote aiterm-mcp broke (probe, MCP handshake or call)
  "REMOTE_WAIT_FAILED", // the remote aiterm-wait itself failed (not ssh); final, not retried
  "REMOTE_ANSWER_UNAVAILABLE", // the remote transcript gave no answer for exactly that turn; nothing delivered
  "REMOTE_CONTROL_DIR_UNSAFE", // the ssh control directory is a link, another user's, or not mode 0700; data.path; nothing ran
  "INTERNAL", // a bug: anything that is not one of the codes above
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = typeof ERROR_CODES[number];

/** Options for {@link AppError}. */
export interface AppErrorOptions {
  data?: Record<string, unknown>;
  cause?: unknown;
  suggestion?: string;
}

/** An expected, typed failure. `message` is a sentence without the code and without a final period. */
export class AppError extends Error {
  override readonly name = "AppError";
  readonly code: ErrorCode;
  readonly data: Record<string, unknown> | undefined;
  readonly suggestion: string | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.data = options.data;
    this.suggestion = options.suggestion;
  }

  /** `CODE: message (suggestion)`, the form every caller sees. */
  toText(): string {
    return `${this.code}: ${this.message}${this.suggestion ? ` (${this.suggestion})` : ""}`;
  }
}

/** Wraps anything thrown into an AppError; non-AppErrors become INTERNAL. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new AppError("INTERNAL", `Unexpected failure: ${detail}`, { cause: err });
}
