/** What aiterm owns about an agent launch: correlation state only (`sessions/<id>/agent.json`). */
import { join } from "node:path";
import { readJsonFile, writeJsonAtomic } from "../state/mod.ts";
import type { HarnessId } from "../../harnesses/mod.ts";

/** Sub-agent lineage injected into the launched agent. */
export interface Lineage {
  agent_role: "subagent";
  parent_session_id: string | null;
  delegation_depth: number;
  lineage: string[];
  delegation_allowed: true;
}

/** `sessions/<id>/agent.json`. */
export interface AgentRecord {
  schema: "aiterm.agent.v1";
  launch_id: string;
  harness: HarnessId;
  session_id: string;
  /** Real path of the working directory. */
  cwd: string;
  created_at_ms: number;
  pinned_session_id: string | null;
  /** The transcript file once it has been correlated (pinned for the life of the launch). */
  transcript_path: string | null;
  lineage: Lineage;
  /** The sub-agent preface has not been delivered yet (it goes before the first prompt). */
  preface_pending: boolean;
  model: string | null;
  reasoning_effort: string | null;
  write_scope: string | null;
  launch_operation_id: string | null;
  /** The turn aiterm dispatched last and has not seen end yet. */
  active_turn: { index: number; dispatched_at_ms: number } | null;
}

/** Where the record lives for a session directory. */
export function agentRecordPath(sessionDir: string): string {
  return join(sessionDir, "agent.json");
}

/** Reads a record; null when the session has no agent. */
export async function readAgentRecord(sessionDir: string): Promise<AgentRecord | null> {
  const rec = await readJsonFile<AgentRecord>(agentRecordPath(sessionDir)).catch(() => null);
  return rec?.schema === "aiterm.agent.v1" ? rec : null;
}

/** Writes a record atomically. */
export function writeAgentRecord(sessionDir: string, rec: AgentRecord): Promise<void> {
  return writeJsonAtomic(agentRecordPath(sessionDir), rec);
}

/** The lineage of a child launched from a process whose environment is `env`. */
export function childLineage(env: Record<string, string | undefined>, childId: string): Lineage {
  const parent = env.AITERM_SESSION_ID ?? null;
  const depth = Number(env.AITERM_DELEGATION_DEPTH ?? "0");
  const chain = (env.AITERM_LINEAGE ?? "").split("/").filter((s) => /^[A-Za-z0-9_-]{1,64}$/.test(s));
  return {
    agent_role: "subagent",
    parent_session_id: parent && /^[A-Za-z0-9_-]{1,64}$/.test(parent) ? parent : null,
    delegation_depth: (Number.isInteger(depth) && depth >= 0 ? depth : 0) + 1,
    lineage: [...chain, childId],
    delegation_allowed: true,
  };
}

/** The environment variables that tell the child who it is. */
export function lineageEnv(l: Lineage, launchId: string): Record<string, string> {
  return {
    AITERM_AGENT_ROLE: l.agent_role,
    AITERM_PARENT_SESSION_ID: l.parent_session_id ?? "",
    AITERM_DELEGATION_DEPTH: String(l.delegation_depth),
    AITERM_LINEAGE: l.lineage.join("/"),
    AITERM_DELEGATION_ALLOWED: "true",
    AITERM_LAUNCH_ID: launchId,
  };
}

/** The opening context put before the child's first prompt. */
export function lineagePreface(l: Lineage, sessionId: string): string {
  return [
    `[aiterm] You are a sub-agent running in aiterm session "${sessionId}"` +
    (l.parent_session_id ? `, launched by session "${l.parent_session_id}"` : "") +
    `. Delegation depth ${l.delegation_depth}, lineage ${l.lineage.join(" > ")}; delegation_allowed=true ` +
    "(you may hand work to further agents through aiterm when it helps). Reply to the task below.",
    "",
  ].join("\n");
}
