/**
 * What this parent must do next, in words, for one agent receipt (`next`) and for the server's
 * `instructions`. The parent is known (its integration recognised the client's own handshake and
 * `_meta`, harnesses/<vendor>/parent.ts), so the text names exactly one route: a parent whose answer
 * comes by itself does nothing, a parent with a receive process starts it in the background, every
 * other client starts the waiter in the background (on Windows through PowerShell 7 `Start-Process`
 * with `windows_start_process_argument_list`). Some clients show the model only the JSON of
 * structuredContent, so this lives in a field, not only in the text block. What a parent kind says
 * in the instructions, and its receipt warning, come from its integration.
 */
import type { WaitProcess } from "../wait_process.ts";
import type { ParentCall, ReceiptWarning } from "../../../harnesses/clients/mod.ts";
import type { DeliveryReceipt } from "../../../state/mod.ts";

export type { ReceiptWarning };

/** The fields of an agent_launch or agent pty_send receipt the guidance reads. */
export interface GuidedReceipt {
  session_id: string;
  event_cursor: number | null;
  /** pty_send: agent_dispatch or agent_steer. */
  mode?: string;
  joined_event_cursor?: number | null;
  parent_delivery: DeliveryReceipt | null;
  wait_process: WaitProcess | null;
  /** agent_launch only. */
  startup?: { status: string; reason: string };
  initial_prompt?: { status: string; reason: string };
}

/** `next` (always) and `warning` (only when there is one). */
export interface Guidance {
  next: string;
  warning?: ReceiptWarning;
}

function startWaiter(wp: WaitProcess): string {
  return wp.windows_start_process_argument_list !== null
    ? "start wait_process in the background with PowerShell 7: Start-Process -FilePath <executable> " +
      "-ArgumentList <windows_start_process_argument_list> (do not wait on it in this turn)"
    : "start wait_process (executable + args) in the background (do not wait on it in this turn)";
}

/** The guidance of one agent receipt for `parent` (see module doc). */
export function receiptGuidance(parent: ParentCall | undefined, r: GuidedReceipt): Guidance {
  const sid = JSON.stringify(r.session_id);
  if (r.mode === "agent_steer") {
    return {
      next: `Nothing new to start: the text joined running turn ${r.joined_event_cursor ?? "?"}; ` +
        "its answer comes the way that turn's receipt said.",
    };
  }
  if (r.event_cursor === null) {
    if (r.initial_prompt && r.initial_prompt.status === "not_sent") {
      return {
        next: `Nothing was sent (${r.initial_prompt.reason}). Look with pty_observe(session_id:${sid}) or ` +
          "pty_read screen:true, resolve the dialog (agent_approval, or the attach command), then pty_send the prompt.",
      };
    }
    return {
      next: `No turn is running. Send the first task with pty_send(session_id:${sid}, text); ` +
        "it waits for the agent to accept input.",
    };
  }
  const turn = r.event_cursor;
  const read = `pty_read(session_id:${sid}, agent_transcript:true, cursor:${turn})`;
  if (r.parent_delivery && !r.wait_process) {
    return {
      next: `Nothing to do: the answer of turn ${turn} comes to you by itself when it ends ` +
        `(parent_delivery ${r.parent_delivery.delivery_id}); do not poll, wait or read it, go on with other work. ` +
        "If the child stops on a dialog first, a notice comes the same way: answer it as it says " +
        "(agent_approval), and the answer still follows by itself.",
    };
  }
  if (r.parent_delivery && r.wait_process) {
    return {
      next: `Now ${startWaiter(r.wait_process)}: it prints the answer of turn ${turn} when it ends (exit 0). ` +
        "Exit 5: the child stopped on a dialog and it printed a notice; answer it as the notice says " +
        "(agent_approval), then start the same wait_process again for the answer. If you call another tool " +
        "first, the answer or notice arrives with that call instead.",
    };
  }
  const warning = parent?.integration?.warning?.(parent, {
    delivered: r.parent_delivery !== null,
    turnStarted: r.event_cursor !== null,
  });
  const next = r.wait_process
    ? `Now ${startWaiter(r.wait_process)}. Exit 0: read the answer with ${read}; 5: the child is stuck ` +
      "(pty_observe, agent_approval), then start it again; 3: still running, start it again."
    : `Read the answer later with ${read} (it is AGENT_RESULT_PENDING until the turn ends).`;
  return warning ? { next, warning } : { next };
}

/** The server instructions for the calling client (its integration's words; undefined: any other client). */
export function serverInstructions(parent: ParentCall | undefined, os: typeof Deno.build.os): string {
  const base =
    "aiterm gives you persistent terminals (tmux sessions that survive restarts). pty_open a session; pty_send a " +
    "command and its result carries the output (still running: make its next_call); pty_read for more, pty_key for " +
    "control keys, pty_close when done. A human can watch with the attach command " +
    "in the pty_open receipt. Coding agents: agent_launch starts one, pty_send gives it turns; every agent receipt's " +
    "`next` says what to do.";
  const waiter = os === "windows"
    ? "start the receipt's wait_process in the background with PowerShell 7 Start-Process -FilePath <executable> " +
      "-ArgumentList <windows_start_process_argument_list>"
    : "start the receipt's wait_process in the background";
  if (parent?.integration) return parent.integration.instructions(base, waiter);
  return `${base} To learn when a child's turn ends, ${waiter} (do not wait on it in your turn); when it ` +
    "exits 0, read the answer with pty_read(session_id, agent_transcript:true, cursor:event_cursor).";
}
