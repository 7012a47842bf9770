import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { defineTool, SessionIdSchema } from "../tool.ts";

export const ptyClose = defineTool({
  name: "pty_close",
  title: "Close a terminal",
  description:
    "Close a session: end its processes and remove its files (log, cursor, lock). Safe to repeat: a second call says already_closed.",
  input: z.object({
    session_id: SessionIdSchema,
    generation: z.string().regex(/^[0-9a-f]{12}$/).nullish().describe(
      "The session generation from its receipt; a session closed and reopened under the same name is then SESSION_STALE",
    ),
    remote: RemoteSchema.optional(),
  }).strict(),
  output: z.object({
    session_id: z.string().describe("The session"),
    outcome: z.enum(["closed", "already_closed"]).describe(
      "closed = this call closed it; already_closed = nothing was left",
    ),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    await deps.terminal.checkGeneration(input.session_id, input.generation);
    return await deps.terminal.close(input.session_id);
  },
  text: (out) => `${out.outcome} ${out.session_id}`,
});
