/**
 * The text edits of `$CODEX_HOME/hooks.json` for Codex steer: only aiterm's two groups are added,
 * replaced in place or removed; other hooks, their order and bytes stay.
 */
import { join } from "node:path";
import { CODEX_STEER_HOOK_NAMES } from "./steer_state.ts";
import {
  addGroupHooks,
  commandLine,
  type GroupHookFile,
  removeGroupHooks,
  type ServerCommand,
  splitCommandLine,
} from "../../common/client/mod.ts";

/** One hook aiterm installs into Codex. */
export interface CodexSteerSpec {
  /** The hooks.json event key. */
  event: "PostToolUse" | "Stop";
  /** `aiterm-mcp hook <name>`. */
  name: string;
  /** The event as hooks/list spells it. */
  listEvent: "postToolUse" | "stop";
  /** Seconds (the hook starts an app-server only when an answer may be waiting). */
  timeout: number;
}

/** aiterm's two Codex hooks, in the order they are added. PostToolUse has no matcher: every tool. */
export const CODEX_STEER_SPECS: readonly CodexSteerSpec[] = [
  { event: "PostToolUse", name: CODEX_STEER_HOOK_NAMES.post_tool_use, listEvent: "postToolUse", timeout: 60 },
  { event: "Stop", name: CODEX_STEER_HOOK_NAMES.stop, listEvent: "stop", timeout: 60 },
];

/** Where Codex reads user hooks. */
export function codexHooksPath(codexHome: string): string {
  return join(codexHome, "hooks.json");
}

/** The matcher group aiterm writes for `spec`: one command handler (the shell string Codex runs). */
export function codexSteerGroup(spec: CodexSteerSpec, base: ServerCommand, os: string): Record<string, unknown> {
  const command = commandLine([base.command, ...base.args, "hook", spec.name], os === "windows" ? "windows" : "posix");
  return { hooks: [{ type: "command", command, timeout: spec.timeout }] };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The aiterm hook a handler runs (its command ends with `hook <one of our names>`), or null. */
export function codexSteerHookName(handler: unknown, os: string): string | null {
  if (!isObject(handler) || typeof handler.command !== "string") return null;
  const argv = splitCommandLine(handler.command, os === "windows" ? "windows" : "posix");
  const name = argv.at(-1);
  if (argv.at(-2) !== "hook" || !name) return null;
  return CODEX_STEER_SPECS.some((s) => s.name === name) ? name : null;
}

/** Codex's hooks.json as a hook file: each group of ours holds our one handler (its approval key is the position). */
function codexHooksFile(os: string): GroupHookFile {
  return {
    jsonc: false,
    nameOf: (handler) => codexSteerHookName(handler, os),
    oneHandlerPerGroup: true,
    dropEmptyHooks: false,
  };
}

/**
 * Adds (or brings up to date) aiterm's two groups in the text of Codex's hooks.json. An existing
 * aiterm group keeps its place (Codex's approval key contains the position); an identical one is
 * left alone, so an unchanged install returns the same text. aiterm handlers elsewhere (another
 * group, another event, twice) are removed. Throws JsonSyntaxError / JsonShapeError.
 */
export function addCodexSteerHooks(text: string, base: ServerCommand, os: string): string {
  const want = CODEX_STEER_SPECS.map((spec) => ({
    event: spec.event,
    slot: spec.name,
    value: codexSteerGroup(spec, base, os),
  }));
  return addGroupHooks(text, want, codexHooksFile(os));
}

/**
 * Removes every aiterm handler from the text of Codex's hooks.json (whole groups when they hold only
 * ours, an event key when its array empties). Returns the new text and how many handlers went.
 */
export function removeCodexSteerHooks(text: string, os: string): { text: string; removed: number } {
  return removeGroupHooks(text, codexHooksFile(os));
}
