/**
 * Cursor as a parent: recognised by its clientInfo name; it cannot be woken, so the answer waits
 * `ready` for its hook (the next tool call's postToolUse) or its receive process, whichever claims
 * it first (parent_hooks.ts).
 */
import { AppError } from "../../../base/errors.ts";
import { hookReadiness, type HookStatus, type ParentIntegration } from "../../common/client/mod.ts";
import {
  CURSOR_PARENT,
  cursorParentHook,
  RECEIVE_SUBCOMMAND,
  UNCLAIMED_CODE,
  UNCLAIMED_LIMIT_MS,
} from "./parent_hooks.ts";

/** What the Cursor parent needs from outside: its hook status (setup reads hooks.json). */
export interface CursorParentOptions {
  hookStatus(): Promise<HookStatus>;
}

/** The Cursor parent integration. */
export function cursorParent(options: CursorParentOptions): ParentIntegration {
  return {
    kind: CURSOR_PARENT,
    storeDir: "cursor-parent-deliveries",
    unclaimed: { limitMs: UNCLAIMED_LIMIT_MS, code: UNCLAIMED_CODE },
    receiveSubcommand: RECEIVE_SUBCOMMAND,
    identify(clientName) {
      if (clientName !== "cursor-vscode" && !clientName.startsWith("cursor-vscode ")) return null;
      return { kind: CURSOR_PARENT, ref: String(Deno.pid) };
    },
    async resolve(call) {
      const status = await options.hookStatus();
      if (!status.ready) {
        throw new AppError(
          "CURSOR_PARENT_HOOK_UNAVAILABLE",
          `Cannot deliver a child's answer to Cursor: aiterm's Cursor hooks are not ready (${status.reason})`,
          { suggestion: "nothing was sent to the child; run `aiterm-mcp setup` to install the hooks, then retry" },
        );
      }
      return { kind: CURSOR_PARENT, destination: { conversation_id: null }, key: `cursor:${call.ref}` };
    },
    readiness: () => hookReadiness(options.hookStatus),
    instructions: (base, waiter) =>
      `${base} As a Cursor parent, right after each agent request ${waiter} (do not wait on it): it prints ` +
      "the child's answer when the turn ends, or the answer arrives with your next tool call. If the child " +
      "stops on a dialog, a notice comes the same way (the receive process exits 5): answer it as it says " +
      "(agent_approval), then start the same receive process again for the answer.",
    hooks: { "cursor-parent": cursorParentHook },
  };
}
