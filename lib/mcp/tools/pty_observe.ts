import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { observeSession } from "../../terminal/mod.ts";
import { defineTool, SessionIdSchema } from "../tool.ts";

export const ptyObserve = defineTool({
  name: "pty_observe",
  title: "Observe a terminal's state and activity",
  description:
    "Structured liveness without any screen or command text: whether the pane is alive, the foreground process identity (pid, start identity, argv digest), the state (idle_shell, running, nested, blocked with reason harness_stopped when the foreground is stopped, ended), and an activity cursor. Pass the cursor back on the next call to get whether the screen changed and CPU used per process in between (cpu_delta_complete=false when a process vanished).",
  input: z.object({
    session_id: SessionIdSchema,
    generation: z.string().regex(/^[0-9a-f]{12}$/).nullish().describe(
      "The session generation from its receipt; a session closed and reopened under the same name is then SESSION_STALE",
    ),
    cursor: z.string().max(65536).nullish().describe("activity.cursor from the previous pty_observe of this session"),
    remote: RemoteSchema.optional(),
  }).strict(),
  output: z.object({
    session_id: z.string().describe("The session"),
    exists: z.boolean().describe("aiterm knows the session"),
    pane_alive: z.boolean().describe("Its shell is still running"),
    state: z.enum(["idle_shell", "running", "nested", "blocked", "ended"]).describe("What the session is doing"),
    reason: z.string().describe("Why this state was chosen"),
    foreground: z.object({
      pid: z.number().int().describe("Foreground process id"),
      start: z.string().describe("Start identity (differs when the pid is reused)"),
      argv_digest: z.string().nullable().describe("sha256 of its argv (the text is never returned)"),
      is_shell: z.boolean().describe("The foreground is the session's own shell"),
    }).strict().nullable().describe("The foreground process (Linux); null where the OS does not expose it"),
    activity: z.object({
      cursor: z.string().describe("Pass back on the next call"),
      screen_digest: z.string().nullable().describe("sha256 of the visible screen"),
      screen_changed: z.boolean().nullable().describe("Screen differs from the cursor's (null on the first call)"),
      cpu_ms_delta: z.number().int().nullable().describe("CPU ms used by the pane's processes since the cursor"),
      processes: z.array(
        z.object({
          pid: z.number().int().describe("Process id"),
          cpu_ms_delta: z.number().int().nullable().describe("CPU ms since the cursor (null on the first call)"),
        }).strict(),
      ).describe("The pane's process tree"),
      cpu_delta_complete: z.boolean().nullable().describe("false when a process of the cursor has vanished"),
    }).strict(),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) => {
    await deps.terminal.checkGeneration(input.session_id, input.generation);
    return await observeSession(deps.terminal, input.session_id, input.cursor ?? null);
  },
});
