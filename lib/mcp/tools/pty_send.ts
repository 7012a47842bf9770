import { z } from "zod";
import { defineTool, SessionIdSchema } from "../tool.ts";

export const ptySend = defineTool({
  name: "pty_send",
  title: "Type text into a terminal",
  description:
    "Type text into a session, then Enter (enter=false to leave it unsubmitted). Control sequences and control characters are removed unless raw=true. Multi-line text to a POSIX shell arrives as one line that runs the whole script in the current shell (heredocs, variables and cd work); other programs get it as typed. At most 64 KiB of UTF-8; nothing is typed when a send is refused. Keys such as C-c go through pty_key.",
  input: z.object({
    session_id: SessionIdSchema,
    text: z.string().describe("Text to type (UTF-8, at most 65536 bytes)"),
    enter: z.boolean().default(true).describe("Press Enter after the text"),
    raw: z.boolean().default(false).describe("Send the bytes exactly: no sanitising, no multi-line wrapping, no LF→CR"),
    mark: z.union([z.boolean(), z.enum(["posix", "pwsh"])]).default(false).describe(
      'Append an end marker with a per-send nonce and the exit status, so pty_read wait:true completes exactly (also inside ssh/docker); "posix" or "pwsh" names a nested shell\'s dialect',
    ),
  }).strict(),
  output: z.object({
    session_id: z.string().describe("The session typed into"),
    mode: z.enum(["script", "typed", "raw"]).describe(
      "script = multi-line text wrapped for the shell; typed = as is; raw = exact bytes",
    ),
    bytes: z.number().int().describe("UTF-8 bytes of the text after sanitising"),
    enter: z.boolean().describe("Whether Enter was pressed"),
    removed_controls: z.number().int().describe("Control characters removed by sanitising"),
    log_cursor: z.number().int().describe(
      "Output log cursor just before this send: pty_read from here to see its effect",
    ),
    marked: z.boolean().describe("An end marker was appended"),
  }).strict(),
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  handler: (input, deps) => deps.terminal.send(input),
  text: (out) =>
    `sent ${out.bytes} bytes to ${out.session_id}${
      out.enter ? " (+Enter)" : ""
    } [${out.mode}] cursor=${out.log_cursor}`,
});
