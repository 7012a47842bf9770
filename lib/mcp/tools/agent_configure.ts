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
    "Change a running agent's model and/or reasoning_effort in place with the CLI's own commands (/model, /effort; codex-cli: this session only), checked first against the live catalog of agent_models (MODEL_UNKNOWN, EFFORT_UNSUPPORTED; cursor-cli needs model with an effort). For a new agent pass model to agent_launch instead. Only between turns, with nothing typed otherwise: during a turn AGENT_BUSY, on a dialog AGENT_BLOCKED, while starting or with text in its input AGENT_NOT_READY. Recorded only once the CLI confirms (else CONFIGURE_UNCONFIRMED). persisted_default: the CLI also saved it as the user's default (Claude Code, Grok do).",
  input: z.object({
    session_id: SessionIdSchema,
    model: z.string().min(1).max(200).nullish().describe("New model id, as agent_models lists it"),
    reasoning_effort: z.string().min(1).max(40).nullish().describe("New effort, as agent_models lists it"),
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
  // Destructive: it replaces the session's model or effort, and Claude Code and Grok also overwrite the user's default.
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: true },
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
