/**
 * The agent-level state of a session from the harness's own screen rules (a blocking dialog, a busy
 * turn, an exited CLI), and why a turn is stuck. Kept apart from pty_observe's view (observe.ts) so
 * that aiterm-wait, which needs only this, does not load parent delivery.
 */
import { getHarness } from "../../harnesses/mod.ts";
import type { Terminal } from "../terminal/mod.ts";
import { readAgentRecord } from "./record.ts";

/** The agent-level state of a session. */
export interface AgentObservation {
  harness: string;
  state: "ready" | "busy" | "blocked" | "starting" | "exited";
  reason: string | null;
}

/** Classifies the agent's current screen; null when the session has no agent. */
export async function observeAgent(terminal: Terminal, id: string): Promise<AgentObservation | null> {
  const rec = await readAgentRecord(terminal.sessionDir(id)).catch(() => null);
  const adapter = rec ? getHarness(rec.harness) : null;
  if (!rec || !adapter) return null;
  const pane = await terminal.pane(id);
  if (!pane) return { harness: rec.harness, state: "exited", reason: "harness_exited" };
  const screen = (await terminal.screen(id)) ?? "";
  const s = adapter.classifyScreen(screen);
  if (pane.paneDead) {
    return { harness: rec.harness, state: "exited", reason: s.kind === "blocked" ? s.reason : "harness_exited" };
  }
  if (s.kind === "blocked") return { harness: rec.harness, state: "blocked", reason: s.reason };
  if (s.kind === "exited") return { harness: rec.harness, state: "exited", reason: "harness_exited" };
  return { harness: rec.harness, state: s.kind, reason: null };
}

/**
 * Why an agent session is stuck right now, or null: a stopped harness (from the process table) or
 * a blocking dialog the harness shows (approval, onboarding, login, usage limit, …).
 */
export async function stuckReason(terminal: Terminal, id: string): Promise<string | null> {
  const base = await terminal.observe(id, null).catch(() => null);
  if (base?.state === "ended") return null;
  if (base?.state === "blocked") return base.reason;
  const agent = await observeAgent(terminal, id);
  return agent?.state === "blocked" ? agent.reason ?? "blocked" : null;
}
