import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { type ApprovalResult, readAgentRecord, runApproval } from "../../agent/mod.ts";
import { AppError } from "../../../base/errors.ts";
import { defineTool, GenerationSchema, SessionIdSchema } from "../tool.ts";

const CHOICE_IDS = ["approve_once", "approve_session", "approve_always", "deny"] as const;

function text(out: ApprovalResult): string {
  const head = out.status === "blocked"
    ? `BLOCKED (${out.reason}): nothing was typed`
    : out.status === "approval_required"
    ? `approval_required (${out.kind}): answer with action "respond", one single-shot choice id and this digest`
    : out.status === "none"
    ? "no approval dialog is shown"
    : `${out.status} (${out.selected_choice}); the agent is now ${out.after}`;
  const lines = [head];
  if (out.text) lines.push(out.text.split("\n").map((l) => `  | ${l}`).join("\n"));
  for (const c of out.choices) {
    lines.push(`  - ${c.id}${c.single_shot ? "" : " (not single-shot: never typed)"}: ${c.label}`);
  }
  if (out.digest) lines.push(`digest: ${out.digest}`);
  lines.push(JSON.stringify(out));
  return lines.join("\n");
}

export const agentApproval = defineTool({
  name: "agent_approval",
  title: "Inspect or answer an agent's approval dialog",
  description:
    "Inspect or answer the approval dialog (command, MCP tool, file edit) a codex-cli or claude-code agent waits on (pty_observe: blocked, approval_required). Use it, not pty_key: it types only into the dialog you inspected. inspect: kind, text, choices with ids, digest. respond: under the send lock aiterm looks again and types the choice only if the same dialog is shown and the choice is single-shot (approve_once, deny; choices that remember a decision are never typed); else status blocked with the reason, nothing typed. submitted: the dialog went away and the turn goes on.",
  input: z.object({
    action: z.enum(["inspect", "respond"]).describe("inspect reads the dialog; respond answers it once"),
    session_id: SessionIdSchema,
    approval_choice: z.enum(CHOICE_IDS).nullish().describe(
      "respond: the choice id from inspect",
    ),
    observed_prompt_digest: z.string().regex(/^sha256:[0-9a-f]{64}$/).nullish().describe(
      "respond: the digest inspect returned for the dialog you decided on",
    ),
    generation: GenerationSchema,
    remote: RemoteSchema.optional(),
  }).strict(),
  output: z.object({
    schema: z.literal("aiterm.agent-approval-result.v1").describe("Result schema id"),
    action: z.enum(["inspect", "respond"]).describe("The action asked for"),
    status: z.enum(["approval_required", "none", "submitted", "submitted_unconfirmed", "blocked"]).describe(
      "approval_required: a dialog is shown; none: no dialog; submitted: typed and the dialog went away; submitted_unconfirmed: typed but the same dialog is still shown; blocked: nothing typed",
    ),
    reason: z.string().describe("Why this status"),
    session_id: z.string().describe("The session"),
    harness: z.string().describe("The agent's harness"),
    launch_id: z.string().describe("The launch the digest is bound to"),
    kind: z.enum(["command", "mcp_tool", "file_edit", "unknown"]).nullable().describe("What the dialog asks about"),
    text: z.string().nullable().describe("The dialog's text as shown (question, command or tool call)"),
    choices: z.array(
      z.object({
        id: z.string().describe("approve_once, approve_session, approve_always, deny or other_<n>"),
        label: z.string().describe("The label as shown"),
        single_shot: z.boolean().describe("Answers this request only (the only choices respond types)"),
        key: z.string().describe("The key that picks it"),
      }).strict(),
    ).describe("The dialog's choices in screen order"),
    digest: z.string().nullable().describe("sha256 over the launch id, kind, text and choices (not the selection)"),
    selected_choice: z.string().nullable().describe("The choice typed (respond)"),
    typed: z.boolean().describe("Whether a key was typed"),
    after: z.string().nullable().describe("The agent's state after typing (ready, busy, blocked:<reason>, …)"),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) =>
    await runApproval(input, {
      terminal: deps.terminal,
      env: deps.env,
      defaultCwd: deps.cwd,
      transcripts: deps.transcripts,
    }),
  text,
});

/**
 * `claude_approval`: the name Claude Code callers of the original product know (seed 002 keeps it), a
 * thin alias of agent_approval for claude-code sessions: the same arguments, result and checks; a
 * session of another harness is refused before anything is looked at.
 */
export const claudeApproval = defineTool({
  name: "claude_approval",
  title: "Inspect or answer a Claude Code approval (alias)",
  description:
    "Legacy alias of agent_approval for claude-code sessions: the same arguments and result; another harness's session is INVALID_ARGUMENT. Use agent_approval.",
  aliasOf: "agent_approval",
  replacement: "agent_approval with the same arguments",
  input: agentApproval.input,
  output: agentApproval.output,
  annotations: agentApproval.annotations,
  handler: async (input, deps) => {
    await deps.terminal.checkGeneration(input.session_id, input.generation);
    const rec = await readAgentRecord(deps.terminal.sessionDir(input.session_id)).catch(() => null);
    if (rec && rec.harness !== "claude-code") {
      throw new AppError(
        "INVALID_ARGUMENT",
        `Cannot use claude_approval on session "${input.session_id}": it runs ${rec.harness}, not claude-code`,
        { suggestion: "nothing was typed; use agent_approval", data: { field: "session_id" } },
      );
    }
    return await runApproval(input, {
      terminal: deps.terminal,
      env: deps.env,
      defaultCwd: deps.cwd,
      transcripts: deps.transcripts,
    });
  },
  text,
});
