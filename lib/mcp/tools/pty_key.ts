import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { KEY_SYNTAX } from "../../terminal/mod.ts";
import { defineTool, GenerationSchema, SessionIdSchema } from "../tool.ts";
import { STALE_LOCK_NOTE } from "./pty_send.ts";

/** The key syntax is stated once, here (the `key` field points to it). */
const DESCRIPTION =
  "Press one key in a session (interrupt, answer a prompt, move in a full-screen program); it returns at once, " +
  "pty_read shows the effect. Text: pty_send; an agent's approval dialog: agent_approval. " +
  `${KEY_SYNTAX.charAt(0).toUpperCase()}${KEY_SYNTAX.slice(1)}; aliases ctrl-c, ^C, alt-x, esc work. Unknown names ` +
  "(KEY_UNKNOWN) and combinations no terminal can send (KEY_UNSUPPORTED) are refused, never typed.";

export const ptyKey = defineTool({
  name: "pty_key",
  title: "Press a key in a terminal",
  description: DESCRIPTION,
  input: z.object({
    session_id: SessionIdSchema,
    generation: GenerationSchema,
    key: z.string().min(1).max(32).describe("One key name or alias, as the description gives them"),
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
