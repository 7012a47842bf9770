/**
 * Which AI client called, and where its answer should go, read only from what the client itself
 * sends: the `initialize` clientInfo and each request's `_meta` (never from an id the model passes
 * or from the environment).
 */
import type { ParentContext } from "../agent/delivery/mod.ts";

/** The parent context of one tools/call. */
export function parentContextOf(
  clientName: string | undefined,
  meta: Record<string, unknown> | undefined,
): ParentContext {
  const name = clientName ?? "";
  if (name === "codex-mcp-client") {
    const thread = meta?.threadId;
    return { kind: "codex", threadId: typeof thread === "string" && thread !== "" ? thread : null };
  }
  if (name === "claude-code") {
    const id = meta?.["claudecode/toolUseId"];
    return { kind: "claude", toolUseId: typeof id === "string" && id !== "" ? id : null };
  }
  if (name === "cursor-vscode" || name.startsWith("cursor-vscode ")) {
    return { kind: "cursor", clientKey: String(Deno.pid) };
  }
  return { kind: "other" };
}
