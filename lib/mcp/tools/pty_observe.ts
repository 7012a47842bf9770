import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { observeAgent } from "../../agent/mod.ts";
import { observeSession } from "../../terminal/mod.ts";
import { defineTool, SessionIdSchema } from "../tool.ts";

export const ptyObserve = defineTool({
  name: "pty_observe",
  title: "Observe a terminal's state and activity",
  description:
    "Structured liveness without any screen or command text: whether the pane is alive, the foreground process identity (pid, start identity, argv digest), the state (idle_shell, running, input_prompt with prompt continuation|read|password, nested, full_screen (reason alternate_screen: vim, less, man…), blocked with reason harness_stopped when the foreground is stopped or — for agents — the dialog it waits on, such as approval_required or vendor_onboarding_required, ended), and an activity cursor. Pass the cursor back on the next call to get whether the screen changed and CPU used per process in between (cpu_delta_complete=false when a process vanished).",
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
    state: z.enum(["idle_shell", "running", "input_prompt", "nested", "full_screen", "blocked", "ended"]).describe(
      "What the session is doing (full_screen: vim, less, top… own the screen; reason alternate_screen, or full_screen_program for one drawing on the normal screen)",
    ),
    reason: z.string().describe("Why this state was chosen"),
    prompt: z.enum(["continuation", "read", "password"]).nullable().optional().describe(
      "state input_prompt: the shell waits for the rest of a command (continuation), a program reads a line (read), or echo is off for a secret (password); null otherwise",
    ),
    foreground: z.object({
      pid: z.number().int().describe("Foreground process id"),
      start: z.string().describe("Start identity (differs when the pid is reused)"),
      argv_digest: z.string().nullable().describe("sha256 of its argv (the text is never returned)"),
      is_shell: z.boolean().describe("The foreground is the session's own shell"),
    }).strict().nullable().describe("The foreground process (Linux); null where the OS does not expose it"),
    agent: z.object({
      harness: z.string().describe("The agent's harness"),
      state: z.enum(["ready", "busy", "blocked", "starting", "exited"]).describe("From the harness's own screen rules"),
      reason: z.string().nullable().describe(
        "Why it is blocked or exited: approval_required, vendor_onboarding_required, trust_required, rate_limited, service_unreachable, harness_exited, …",
      ),
    }).strict().nullable().describe("Agent sessions: what the agent is doing or stuck on; null for plain terminals"),
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
    const base = await observeSession(deps.terminal, input.session_id, input.cursor ?? null);
    const agent = await observeAgent(deps.terminal, input.session_id);
    if (!agent) return { ...base, agent: null };
    // An agent stuck on a dialog is blocked with the harness's reason, whatever the process table says.
    if (agent.state === "blocked" && base.state !== "ended") {
      return { ...base, state: "blocked" as const, reason: agent.reason ?? "blocked", agent };
    }
    if (agent.state === "exited" && base.state === "ended") {
      return { ...base, reason: agent.reason ?? base.reason, agent };
    }
    return { ...base, agent };
  },
});
