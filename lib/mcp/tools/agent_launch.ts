import { z } from "zod";
import { RemoteSchema } from "../../remote/mod.ts";
import { knob } from "../../../base/config.ts";
import type { LaunchInput, LaunchReceipt } from "../../agent/mod.ts";
import { type Guidance, launchWithRequest, receiptGuidance } from "../../agent/delivery/mod.ts";
import type { DeliveryReceipt } from "../../../state/mod.ts";
import type { HarnessId } from "../../../harnesses/mod.ts";
import { type CallContext, defineTool, type ToolDeps } from "../tool.ts";
import { HarnessSchema, launchFields, LaunchOutputSchema } from "./agent_schemas.ts";

const DESCRIPTION =
  "Start a coding-agent CLI as your sub-agent in a new persistent session, sharing your HOME, config, MCP servers " +
  "and sign-ins. For a plain shell use pty_open; pick a model with agent_models. With prompt, trust_project or fast " +
  "it first waits for the CLI to accept input (by default up to " +
  `${Number(knob("agentStartupTimeoutMs").default) / 1000} s), answering trust dialogs only with trust_project; a ` +
  "sign-in screen or any other dialog stops it: startup blocked with the reason, nothing typed, the session left for " +
  "you to inspect or pty_close. It then sends prompt and returns without waiting for the turn: do not poll; `next` " +
  "says how the answer reaches you. Later turns: pty_send; a dialog mid-turn: agent_approval.";

type LaunchOut = LaunchReceipt & { parent_delivery: DeliveryReceipt | null } & Guidance;

function text(out: z.output<typeof LaunchOutputSchema>): string {
  const lines = [`session_id: ${out.session_id}`, `startup: ${out.startup.status} (${out.startup.reason})`];
  lines.push(`initial_prompt: ${out.initial_prompt.status} (${out.initial_prompt.reason})`);
  if (out.parent_delivery) {
    lines.push(`parent_delivery: ${out.parent_delivery.state} (${out.parent_delivery.delivery_id})`);
  }
  lines.push(`next: ${out.next}`);
  if (out.warning) lines.push(`warning: ${out.warning.code}: ${out.warning.message}`);
  if (out.wait_process) lines.push(`wait: ${[out.wait_process.executable, ...out.wait_process.args].join(" ")}`);
  if (out.submit_residue) {
    lines.push("warning: text was left in the composer; look with pty_read screen:true (do not resend)");
  }
  lines.push(`attach: ${out.attach_command}`, JSON.stringify(out));
  return lines.join("\n");
}

async function handler(input: LaunchInput, deps: ToolDeps, ctx: CallContext): Promise<LaunchOut> {
  // The one agent-request pipeline (lib/agent/delivery/request.ts); without a prompt nothing is sent.
  const agentDeps = {
    terminal: deps.terminal,
    env: deps.env,
    defaultCwd: deps.cwd,
    transcripts: deps.transcripts,
    catalogs: deps.catalogs,
  };
  const r = await launchWithRequest({ deps: agentDeps, delivery: deps.delivery, parent: ctx.parent }, input);
  // What this parent must do now (lib/agent/delivery/guidance.ts).
  return { ...r, ...receiptGuidance(ctx.parent, r) };
}

export const agentLaunch = defineTool({
  name: "agent_launch",
  title: "Launch a coding agent",
  description: DESCRIPTION,
  input: z.object({ harness: HarnessSchema, ...launchFields, remote: RemoteSchema.optional() }).strict(),
  output: LaunchOutputSchema,
  annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: (input, deps, ctx) => handler(input as LaunchInput, deps, ctx),
  text,
});

function alias(name: string, harness: HarnessId) {
  return defineTool({
    name,
    title: `Launch ${harness} (deprecated alias)`,
    // A thin alias (lib/mcp/listing.ts): one line and `{type: "object"}` in tools/list, full validation here.
    description:
      `Deprecated alias of agent_launch(harness="${harness}"): takes agent_launch's arguments except harness, image and remote. Use agent_launch.`,
    aliasOf: "agent_launch",
    replacement: `agent_launch with harness "${harness}" and the same arguments`,
    input: z.object((({ image: _image, ...rest }) => rest)(launchFields)).strict(),
    output: LaunchOutputSchema,
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    handler: (input, deps, ctx) => handler({ ...(input as Omit<LaunchInput, "harness">), harness }, deps, ctx),
    text,
  });
}

export const claudeAgent = alias("claude_agent", "claude-code");
export const codexAgent = alias("codex_agent", "codex-cli");
export const grokAgent = alias("grok_agent", "grok-cli");
