/**
 * The start-up gate: wait until the TUI accepts input, answering only the dialogs aiterm may answer
 * (workspace trust and hooks review with trust_project; Claude's theme picker with its default).
 * A sign-in screen or anything else modal stops the gate with a reason, and nothing is typed. A
 * harness that refused to start its sandbox (Grok) stops it with `GROK_SANDBOX_STARTUP_FAILED: <cause>`.
 *
 * It runs at agent_launch (with a prompt or trust_project) and at the first send to an agent that is
 * still starting (a launch without a prompt only starts the CLI: that send waits here, then dispatches).
 */
import type { PaneInput } from "./typing.ts";
import { type Config, knobFrom } from "../../base/config.ts";
import { waitUntil } from "../../base/wait.ts";

/** The gate's verdict. */
export interface StartupResult {
  status: "ready" | "not_checked" | "blocked";
  reason: string;
}

/** Options for {@link startupGate}. */
export interface StartupOptions {
  trustProject: boolean;
  timeoutMs?: number;
  /** Called about once a second while the gate waits (elapsed ms, the screen's state now). */
  onWait?: (elapsedMs: number, state: string) => Promise<void> | void;
}

const POLL_MS = 120;
const STABLE_READS = 2;
const MAX_ANSWERS = 6;
/** Lines of history read with the screen when looking for a sandbox refusal. */
const HISTORY = { scrollback: 200 };
const REPORT_EVERY_MS = 1000;

/**
 * The gate's bound: the configured AITERM_AGENT_STARTUP_TIMEOUT_MS (default 60 s). Without a config
 * (transitional: lib/agent/delivery/request.ts's progress total) it is read from the process environment.
 */
export function startupTimeoutMs(config?: Pick<Config, "agentStartupTimeoutMs">): number {
  return config?.agentStartupTimeoutMs ?? knobFrom(Deno.env.toObject(), "agentStartupTimeoutMs");
}

/** Runs the gate on a session (its caller holds the send lock when it may answer a dialog). */
export async function startupGate(input: PaneInput, options: StartupOptions): Promise<StartupResult> {
  const adapter = input.adapter;
  const started = Date.now();
  let reported = started;
  let stable = 0;
  let answers = 0;
  let lastScreen = "";
  const look = async (): Promise<StartupResult | null> => {
    const pane = await input.terminal.pane(input.id);
    // A dead pane is kept with its final screen (remain-on-exit), so the reason it exited is readable.
    const screen = pane ? (await input.terminal.screen(input.id)) ?? lastScreen : lastScreen;
    lastScreen = screen;
    const state = adapter.classifyScreen(screen);
    // Grok prints why it refused to start its sandbox (write_scope read-only) and exits: once it exited,
    // report that cause. History is read too: a screen clear racing the message can push a line into it.
    const refusal = adapter.sandboxRefusal;
    if (refusal && (!pane || pane.paneDead)) {
      const cause = refusal.cause((await input.terminal.screen(input.id, HISTORY)) ?? screen);
      if (cause) return { status: "blocked", reason: `${refusal.code}: ${cause}` };
    }
    if (!pane || pane.paneDead) {
      const why = state.kind === "blocked" ? state.reason : "harness_exited";
      return { status: "blocked", reason: why };
    }
    if (state.kind === "ready") {
      if (++stable >= STABLE_READS) return { status: "ready", reason: "input_accepted" };
    } else {
      stable = 0;
    }
    if (state.kind === "blocked") {
      const keys = adapter.answerStartupDialog(screen, options.trustProject);
      if (keys && answers < MAX_ANSWERS) {
        answers++;
        await input.steps(keys);
      } else {
        return { status: "blocked", reason: state.reason };
      }
    }
    if (state.kind === "exited") return { status: "blocked", reason: "harness_exited" };
    if (options.onWait && Date.now() - reported >= REPORT_EVERY_MS) {
      reported = Date.now();
      await options.onWait(reported - started, state.kind === "blocked" ? `blocked:${state.reason}` : state.kind);
    }
    return null;
  };
  const out = await waitUntil(look, {
    timeoutMs: options.timeoutMs ?? startupTimeoutMs(input.terminal.config),
    intervalMs: POLL_MS,
  });
  return out.status === "done" && out.value ? out.value : { status: "blocked", reason: "startup_timeout" };
}
