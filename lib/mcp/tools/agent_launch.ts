import { z } from "zod";
import { RemoteSchema } from "../../remote/mod.ts";
import { launchAgent, type LaunchInput, type LaunchReceipt } from "../../agent/mod.ts";
import { type DeliveryReceipt, withParentDelivery } from "../../agent/delivery/mod.ts";
import type { HarnessId } from "../../../harnesses/mod.ts";
import { type CallContext, defineTool, type ToolDeps } from "../tool.ts";
import { HarnessSchema, launchFields, LaunchOutputSchema } from "./agent_schemas.ts";

const DESCRIPTION =
  "Start a coding agent (harness: claude-code, codex-cli, grok-cli, cursor-cli; model is a separate axis — e.g. Composer is a Cursor model: harness=cursor-cli, model=composer-2.5-fast) in a fresh persistent session that shares your normal HOME, cwd, config, MCP servers, plugins, skills and trust. aiterm owns only completion-correlation state. The agent is told it is a sub-agent (parent session, delegation depth and lineage, delegation_allowed=true). With a prompt, the call returns as soon as the turn is dispatched: do not wait here. To be told when the turn ends, start wait_process in the background (exit 0 done, 3 timeout after 600 s, 4 closed, 5 blocked: the child is stuck on a dialog such as approval_required or is stopped — see pty_observe / agent_approval, then start the waiter again — 7 error: the harness recorded an API error, no result); the receipt is authoritative and only done has a result. Then read the answer with pty_read(session_id, agent_transcript:true, cursor:event_cursor). Later turns go through pty_send: a running turn takes the text as a steer, an idle agent starts a new turn with a new event_cursor. Without prompt and trust_project the call returns at once with startup.not_checked.";

type LaunchOut = LaunchReceipt & { parent_delivery: DeliveryReceipt | null };

function text(out: LaunchOut): string {
  const lines = [`session_id: ${out.session_id}`, `startup: ${out.startup.status} (${out.startup.reason})`];
  lines.push(`initial_prompt: ${out.initial_prompt.status} (${out.initial_prompt.reason})`);
  if (out.parent_delivery) {
    lines.push(
      `parent_delivery: ${out.parent_delivery.state} (${out.parent_delivery.delivery_id}); the answer comes to you by itself — do not poll`,
    );
  }
  if (out.wait_process) lines.push(`wait: ${[out.wait_process.executable, ...out.wait_process.args].join(" ")}`);
  if (out.submit_residue) {
    lines.push("warning: text was left in the composer; look with pty_read screen:true (do not resend)");
  }
  lines.push(`attach: ${out.attach_command}`, JSON.stringify(out));
  return lines.join("\n");
}

async function handler(input: LaunchInput, deps: ToolDeps, ctx: CallContext): Promise<LaunchOut> {
  const agentDeps = { terminal: deps.terminal, env: deps.env, defaultCwd: deps.cwd };
  // A launch without a prompt sends nothing: no delivery to prepare, no hook required.
  const r = input.prompt
    ? await withParentDelivery(deps.delivery, ctx.parent, (hooks) => launchAgent(input, agentDeps, hooks))
    : { value: await launchAgent(input, agentDeps), parent_delivery: null };
  if (r.wait_process === undefined) return { ...r.value, parent_delivery: r.parent_delivery };
  return { ...r.value, parent_delivery: r.parent_delivery, wait_process: r.wait_process, wait_command: null };
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
    description:
      `Deprecated: use agent_launch(harness="${harness}"). Same inputs without harness and image. ${DESCRIPTION}`,
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
