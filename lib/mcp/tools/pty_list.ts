import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { readAgentRecord } from "../../agent/mod.ts";
import type { SessionRow, Terminal } from "../../terminal/mod.ts";
import { defineTool } from "../tool.ts";

/** Rows of agent sessions gain their harness and model (from the launch record), so a restarted parent can tell. */
async function withAgents(
  terminal: Terminal,
  rows: SessionRow[],
): Promise<(SessionRow & { harness?: string; model?: string | null })[]> {
  return await Promise.all(rows.map(async (row) => {
    if (row.origin !== "ai") return row;
    const rec = await readAgentRecord(terminal.sessionDir(row.session_id)).catch(() => null);
    return rec ? { ...row, harness: rec.harness, model: rec.model } : row;
  }));
}

export const ptyList = defineTool({
  name: "pty_list",
  title: "List terminals",
  description:
    "List the sessions on aiterm's private tmux server, and ended ones whose log is still readable: state, origin (human = made by a person on the socket), foreground command, attached, size, generation; agent sessions also harness and model. Read-only; use it to find sessions again after a restart, pty_observe for one session's detail.",
  input: z.object({
    env_keys: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")).max(32)
      .optional().describe(
        "Variable names to check per session: whether aiterm set each (values are never returned)",
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
        harness: z.string().optional().describe("Agent sessions only: the harness (claude-code, codex-cli, …)"),
        model: z.string().nullable().optional().describe(
          "Agent sessions only: the model launched or configured (null = the harness default)",
        ),
        environment: z.record(z.string(), z.boolean()).optional().describe(
          "Per asked env_key: true when aiterm set it for this session (its value is never returned), else false",
        ),
      }).strict(),
    ).describe("One row per session"),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  handler: async (input, deps) => {
    const sessions = await withAgents(deps.terminal, await deps.terminal.list());
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
        ...(s.harness ? [`agent=${s.harness}${s.model ? `/${s.model}` : ""}`] : []),
      ]
        .join("\t")
    ).join("\n"),
});
