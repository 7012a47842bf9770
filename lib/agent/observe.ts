/**
 * What an agent session is stuck on, from the harness's own screen rules: a blocking dialog
 * (approval_required, vendor_onboarding_required, trust_required, rate_limited, …), a busy turn, or an
 * exited CLI. Null for sessions without an agent.
 */
import { getHarness, harnessBinary } from "../../harnesses/mod.ts";
import type { ObserveResult, Terminal } from "../terminal/mod.ts";
import { type AgentObservation, observeAgent } from "./agent_state.ts";
import { readAgentRecord } from "./record.ts";
import { paneAndHarness, type ProcessIdentity } from "./harness_process.ts";
import { type DeliveryStore, pendingDeliveries, type PendingDelivery } from "../../state/mod.ts";

export { observeAgent, stuckReason } from "./agent_state.ts";
export type { AgentObservation } from "./agent_state.ts";

/** pty_observe of an agent session: the agent's state at the top, pane and harness told apart. */
export interface AgentSessionView extends Omit<ObserveResult, "state"> {
  /** The agent's state (ready, busy, blocked, starting, exited); never a shell state. */
  state: AgentObservation["state"];
  /** The pane's own process (what the multiplexer started); null once the pane is dead. */
  pane_process: ProcessIdentity | null;
  /** The harness CLI's process (the native body of an npm shim); null when dead or not identifiable. */
  harness_process: ProcessIdentity | null;
  harness_alive: boolean;
  agent: AgentObservation & { model: string | null; pending_deliveries: PendingDelivery[] };
}

const TOP_REASON: Record<string, string> = { ready: "accepts_input", busy: "turn_running", starting: "starting" };

/**
 * Turns the terminal-level observation `base` of session `id` into the agent view; null when the
 * session has no agent (plain terminals keep `base` as it is). `store`: the local parent deliveries.
 */
export async function agentSessionView(
  terminal: Terminal,
  id: string,
  base: ObserveResult,
  store: DeliveryStore | null,
): Promise<AgentSessionView | null> {
  const rec = await readAgentRecord(terminal.sessionDir(id)).catch(() => null);
  if (!rec || !getHarness(rec.harness)) return null;
  const agent = await observeAgent(terminal, id);
  if (!agent) return null;
  const pane = await terminal.pane(id);
  const live = pane !== null && !pane.paneDead && base.state !== "ended";
  const procs = live
    ? await paneAndHarness(pane.panePid, pane.tty || null, harnessBinary(rec.harness).pathNames)
    : null;
  const generation = (await terminal.meta(id).catch(() => null))?.generation ?? null;
  const pending = store ? await pendingDeliveries(store, id, generation).catch(() => []) : [];
  let state: AgentSessionView["state"];
  let reason: string;
  if (!live || agent.state === "exited") {
    state = "exited";
    reason = agent.reason ?? "harness_exited";
  } else if (base.state === "blocked") {
    // A stopped harness (process table) wins over whatever its last screen shows.
    state = "blocked";
    reason = base.reason;
  } else {
    state = agent.state;
    reason = agent.reason ?? TOP_REASON[agent.state] ?? agent.state;
  }
  return {
    ...base,
    // The pane may have died between the terminal look and this one: the view says so throughout.
    pane_alive: base.pane_alive && live,
    state,
    reason,
    prompt: null,
    // An agent's pane has no shell of its own: the foreground is the harness or a program it runs.
    foreground: base.foreground ? { ...base.foreground, is_shell: false } : null,
    pane_process: procs?.pane ?? null,
    harness_process: procs?.harness ?? null,
    harness_alive: live && state !== "exited",
    agent: { ...agent, model: rec.model, pending_deliveries: pending },
  };
}
