import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { defineTool } from "../tool.ts";

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");

export const ptyOpen = defineTool({
  name: "pty_open",
  title: "Open a persistent terminal",
  description:
    "Open a persistent shell session in tmux on aiterm's private socket; it outlives this server and your client. Returns session_id, generation (pass it back to guard against a reopened id) and attach_command (a human can watch or take over). Then run commands with pty_send, read with pty_read, and pty_close when done. For a coding-agent CLI use agent_launch instead. remote (spelt out here, the same object on every session tool) runs the call on another host's aiterm-mcp; nothing of it is stored.",
  input: z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "must match ^[A-Za-z0-9_-]{1,64}$").nullish()
      .describe(
        "Session id: letters, digits, _ or - (default: t1, t2, …); a taken one is SESSION_EXISTS",
      ),
    shell: z.string().min(1).nullish().describe(
      "Program name or absolute path (default: bash, else sh); not a program: SHELL_NOT_FOUND",
    ),
    cwd: z.string().min(1).nullish().describe("Absolute directory (default: the server's cwd); else CWD_NOT_FOUND"),
    env_vars: z.array(EnvName).max(64).optional()
      .describe(
        "Server environment variables to copy in, by name (values are never returned); one the server lacks is skipped and listed in env_vars_skipped",
      ),
    remote: RemoteSchema.optional(),
  }).strict(),
  output: z.object({
    session_id: z.string().describe("The new session's id"),
    shell: z.string().describe("The shell as requested or defaulted"),
    dialect: z.enum(["posix", "pwsh"]).nullable().describe(
      "How multi-line text is wrapped for this shell; null = typed as is",
    ),
    cwd: z.string().describe("The working directory the shell started in"),
    env_vars: z.array(z.string()).describe(
      "Variable names actually copied into the session (AITERM_SESSION_ID is always set, not listed)",
    ),
    // default: a remote aiterm from before this field relays receipts without it.
    env_vars_skipped: z.array(z.string()).default([]).describe(
      "Names in env_vars that the server's environment does not have: skipped (not set in the session), not an error",
    ),
    attach_command: z.string().describe("Run this in a terminal to attach and watch (detach with C-b d)"),
    log_cursor: z.number().int().describe("Byte cursor of the session's output log when the receipt was made"),
    generation: z.string().describe("This generation of the session id (pass it back to detect a replaced session)"),
    shell_ready: z.boolean().nullable().describe(
      "The shell printed its first prompt (bash/zsh with integration); null = cannot tell",
    ),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: (input, deps) => deps.terminal.open(input),
  text: (out) =>
    `session_id: ${out.session_id}\nattach: ${out.attach_command}\n${
      out.env_vars_skipped.length
        ? `note: not set in the server, so not set in the session: ${out.env_vars_skipped.join(", ")}\n`
        : ""
    }${JSON.stringify(out)}`,
});
