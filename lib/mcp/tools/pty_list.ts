import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { defineTool } from "../tool.ts";

export const ptyList = defineTool({
  name: "pty_list",
  title: "List terminals",
  description:
    "List sessions on aiterm's private tmux server, plus ended sessions whose logs are still readable. origin=human marks a session a person created on the same socket.",
  input: z.object({
    env_keys: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")).max(32)
      .optional().describe(
        "Variable names to check per session: whether aiterm set each one for the session (env_vars, AITERM_SESSION_ID); values are never returned",
      ),
    remote: RemoteSchema.optional(),
  }).strict(),
  output: z.object({
    observed_at: z.string().describe("ISO time of the listing"),
    sessions: z.array(
      z.object({
        session_id: z.string().describe("Session id"),
        state: z.enum(["running", "ended"]).describe("ended = its shell exited; the log remains until pty_close"),
        origin: z.enum(["ai", "human"]).describe("ai = opened through aiterm; human = made by a person on the socket"),
        current_command: z.string().nullable().describe("Name of the foreground process"),
        attached: z.boolean().describe("A human client is attached"),
        width: z.number().int().nullable().describe("Columns"),
        height: z.number().int().nullable().describe("Rows"),
        created_at: z.string().nullable().describe("ISO creation time"),
        generation: z.string().nullable().describe("This generation of the id (null for human sessions)"),
        environment: z.record(z.string(), z.boolean()).optional().describe(
          "Per asked env_key: true when aiterm set it for this session (its value is never returned), else false",
        ),
      }).strict(),
    ).describe("One row per session"),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const sessions = await deps.terminal.list();
    if (!input.env_keys?.length) return { observed_at: new Date().toISOString(), sessions };
    const env = await deps.terminal.listEnvironment(sessions, input.env_keys);
    return {
      observed_at: new Date().toISOString(),
      sessions: sessions.map((s) => ({ ...s, environment: env[s.session_id] ?? {} })),
    };
  },
  text: (out) =>
    out.sessions.length === 0 ? "(no sessions)" : out.sessions.map((s) =>
      [
        s.session_id,
        s.state,
        s.current_command ?? "-",
        s.attached ? "attached" : "detached",
        s.width ? `${s.width}x${s.height}` : "-",
        s.origin,
      ]
        .join("\t")
    ).join("\n"),
});
