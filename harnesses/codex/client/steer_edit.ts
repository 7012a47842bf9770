/**
 * The text edits of `$CODEX_HOME/hooks.json` for Codex steer: only aiterm's two groups are added,
 * replaced in place or removed; other hooks, their order and bytes stay.
 */
import { join } from "node:path";
import { CODEX_STEER_HOOK_NAMES } from "./steer_state.ts";
import {
  addMember,
  appendArrayItem,
  commandLine,
  jsonEqual,
  type JsonMember,
  type JsonNode,
  JsonShapeError,
  memberOf,
  parseJsonSpans,
  removeArrayItem,
  removeMember,
  replaceNode,
  splitCommandLine,
} from "../../common/client/mod.ts";
import { type ServerCommand } from "../../common/client/mod.ts";

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

// ---------------------------------------------------------------------------------------------
// hooks.json text edits: one change per pass over a fresh parse, until nothing is left to change.

const MAX_PASSES = 64;

function converge(text: string, step: (text: string, root: JsonNode) => string | null): string {
  let cur = text;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const root = parseJsonSpans(cur, { jsonc: false });
    if (root.kind !== "object") throw new JsonShapeError("the top level is not a JSON object");
    const next = step(cur, root);
    if (next === null) return cur;
    cur = next;
  }
  throw new Error("hook edit did not settle");
}

function hooksOf(root: JsonNode): JsonNode | null {
  const m = memberOf(root, "hooks");
  if (!m) return null;
  if (m.node.kind !== "object") throw new JsonShapeError('"hooks" is not a JSON object');
  return m.node;
}

function liveEvents(hooks: JsonNode): JsonMember[] {
  return (hooks.members ?? []).filter((m) => memberOf(hooks, m.key) === m);
}

function handlersOf(group: JsonNode): JsonNode | null {
  if (group.kind !== "object") return null;
  const m = memberOf(group, "hooks");
  return m && m.node.kind === "array" ? m.node : null;
}

/** Removes group `index` of an event; an emptied event key goes too. */
function dropGroup(text: string, hooks: JsonNode, event: JsonMember, index: number): string {
  if ((event.node.items ?? []).length > 1) return removeArrayItem(text, event.node, index);
  return removeMember(text, hooks, event);
}

/**
 * Adds (or brings up to date) aiterm's two groups in the text of Codex's hooks.json. An existing
 * aiterm group keeps its place (Codex's approval key contains the position); an identical one is
 * left alone, so an unchanged install returns the same text. aiterm handlers elsewhere (another
 * group, another event, twice) are removed. Throws JsonSyntaxError / JsonShapeError.
 */
export function addCodexSteerHooks(text: string, base: ServerCommand, os: string): string {
  const want = CODEX_STEER_SPECS.map((spec) => ({ spec, group: codexSteerGroup(spec, base, os) }));
  const fresh = () => Object.fromEntries(want.map((w) => [w.spec.event, [w.group]]));
  if (text.trim() === "") return JSON.stringify({ hooks: fresh() }, null, 2) + "\n";
  return converge(text, (text, root) => {
    const hooks = hooksOf(root);
    if (!hooks) return addMember(text, root, "hooks", fresh());
    const slots = new Map<string, JsonNode>();
    for (const event of liveEvents(hooks)) {
      if (event.node.kind !== "array") {
        if (want.some((w) => w.spec.event === event.key)) {
          throw new JsonShapeError(`"hooks.${event.key}" is not a JSON array`);
        }
        continue;
      }
      for (const [gi, group] of (event.node.items ?? []).entries()) {
        const handlers = handlersOf(group);
        if (!handlers) continue;
        const names = (handlers.items ?? []).map((h) => codexSteerHookName(h.value, os));
        const ours = names.filter((n) => n !== null);
        if (ours.length === 0) continue;
        const home = want.find((w) => w.spec.name === ours[0])!.spec.event;
        if (ours.length === 1 && names.length === 1 && home === event.key && !slots.has(ours[0]!)) {
          slots.set(ours[0]!, group);
          continue;
        }
        if (ours.length === names.length) return dropGroup(text, hooks, event, gi);
        return removeArrayItem(text, handlers, names.findIndex((n) => n !== null));
      }
    }
    for (const w of want) {
      const slot = slots.get(w.spec.name);
      if (slot) {
        if (!jsonEqual(slot.value, w.group)) return replaceNode(text, slot, w.group);
        continue;
      }
      const event = memberOf(hooks, w.spec.event);
      if (event && event.node.kind === "array") return appendArrayItem(text, event.node, w.group);
      return addMember(text, hooks, w.spec.event, [w.group]);
    }
    return null;
  });
}

/**
 * Removes every aiterm handler from the text of Codex's hooks.json (whole groups when they hold only
 * ours, an event key when its array empties). Returns the new text and how many handlers went.
 */
export function removeCodexSteerHooks(text: string, os: string): { text: string; removed: number } {
  if (text.trim() === "") return { text, removed: 0 };
  let removed = 0;
  const out = converge(text, (text, root) => {
    const hooks = hooksOf(root);
    if (!hooks) return null;
    for (const event of liveEvents(hooks)) {
      if (event.node.kind !== "array") continue;
      for (const [gi, group] of (event.node.items ?? []).entries()) {
        const handlers = handlersOf(group);
        if (!handlers) continue;
        const names = (handlers.items ?? []).map((h) => codexSteerHookName(h.value, os));
        const ours = names.filter((n) => n !== null).length;
        if (ours === 0) continue;
        removed += ours === names.length ? ours : 1;
        if (ours === names.length) return dropGroup(text, hooks, event, gi);
        return removeArrayItem(text, handlers, names.findIndex((n) => n !== null));
      }
    }
    return null;
  });
  return { text: out, removed };
}
