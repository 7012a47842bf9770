import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { type ApprovalResult, runApproval } from "../../agent/mod.ts";
import { defineTool, SessionIdSchema } from "../tool.ts";

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
    "The command, MCP-tool or file-edit approval a coding agent (codex-cli, claude-code) is waiting on — pty_observe reports it as blocked/approval_required. inspect reads it: kind (command, mcp_tool, file_edit, unknown), the text shown, the choices with their ids, and a digest bound to this launch. respond answers it once: under the session's send lock aiterm looks again and types the choice's key only if the same dialog (same digest) is still shown, its kind is known and the choice is single-shot (approve_once or deny; choices that remember a decision — for this session, don't ask again, always — are never typed). Otherwise the result is status blocked with the reason (no_dialog, digest_changed, unknown_dialog, choice_not_offered, choice_not_single_shot, …) and nothing was typed. After typing, submitted means the dialog went away.",
  input: z.object({
    action: z.enum(["inspect", "respond"]).describe("inspect reads the dialog; respond answers it once"),
    session_id: SessionIdSchema,
    approval_choice: z.enum(CHOICE_IDS).nullish().describe(
      "respond only: the choice id from inspect; only approve_once and deny are ever typed",
    ),
    observed_prompt_digest: z.string().regex(/^sha256:[0-9a-f]{64}$/).nullish().describe(
      "respond only: the digest inspect returned for the dialog you decided on",
    ),
    generation: z.string().regex(/^[0-9a-f]{12}$/).nullish().describe(
      "The session generation from its receipt; a replaced session is then SESSION_STALE",
    ),
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
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) =>
    await runApproval(input, { terminal: deps.terminal, env: deps.env, defaultCwd: deps.cwd }),
  text,
});
