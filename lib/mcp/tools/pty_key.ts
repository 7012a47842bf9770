import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { KEY_SYNTAX } from "../../terminal/mod.ts";
import { defineTool, SessionIdSchema } from "../tool.ts";
import { STALE_LOCK_NOTE } from "./pty_send.ts";

export const ptyKey = defineTool({
  name: "pty_key",
  title: "Press a key in a terminal",
  description:
    `Press one key in a session: ${KEY_SYNTAX}. Aliases such as ctrl-c, ^C, alt-x, esc, enter, backspace work. An unknown name (KEY_UNKNOWN) or a combination no terminal can send (KEY_UNSUPPORTED) is refused and never typed as text.`,
  input: z.object({
    session_id: SessionIdSchema,
    generation: z.string().regex(/^[0-9a-f]{12}$/).nullish().describe(
      "The session generation from its receipt; a session closed and reopened under the same name is then SESSION_STALE",
    ),
    key: z.string().min(1).max(32).describe("Key name or alias, e.g. C-c, Enter, Escape, Up, Tab"),
    remote: RemoteSchema.optional(),
  }).strict(),
  output: z.object({
    session_id: z.string().describe("The session"),
    key: z.string().describe("The canonical name of the key pressed"),
    recovered_stale_lock: z.boolean().default(false).describe(
      "The send lock of an aiterm process that died mid-send was taken over: that earlier send may have been partly typed",
    ),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) => {
    await deps.terminal.checkGeneration(input.session_id, input.generation);
    return await deps.terminal.key(input.session_id, input.key);
  },
  text: (out) => `pressed ${out.key} in ${out.session_id}${out.recovered_stale_lock ? `\n${STALE_LOCK_NOTE}` : ""}`,
});
