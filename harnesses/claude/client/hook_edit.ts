/**
 * aiterm's parent hooks in Claude Code's `settings.json` and the text edits that add or remove them:
 * pure functions over file text. Ownership is decided by the handler alone, never by position: a
 * handler whose `args` end with `["hook", <one of our names>]`.
 */
import { addGroupHooks, type GroupHookFile, removeGroupHooks, type ServerCommand } from "../../common/client/mod.ts";

/** Tool calls after which a Claude parent may be waiting for a child's answer. */
export const CLAUDE_HOOK_MATCHER =
  "^mcp__.+__(pty_send|agent_launch|claude_agent|codex_agent|grok_agent|cursor_agent)$";

/**
 * PostToolUse: those, plus `agent_approval` (and its alias `claude_approval`), whose own PostToolUse brings
 * the answer of a child that stopped on a dialog after the dispatch's hook already carried the notice
 * (Claude runs each once).
 */
export const CLAUDE_POST_MATCHER =
  "^mcp__.+__(pty_send|agent_launch|claude_agent|codex_agent|grok_agent|cursor_agent|agent_approval|claude_approval)$";

/** The `aiterm-mcp hook <name>` names installed into Claude Code (a fixed contract with the handlers). */
export const CLAUDE_HOOK_NAMES = [
  "claude-pre-tool-use",
  "claude-post-tool-use",
  "claude-session-end",
  "claude-stop",
] as const;
/** One of {@link CLAUDE_HOOK_NAMES}. */
export type ClaudeHookName = typeof CLAUDE_HOOK_NAMES[number];

/** One Claude hook aiterm installs. */
export interface ClaudeHookSpec {
  event: "PreToolUse" | "PostToolUse" | "SessionEnd" | "Stop";
  name: ClaudeHookName;
  matcher?: string;
  /** Seconds. */
  timeout: number;
  /** Runs in the background and wakes the model when it exits with 2. */
  asyncRewake?: true;
}

/** The four Claude hooks, in the order they are added to a file that has none. */
export const CLAUDE_HOOK_SPECS: readonly ClaudeHookSpec[] = [
  { event: "PreToolUse", name: "claude-pre-tool-use", matcher: CLAUDE_HOOK_MATCHER, timeout: 30 },
  // Waits for the child's answer for up to a day, then hands it to the parent with exit 2.
  {
    event: "PostToolUse",
    name: "claude-post-tool-use",
    matcher: CLAUDE_POST_MATCHER,
    timeout: 86400,
    asyncRewake: true,
  },
  { event: "SessionEnd", name: "claude-session-end", timeout: 30 },
  // At the end of each parent turn: brings the answer of a child whose notice already used its dispatch's
  // PostToolUse (exits at once when there is none).
  { event: "Stop", name: "claude-stop", timeout: 86400, asyncRewake: true },
];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The matcher group aiterm writes for `spec`, running `base` with `hook <name>` (argv, no shell). */
export function claudeHookGroup(spec: ClaudeHookSpec, base: ServerCommand): Record<string, unknown> {
  const handler: Record<string, unknown> = {
    type: "command",
    command: base.command,
    args: [...base.args, "hook", spec.name],
    timeout: spec.timeout,
  };
  if (spec.asyncRewake) handler.asyncRewake = true;
  return spec.matcher === undefined ? { hooks: [handler] } : { matcher: spec.matcher, hooks: [handler] };
}

/** Which of our hooks a Claude handler is, or null for anyone else's handler. */
export function claudeHookName(handler: unknown): ClaudeHookName | null {
  if (!isObject(handler) || !Array.isArray(handler.args)) return null;
  const args = handler.args;
  const name = args.at(-1);
  return args.length >= 2 && args.at(-2) === "hook" && (CLAUDE_HOOK_NAMES as readonly unknown[]).includes(name)
    ? name as ClaudeHookName
    : null;
}

/** Claude Code's settings as a hook file: several handlers of one hook of ours may share a group. */
const CLAUDE_SETTINGS: GroupHookFile = {
  jsonc: false,
  nameOf: claudeHookName,
  oneHandlerPerGroup: false,
  dropEmptyHooks: true,
};

/**
 * Adds (or brings up to date) aiterm's Claude hooks in the text of `settings.json`. An
 * existing aiterm group keeps its place; an identical one is left alone, so a second run returns
 * the same text. Our handlers found in someone else's group, under the wrong event or twice are
 * removed. Throws JsonSyntaxError / JsonShapeError for a file it cannot edit safely.
 */
export function addClaudeParentHooks(text: string, base: ServerCommand): string {
  const want = CLAUDE_HOOK_SPECS.map((spec) => ({
    event: spec.event,
    slot: spec.name,
    value: claudeHookGroup(spec, base),
  }));
  return addGroupHooks(text, want, CLAUDE_SETTINGS);
}

/**
 * Removes every aiterm handler from the text of Claude's `settings.json` (whole groups when they
 * hold only ours; the event key when its array empties; `hooks` when it empties). Returns the new
 * text and how many handlers went.
 */
export function removeClaudeParentHooks(text: string): { text: string; removed: number } {
  return removeGroupHooks(text, CLAUDE_SETTINGS);
}
