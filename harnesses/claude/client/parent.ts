/**
 * Claude Code as a parent: recognised by its clientInfo name, it names each tool call in
 * `_meta["claudecode/toolUseId"]`; aiterm's hooks (parent_hooks.ts, installed by `aiterm-mcp setup`)
 * tie that call to its conversation and bring the child's answer back into it.
 */
import { join } from "node:path";
import { AppError } from "../../../base/errors.ts";
import { waitUntil } from "../../../base/wait.ts";
import { type DeliveryStore, ensurePrivateDir, readJsonFile, writeJsonAtomic } from "../../../state/mod.ts";
import { hookReadiness, type HookStatus, type ParentIntegration } from "../../common/client/mod.ts";
import {
  CLAUDE_PARENT,
  claudeHooksDir,
  claudeIndexPath,
  claudePostToolUse,
  claudePrePath,
  type ClaudePreRecord,
  claudePreToolUse,
  claudeSessionEnd,
  claudeStop,
  SESSION_ENDED,
  TOOL_USE_ID,
} from "./parent_hooks.ts";

/** What the Claude Code parent needs from outside: its hook status (setup reads the settings files). */
export interface ClaudeParentOptions {
  hookStatus(): Promise<HookStatus>;
}

/** How long resolve waits for the PreToolUse record of the call (the hook runs just before tools/call). */
const PRE_RECORD_WAIT_MS = 3000;

async function sweep(dir: string, maxAgeMs: number, now: number): Promise<void> {
  try {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      const st = await Deno.stat(path).catch(() => null);
      if (st?.mtime && now - st.mtime.getTime() > maxAgeMs) await Deno.remove(path).catch(() => {});
    }
  } catch {
    // nothing there yet
  }
}

function unavailable(why: string): AppError {
  return new AppError(
    "CLAUDE_PARENT_HOOK_UNAVAILABLE",
    `Cannot deliver a child's answer to Claude Code: ${why}`,
    { suggestion: "nothing was sent to the child; run `aiterm-mcp setup` (Claude Code ≥ 2.1.259), then retry" },
  );
}

/** The Claude Code parent integration. */
export function claudeParent(options: ClaudeParentOptions): ParentIntegration {
  return {
    kind: CLAUDE_PARENT,
    storeDir: "claude-parent-deliveries",
    endedEarlyCode: SESSION_ENDED,
    identify(clientName, meta) {
      if (clientName !== "claude-code") return null;
      const id = meta?.["claudecode/toolUseId"];
      return { kind: CLAUDE_PARENT, ref: typeof id === "string" && id !== "" ? id : null };
    },
    async resolve(call, host) {
      const toolUseId = call.ref;
      if (!toolUseId || !TOOL_USE_ID.test(toolUseId)) {
        throw unavailable('the request carries no _meta["claudecode/toolUseId"]');
      }
      const status = await options.hookStatus();
      if (!status.ready) throw unavailable(`aiterm's hooks are not ready (${status.reason})`);
      // PreToolUse runs before Claude sends tools/call; give its file a moment to land.
      const path = claudePrePath(host.store, toolUseId);
      const pre = (await waitUntil(() => readJsonFile<ClaudePreRecord>(path).catch(() => null), {
        timeoutMs: PRE_RECORD_WAIT_MS,
        intervalMs: 50,
      })).last ?? null;
      if (!pre || pre.tool_use_id !== toolUseId) {
        throw unavailable(
          "aiterm's PreToolUse hook left no record for this call in this server's state root (if AITERM_STATE_DIR " +
            "is set only in the MCP server's env, set it where Claude Code starts too: the hooks run in its environment)",
        );
      }
      // Used once: the hand-over file of this tool call is not needed again.
      await Deno.remove(path).catch(() => {});
      if (pre.agent_id) {
        throw new AppError(
          "CLAUDE_PARENT_AGENT_UNSUPPORTED",
          "Cannot deliver a child's answer to a Claude Code sub-agent or --agent conversation",
          { suggestion: "nothing was sent; dispatch from the main conversation, or use wait_process" },
        );
      }
      return {
        kind: CLAUDE_PARENT,
        destination: { claude_session_id: pre.session_id, tool_use_id: toolUseId },
        key: `claude:${pre.session_id}`,
      };
    },
    async created(rec, host) {
      const toolUseId = rec.destination.tool_use_id;
      if (!toolUseId) return;
      ensurePrivateDir(claudeHooksDir(host.store));
      ensurePrivateDir(join(claudeHooksDir(host.store), "by-tool-use"));
      await writeJsonAtomic(claudeIndexPath(host.store, toolUseId), {
        delivery_id: rec.delivery_id,
        prefix: host.store.prefix,
      });
    },
    readiness: () => hookReadiness(options.hookStatus),
    async prune(store: DeliveryStore, now: number) {
      await sweep(join(claudeHooksDir(store), "pre"), 24 * 3600_000, now);
      await sweep(join(claudeHooksDir(store), "by-tool-use"), 2 * 24 * 3600_000, now);
    },
    instructions: (base) =>
      `${base} As a Claude Code parent you do nothing to get a child's answer: aiterm's hooks (installed by ` +
      "`aiterm-mcp setup`) bring it into this conversation when the child's turn ends, while you go on. Do not " +
      "poll or wait. If the child stops on a dialog (an approval, a sign-in, a usage limit), a notice comes the " +
      "same way: it says what the child waits on and the agent_approval call that answers it; the answer still " +
      "comes by itself after that. Without the hooks a request is refused with CLAUDE_PARENT_HOOK_UNAVAILABLE " +
      "before anything reaches the child.",
    hooks: {
      "claude-pre-tool-use": claudePreToolUse,
      "claude-post-tool-use": (stdin, ctx) => claudePostToolUse(stdin, ctx),
      "claude-session-end": claudeSessionEnd,
      "claude-stop": (stdin, ctx) => claudeStop(stdin, ctx),
    },
  };
}
