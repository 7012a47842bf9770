/**
 * What an agent session is stuck on, from the harness's own screen rules: a blocking dialog
 * (approval_required, vendor_onboarding_required, trust_required, rate_limited, …), a busy turn, or an
 * exited CLI. Null for sessions without an agent.
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
  const pane = await terminal.mux.paneInfo(id);
  if (!pane) return { harness: rec.harness, state: "exited", reason: "harness_exited" };
  const screen = await terminal.mux.capture(id).catch(() => "");
  const s = adapter.classifyScreen(screen);
  if (pane.paneDead) {
    return { harness: rec.harness, state: "exited", reason: s.kind === "blocked" ? s.reason : "harness_exited" };
  }
  if (s.kind === "blocked") return { harness: rec.harness, state: "blocked", reason: s.reason };
  if (s.kind === "exited") return { harness: rec.harness, state: "exited", reason: "harness_exited" };
  return { harness: rec.harness, state: s.kind, reason: null };
}
