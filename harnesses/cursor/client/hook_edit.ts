/**
 * aiterm's parent hook in Cursor's `hooks.json` and the text edits that add or remove it: pure
 * functions over file text. Ownership is decided by the entry alone: a `command` that contains
 * ` hook cursor-parent`.
 */
import {
  addHooksStep,
  addMember,
  commandLine,
  converge,
  dropElement,
  freshHooks,
  hooksObject,
  type JsonNode,
  JsonShapeError,
  liveMembers,
  memberOf,
  type ServerCommand,
  type WantedHook,
} from "../../common/client/mod.ts";

/** The `aiterm-mcp hook <name>` name installed into Cursor (it reads hook_event_name itself). */
export const CURSOR_HOOK_NAME = "cursor-parent";
/** The Cursor events it is installed for. */
export const CURSOR_HOOK_EVENTS = ["afterMCPExecution", "postToolUse"] as const;
const CURSOR_MARK = ` hook ${CURSOR_HOOK_NAME}`;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** True when a Cursor hook entry is aiterm's. */
export function isCursorHookEntry(entry: unknown): boolean {
  return isObject(entry) && typeof entry.command === "string" && entry.command.includes(CURSOR_MARK);
}

/** The entry aiterm writes for both Cursor events. */
export function cursorHookEntry(base: ServerCommand, os: string = Deno.build.os): { command: string } {
  return { command: commandLine([base.command, ...base.args, "hook", CURSOR_HOOK_NAME], os) };
}

function cursorVersionCheck(root: JsonNode): JsonNode | null {
  const version = memberOf(root, "version");
  if (version && version.node.value !== 1) {
    throw new JsonShapeError(`"version" is ${JSON.stringify(version.node.value)}; only version 1 is known`);
  }
  return version ? version.node : null;
}

/**
 * Adds (or brings up to date) aiterm's entry in Cursor's `hooks.json` for afterMCPExecution and
 * postToolUse, adding `"version": 1` when missing. Only aiterm's entries are ever changed. Throws
 * JsonSyntaxError / JsonShapeError (also for a version other than 1).
 */
export function addCursorParentHooks(text: string, base: ServerCommand, os: string = Deno.build.os): string {
  const entry = cursorHookEntry(base, os);
  const want: WantedHook[] = CURSOR_HOOK_EVENTS.map((event) => ({ event, slot: event, value: entry }));
  if (text.trim() === "") return JSON.stringify({ version: 1, hooks: freshHooks(want) }, null, 2) + "\n";
  return converge(text, true, (text, root) => {
    if (!cursorVersionCheck(root)) return addMember(text, root, "version", 1);
    return addHooksStep(text, root, want, (event, hooks, slots) => {
      for (const [i, item] of (event.node.items ?? []).entries()) {
        if (!isCursorHookEntry(item.value)) continue;
        if ((CURSOR_HOOK_EVENTS as readonly string[]).includes(event.key) && !slots.has(event.key)) {
          slots.set(event.key, item);
          continue;
        }
        return dropElement(text, { root, hooks, event, dropEmptyHooks: false }, i);
      }
      return null;
    });
  });
}

/**
 * Removes every aiterm entry from the text of Cursor's `hooks.json` (an event key goes when its
 * array empties; `version` and `hooks` stay). Returns the new text and how many entries went.
 */
export function removeCursorParentHooks(text: string): { text: string; removed: number } {
  if (text.trim() === "") return { text, removed: 0 };
  let removed = 0;
  const out = converge(text, true, (text, root) => {
    const hooks = hooksObject(root);
    if (!hooks) return null;
    for (const event of liveMembers(hooks)) {
      if (event.node.kind !== "array") continue;
      const i = (event.node.items ?? []).findIndex((item) => isCursorHookEntry(item.value));
      if (i < 0) continue;
      removed++;
      return dropElement(text, { root, hooks, event, dropEmptyHooks: false }, i);
    }
    return null;
  });
  return { text: out, removed };
}
