/** What aiterm owns about an agent launch: correlation state only (`sessions/<id>/agent.json`). */
import { CHILD_VARS, childVar } from "../../base/config.ts";
import { basename, dirname, join } from "node:path";
import { readJsonFile, writeJsonAtomic } from "../../state/mod.ts";
import type { HarnessId } from "../../harnesses/mod.ts";
import { AppError } from "../../base/errors.ts";

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
  /** The harness's system-prompt channel that carried the notice at launch; null/absent when it is typed. */
  notice_channel?: string | null;
  model: string | null;
  reasoning_effort: string | null;
  write_scope: string | null;
  launch_operation_id: string | null;
  /** The turn aiterm dispatched last and has not seen end yet. */
  active_turn: { index: number; dispatched_at_ms: number } | null;
  /**
   * What aiterm typed into this launch while its transcript was not pinned (the first 200 characters of
   * each text, trimmed; the last 8): the evidence that a transcript found in the launch's directory is its
   * own (lib/agent/turns.ts). Absent in records written before it was kept.
   */
  sent_prompts?: string[];
}

/** Where the record lives for a session directory. */
export function agentRecordPath(sessionDir: string): string {
  return join(sessionDir, "agent.json");
}

/** Reads a record; null when the session has no agent. */
export async function readAgentRecord(sessionDir: string): Promise<AgentRecord | null> {
  // Most sessions are plain terminals (every pty_send asks): a listing of the small session directory says so
  // for less than a failed open costs (its exception's stack trace).
  if (!hasEntry(sessionDir, "agent.json")) return null;
  const rec = await readJsonFile<AgentRecord>(agentRecordPath(sessionDir)).catch(() => null);
  return rec?.schema === "aiterm.agent.v1" ? rec : null;
}

/** Whether directory `dir` lists `name` (false when it cannot be listed). */
function hasEntry(dir: string, name: string): boolean {
  try {
    for (const entry of Deno.readDirSync(dir)) if (entry.name === name) return true;
  } catch {
    // no directory: no record
  }
  return false;
}

/**
 * The transcripts that the other agent records of the same state root have pinned (`sessionDir` is this
 * session's directory; its siblings are the other sessions). A transcript pinned by one launch is never
 * another's.
 */
export async function transcriptsPinnedElsewhere(sessionDir: string): Promise<Set<string>> {
  const root = dirname(sessionDir);
  const own = basename(sessionDir);
  const taken = new Set<string>();
  let names: string[];
  try {
    names = [...Deno.readDirSync(root)].filter((e) => e.isDirectory && e.name !== own).map((e) => e.name);
  } catch {
    return taken;
  }
  for (const name of names) {
    const rec = await readAgentRecord(join(root, name));
    if (rec?.transcript_path) taken.add(rec.transcript_path);
  }
  return taken;
}

/** Writes a record atomically. */
export function writeAgentRecord(sessionDir: string, rec: AgentRecord): Promise<void> {
  return writeJsonAtomic(agentRecordPath(sessionDir), rec);
}

/**
 * Refuses an inherited lineage aiterm cannot extend: an AITERM_DELEGATION_DEPTH that is set but is
 * not a whole number from 0 to 999999 (a child's depth would otherwise be a guess).
 * @throws {AppError} LINEAGE_INVALID
 */
export function checkLineageEnv(env: Record<string, string | undefined>): void {
  const depth = childVar(env, "delegationDepth");
  if (depth === undefined || depth === "" || /^[0-9]{1,6}$/.test(depth)) return;
  throw new AppError(
    "LINEAGE_INVALID",
    "Cannot launch: the inherited AITERM_DELEGATION_DEPTH is not a whole number from 0 to 999999",
    {
      suggestion: "nothing was started; fix or unset AITERM_DELEGATION_DEPTH in the environment this server runs in",
      data: { variable: CHILD_VARS.delegationDepth },
    },
  );
}

/** The lineage of a child launched from a process whose environment is `env` (checked by checkLineageEnv). */
export function childLineage(env: Record<string, string | undefined>, childId: string): Lineage {
  const parent = childVar(env, "sessionId") ?? null;
  const depth = Number(childVar(env, "delegationDepth") ?? "0");
  const chain = (childVar(env, "lineage") ?? "").split("/").filter((s) => /^[A-Za-z0-9_-]{1,64}$/.test(s));
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
    [CHILD_VARS.agentRole]: l.agent_role,
    [CHILD_VARS.parentSessionId]: l.parent_session_id ?? "",
    [CHILD_VARS.delegationDepth]: String(l.delegation_depth),
    [CHILD_VARS.lineage]: l.lineage.join("/"),
    [CHILD_VARS.delegationAllowed]: "true",
    [CHILD_VARS.launchId]: launchId,
  };
}

/**
 * The sub-agent notice: who the child is, who launched it, its lineage and that it may delegate. It
 * goes into the harness's system-prompt channel at launch when the harness has one.
 */
export function lineageNotice(l: Lineage, sessionId: string): string {
  return `[aiterm] You are a sub-agent running in aiterm session "${sessionId}"` +
    (l.parent_session_id ? `, launched by session "${l.parent_session_id}"` : "") +
    `. Delegation depth ${l.delegation_depth}, lineage ${l.lineage.join(" > ")}; delegation_allowed=true ` +
    "(you may hand work to further agents through aiterm when it helps).";
}

/** The line that ends the typed notice: what follows it is the task. */
export const PREFACE_END = "--- end of the aiterm notice; the task follows ---";

/**
 * The notice typed before the child's first prompt, for a harness without a system-prompt channel:
 * set apart from the task by a blank line and {@link PREFACE_END}.
 */
export function lineagePreface(l: Lineage, sessionId: string): string {
  return [lineageNotice(l, sessionId), "", PREFACE_END, "", ""].join("\n");
}
