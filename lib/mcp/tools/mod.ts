/** Every tool the server offers, in listing order. */
import type { ToolDef } from "../tool.ts";
import { agentApproval, claudeApproval } from "./agent_approval.ts";
import { agentConfigure } from "./agent_configure.ts";
import { agentLaunch, claudeAgent, codexAgent, grokAgent } from "./agent_launch.ts";
import { agentModels } from "./agent_models.ts";
import { diagnostics } from "./diagnostics.ts";
import { ptyClose } from "./pty_close.ts";
import { ptyKey } from "./pty_key.ts";
import { ptyList } from "./pty_list.ts";
import { ptyObserve } from "./pty_observe.ts";
import { ptyOpen } from "./pty_open.ts";
import { ptyRead } from "./pty_read.ts";
import { ptySend } from "./pty_send.ts";

export const ALL_TOOLS: ToolDef[] = [
  diagnostics,
  ptyOpen,
  ptySend,
  ptyRead,
  ptyKey,
  ptyObserve,
  ptyClose,
  ptyList,
  agentLaunch,
  agentModels,
  agentApproval,
  agentConfigure,
  claudeAgent,
  codexAgent,
  grokAgent,
  claudeApproval,
] as unknown as ToolDef[];
