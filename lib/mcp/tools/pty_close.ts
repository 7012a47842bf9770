import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { defineTool, GenerationSchema, SessionIdSchema } from "../tool.ts";

export const ptyClose = defineTool({
  name: "pty_close",
  title: "Close a terminal",
  description:
    "Close a session for good: end its processes (an agent's CLI too) and delete its log and files. Until then an ended session's log stays readable with pty_read. Idempotent: closing again, with or without generation, says already_closed; a generation whose id now names a newer session is SESSION_STALE and closes nothing.",
  input: z.object({
    session_id: SessionIdSchema,
    generation: GenerationSchema,
    remote: RemoteSchema.optional(),
  }).strict(),
  output: z.object({
    session_id: z.string().describe("The session"),
    outcome: z.enum(["closed", "already_closed"]).describe(
      "closed = this call closed it; already_closed = nothing was left",
    ),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: true },
  handler: async (input, deps) => {
    if (input.generation != null) {
      // Idempotent with a generation too: that generation closed and nothing under the id now (no record,
      // no tmux session) is the same answer as a second close without one. A session that replaced it is
      // still SESSION_STALE (never closed on the strength of an old receipt).
      const { meta, live } = await deps.terminal.describe(input.session_id);
      if (meta || live) await deps.terminal.checkGeneration(input.session_id, input.generation);
    }
    return await deps.terminal.close(input.session_id);
  },
  text: (out) => `${out.outcome} ${out.session_id}`,
});
