import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { agentSessionView } from "../../agent/mod.ts";
import { defineTool, GenerationSchema, SessionIdSchema } from "../tool.ts";
import { PARENT_KINDS } from "../../../harnesses/clients/mod.ts";

const ProcessIdentitySchema = z.object({
  pid: z.number().int().describe("Process id"),
  start: z.string().nullable().describe("Start identity (differs when the pid is reused)"),
  argv_digest: z.string().nullable().describe("sha256 of its argv (the text is never returned)"),
}).strict();

export const ptyObserve = defineTool({
  name: "pty_observe",
  title: "Observe a terminal's state and activity",
  description:
    "Check a session's state without reading its output; read-only and fast. Returns whether its pane lives, the foreground process (pid, start, argv digest; never its text) and a state with its reason: terminals idle_shell, running, input_prompt, nested, full_screen, blocked, ended; agent sessions ready, busy, starting, blocked (approval_required: answer with agent_approval), exited, with pending answer deliveries. Pass activity.cursor back next time to learn whether the screen changed and the CPU used since. Output: pty_read.",
  input: z.object({
    session_id: SessionIdSchema,
    generation: GenerationSchema,
    cursor: z.string().max(65536).nullish().describe("activity.cursor from this session's last pty_observe"),
    remote: RemoteSchema.optional(),
  }).strict(),
  output: z.object({
    session_id: z.string().describe("The session"),
    exists: z.boolean().describe("aiterm knows the session"),
    pane_alive: z.boolean().describe("Its shell is still running"),
    state: z.enum([
      "idle_shell",
      "running",
      "input_prompt",
      "nested",
      "full_screen",
      "blocked",
      "ended",
      "ready",
      "busy",
      "starting",
      "exited",
    ]).describe(
      "What the session is doing. Terminals: idle_shell … ended (full_screen: vim, less, top… own the screen; reason alternate_screen, or full_screen_program for one drawing on the normal screen). Agent sessions: the agent's state ready, busy, starting, blocked, exited",
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
    pane_process: ProcessIdentitySchema.nullable().optional().describe(
      "Agent sessions: the pane's own process (what tmux started); null once the pane is dead",
    ),
    harness_process: ProcessIdentitySchema.nullable().optional().describe(
      "Agent sessions: the harness CLI's process (an npm shim's native body is the harness); null when dead or not identifiable (never guessed)",
    ),
    harness_alive: z.boolean().optional().describe("Agent sessions: the harness CLI is still running"),
    agent: z.object({
      harness: z.string().describe("The agent's harness"),
      state: z.enum(["ready", "busy", "blocked", "starting", "exited"]).describe("From the harness's own screen rules"),
      reason: z.string().nullable().describe(
        "Why it is blocked or exited: approval_required, vendor_onboarding_required, trust_required, rate_limited, service_unreachable, harness_exited, …",
      ),
      model: z.string().nullable().optional().describe(
        "The model it was launched (or configured) with; null = the harness default",
      ),
      pending_deliveries: z.array(
        z.object({
          delivery_id: z.string().describe("The delivery"),
          parent: z.enum(PARENT_KINDS).describe("The parent it goes to"),
          state: z.enum(["waiting", "ready", "sending"]).describe(
            "waiting = turn running; ready = answer saved, not yet taken",
          ),
          cursor: z.number().int().describe("The child turn it answers"),
        }).strict(),
      ).optional().describe("Parent deliveries of this child whose answer has not reached the parent yet"),
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
  annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) => {
    await deps.terminal.checkGeneration(input.session_id, input.generation);
    const base = await deps.terminal.observe(input.session_id, input.cursor ?? null);
    // Agent sessions: the agent's state at the top, pane and harness apart (lib/agent/observe.ts).
    const view = await agentSessionView(deps.terminal, input.session_id, base, deps.delivery?.store ?? null);
    return view ?? { ...base, agent: null };
  },
});
