import { z } from "zod";
import { REMOTE_RESULT_FIELDS, RemoteSchema } from "../../remote/mod.ts";
import { configureAgent, type ConfigureReceipt } from "../../agent/mod.ts";
import { defineTool, GenerationSchema, SessionIdSchema } from "../tool.ts";

function text(out: ConfigureReceipt): string {
  const lines = [
    `${out.session_id}: model ${out.model ?? "(CLI default)"}, reasoning_effort ${
      out.reasoning_effort ?? "(CLI default)"
    }`,
    ...out.confirmations.map((c) => `  ${out.harness}: ${c}`),
  ];
  if (out.persisted_default) lines.push(`note: ${out.harness} also saved this as the user's default for new sessions`);
  lines.push(JSON.stringify(out));
  return lines.join("\n");
}

export const agentConfigure = defineTool({
  name: "agent_configure",
  title: "Change a running agent's model or effort",
  description:
    "Change a running, idle agent's model and/or reasoning_effort in place with the harness's own commands (/model, /effort; codex-cli: for this session only), checked first against its live catalog (agent_models). For a new agent pass model to agent_launch instead. Refused with nothing typed during a turn (AGENT_BUSY), a dialog (AGENT_BLOCKED) or with text in the composer; CONFIGURE_UNSUPPORTED where the harness has no command for it (cursor-cli: an effort needs model too). Recorded only once the CLI confirms; persisted_default: the CLI also saved it as the user's default (Claude Code, Grok do).",
  input: z.object({
    session_id: SessionIdSchema,
    model: z.string().min(1).max(200).nullish().describe("New model id from the harness's live catalog"),
    reasoning_effort: z.string().min(1).max(40).nullish().describe(
      "New reasoning effort in the harness's terms (cursor-cli: only together with model)",
    ),
    generation: GenerationSchema,
    remote: RemoteSchema.optional(),
  }).strict(),
  output: z.object({
    schema: z.literal("aiterm.agent-configure-result.v1").describe("Result schema id"),
    session_id: z.string().describe("The session"),
    harness: z.string().describe("The agent's harness"),
    provider: z.string().describe("Legacy vendor name"),
    model: z.string().nullable().describe("The model now in use as recorded (null: the CLI's default)"),
    reasoning_effort: z.string().nullable().describe("The effort now in use as recorded (null: the CLI's default)"),
    previous: z.object({
      model: z.string().nullable().describe("Model before"),
      reasoning_effort: z.string().nullable().describe("Effort before"),
    }).strict().describe("What was recorded before"),
    confirmations: z.array(z.string()).describe("The CLI's own confirmation lines"),
    persisted_default: z.boolean().nullable().describe(
      "The CLI said it also saved the choice as the user's default for new sessions (null: it did not say)",
    ),
    ...REMOTE_RESULT_FIELDS,
  }).strict(),
  annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) =>
    await configureAgent(input, {
      terminal: deps.terminal,
      env: deps.env,
      defaultCwd: deps.cwd,
      transcripts: deps.transcripts,
      catalogs: deps.catalogs,
    }),
  text,
});
