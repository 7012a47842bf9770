/**
 * The parent-hook entries aiterm owns in Claude Code's `settings.json` and Cursor's `hooks.json`, and
 * the text edits that add or remove them. Pure functions over file text: every edit goes through
 * json_edit.ts, one entry at a time, so other hooks, other keys, their order, comments and layout keep
 * their bytes.
 *
 * Ownership is decided by the handler alone, never by position:
 * - Claude: a handler whose `args` end with `["hook", <one of our three names>]`;
 * - Cursor: an entry whose `command` contains ` hook cursor-parent`.
 */
import {
  addMember,
  appendArrayItem,
  jsonEqual,
  type JsonMember,
  type JsonNode,
  JsonShapeError,
  memberOf,
  parseJsonSpans,
  removeArrayItem,
  removeMember,
  replaceNode,
} from "./json_edit.ts";
import type { ServerCommand } from "./server_command.ts";

/** Tool calls after which a Claude parent may be waiting for a child's answer. */
export const CLAUDE_HOOK_MATCHER =
  "^mcp__.+__(pty_send|agent_launch|claude_agent|codex_agent|grok_agent|cursor_agent)$";

/** The `aiterm-mcp hook <name>` names installed into Claude Code (a fixed contract with the handlers). */
export const CLAUDE_HOOK_NAMES = ["claude-pre-tool-use", "claude-post-tool-use", "claude-session-end"] as const;
/** One of {@link CLAUDE_HOOK_NAMES}. */
export type ClaudeHookName = typeof CLAUDE_HOOK_NAMES[number];

/** One Claude hook aiterm installs. */
export interface ClaudeHookSpec {
  event: "PreToolUse" | "PostToolUse" | "SessionEnd";
  name: ClaudeHookName;
  matcher?: string;
  /** Seconds. */
  timeout: number;
  /** Runs in the background and wakes the model when it exits with 2. */
  asyncRewake?: true;
}

/** The three Claude hooks, in the order they are added to a file that has none. */
export const CLAUDE_HOOK_SPECS: readonly ClaudeHookSpec[] = [
  { event: "PreToolUse", name: "claude-pre-tool-use", matcher: CLAUDE_HOOK_MATCHER, timeout: 30 },
  // Waits for the child's answer for up to a day, then hands it to the parent with exit 2.
  {
    event: "PostToolUse",
    name: "claude-post-tool-use",
    matcher: CLAUDE_HOOK_MATCHER,
    timeout: 86400,
    asyncRewake: true,
  },
  { event: "SessionEnd", name: "claude-session-end", timeout: 30 },
];

/** The `aiterm-mcp hook <name>` name installed into Cursor (it reads hook_event_name itself). */
export const CURSOR_HOOK_NAME = "cursor-parent";
/** The Cursor events it is installed for. */
export const CURSOR_HOOK_EVENTS = ["afterMCPExecution", "postToolUse"] as const;
const CURSOR_MARK = ` hook ${CURSOR_HOOK_NAME}`;

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

/** True when a Cursor hook entry is aiterm's. */
export function isCursorHookEntry(entry: unknown): boolean {
  return isObject(entry) && typeof entry.command === "string" && entry.command.includes(CURSOR_MARK);
}

const SAFE_POSIX = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * One command string for `argv` in the shell that runs Cursor's hook commands: POSIX sh quoting; on
 * Windows a PowerShell call (`& 'path' args`, the quoted path started through the call operator).
 */
export function commandLine(argv: string[], os: string = Deno.build.os): string {
  if (os === "windows") {
    const ps = (a: string) => `'${a.replaceAll("'", "''")}'`;
    const [head, ...rest] = argv;
    return ["&", ps(head ?? ""), ...rest.map((a) => SAFE_POSIX.test(a) ? a : ps(a))].join(" ");
  }
  return argv.map((a) => SAFE_POSIX.test(a) ? a : `'${a.replaceAll("'", `'"'"'`)}'`).join(" ");
}

/** Splits a command string written by {@link commandLine} (or typed in the same quoting) back into argv. */
export function splitCommandLine(line: string, os: string = Deno.build.os): string[] {
  const out: string[] = [];
  let cur: string | null = null;
  let i = 0;
  const s = os === "windows" ? line.replace(/^\s*&\s+/, "") : line;
  while (i < s.length) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      if (cur !== null) out.push(cur);
      cur = null;
      i++;
    } else if (c === "'") {
      // POSIX: no escapes inside; PowerShell: '' is one quote.
      let j = i + 1;
      let body = "";
      while (j < s.length) {
        if (s[j] === "'" && os === "windows" && s[j + 1] === "'") {
          body += "'";
          j += 2;
        } else if (s[j] === "'") {
          break;
        } else {
          body += s[j];
          j++;
        }
      }
      cur = (cur ?? "") + body;
      i = j + 1;
    } else if (c === '"') {
      let j = i + 1;
      let body = "";
      while (j < s.length && s[j] !== '"') {
        if (os !== "windows" && s[j] === "\\" && j + 1 < s.length && '"\\$`'.includes(s[j + 1]!)) j++;
        body += s[j];
        j++;
      }
      cur = (cur ?? "") + body;
      i = j + 1;
    } else if (c === "\\" && os !== "windows" && i + 1 < s.length) {
      cur = (cur ?? "") + s[i + 1];
      i += 2;
    } else {
      cur = (cur ?? "") + c;
      i++;
    }
  }
  if (cur !== null) out.push(cur);
  return out;
}

/** The entry aiterm writes for both Cursor events. */
export function cursorHookEntry(base: ServerCommand, os: string = Deno.build.os): { command: string } {
  return { command: commandLine([base.command, ...base.args, "hook", CURSOR_HOOK_NAME], os) };
}

// ---------------------------------------------------------------------------------------------
// The edit loop: find one change, apply it, parse again, until nothing is left to change. One change
// per pass keeps every span valid; each pass strictly reduces what differs, so it ends.

const MAX_PASSES = 64;

function converge(text: string, jsonc: boolean, step: (text: string, root: JsonNode) => string | null): string {
  let cur = text;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const root = parseJsonSpans(cur, { jsonc });
    if (root.kind !== "object") throw new JsonShapeError("the top level is not a JSON object");
    const next = step(cur, root);
    if (next === null) return cur;
    cur = next;
  }
  throw new Error("hook edit did not settle");
}

/** The live members (JSON.parse keeps the last of duplicate keys; earlier ones are dead text). */
function liveMembers(obj: JsonNode): JsonMember[] {
  return (obj.members ?? []).filter((m) => memberOf(obj, m.key) === m);
}

/**
 * Removes element `index` of the event array `arr` (member `event` of `hooks`); when it was the only
 * element the event key goes too, and with `dropEmptyHooks` an emptied `hooks` leaves the root.
 */
function dropElement(
  text: string,
  ctx: { root: JsonNode; hooks: JsonNode; event: JsonMember; dropEmptyHooks: boolean },
  index: number,
): string {
  const { root, hooks, event } = ctx;
  if ((event.node.items ?? []).length > 1) return removeArrayItem(text, event.node, index);
  if (ctx.dropEmptyHooks && (hooks.members ?? []).length === 1) {
    return removeMember(text, root, memberOf(root, "hooks")!);
  }
  return removeMember(text, hooks, event);
}

function hooksObject(root: JsonNode): JsonNode | null {
  const m = memberOf(root, "hooks");
  if (!m) return null;
  if (m.node.kind !== "object") throw new JsonShapeError('"hooks" is not a JSON object');
  return m.node;
}

/** Handlers of a Claude matcher group (the `hooks` array), or null when the group has none. */
function groupHandlers(group: JsonNode): JsonNode | null {
  if (group.kind !== "object") return null;
  const m = memberOf(group, "hooks");
  return m && m.node.kind === "array" ? m.node : null;
}

/**
 * Adds (or brings up to date) aiterm's three Claude hooks in the text of `settings.json`. An
 * existing aiterm group keeps its place; an identical one is left alone, so a second run returns
 * the same text. Our handlers found in someone else's group, under the wrong event or twice are
 * removed. Throws JsonSyntaxError / JsonShapeError for a file it cannot edit safely.
 */
export function addClaudeParentHooks(text: string, base: ServerCommand): string {
  const want = CLAUDE_HOOK_SPECS.map((spec) => ({ spec, group: claudeHookGroup(spec, base) }));
  if (text.trim() === "") {
    return JSON.stringify({ hooks: Object.fromEntries(want.map((w) => [w.spec.event, [w.group]])) }, null, 2) + "\n";
  }
  return converge(text, false, (text, root) => {
    const hooks = hooksObject(root);
    if (!hooks) return addMember(text, root, "hooks", Object.fromEntries(want.map((w) => [w.spec.event, [w.group]])));
    const slots = new Map<ClaudeHookName, JsonNode>();
    for (const event of liveMembers(hooks)) {
      if (event.node.kind !== "array") {
        if (want.some((w) => w.spec.event === event.key)) {
          throw new JsonShapeError(`"hooks.${event.key}" is not a JSON array`);
        }
        continue;
      }
      for (const [gi, group] of (event.node.items ?? []).entries()) {
        const handlers = groupHandlers(group);
        if (!handlers) continue;
        const names = (handlers.items ?? []).map((h) => claudeHookName(h.value));
        const ours = names.filter((n) => n !== null);
        if (ours.length === 0) continue;
        const first = ours[0]!;
        const home = want.find((w) => w.spec.name === first)!.spec.event;
        const onlyOurs = ours.length === names.length && ours.every((n) => n === first);
        if (onlyOurs && home === event.key && !slots.has(first)) {
          slots.set(first, group);
          continue;
        }
        if (ours.length === names.length) return dropElement(text, { root, hooks, event, dropEmptyHooks: false }, gi);
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
      return event ? appendArrayItem(text, event.node, w.group) : addMember(text, hooks, w.spec.event, [w.group]);
    }
    return null;
  });
}

/**
 * Removes every aiterm handler from the text of Claude's `settings.json` (whole groups when they
 * hold only ours; the event key when its array empties; `hooks` when it empties). Returns the new
 * text and how many handlers went.
 */
export function removeClaudeParentHooks(text: string): { text: string; removed: number } {
  if (text.trim() === "") return { text, removed: 0 };
  let removed = 0;
  const out = converge(text, false, (text, root) => {
    const hooks = hooksObject(root);
    if (!hooks) return null;
    for (const event of liveMembers(hooks)) {
      if (event.node.kind !== "array") continue;
      for (const [gi, group] of (event.node.items ?? []).entries()) {
        const handlers = groupHandlers(group);
        if (!handlers) continue;
        const names = (handlers.items ?? []).map((h) => claudeHookName(h.value));
        const ours = names.filter((n) => n !== null).length;
        if (ours === 0) continue;
        if (ours === names.length) {
          removed += ours;
          return dropElement(text, { root, hooks, event, dropEmptyHooks: true }, gi);
        }
        removed++;
        return removeArrayItem(text, handlers, names.findIndex((n) => n !== null));
      }
    }
    return null;
  });
  return { text: out, removed };
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
  const fresh = () => Object.fromEntries(CURSOR_HOOK_EVENTS.map((e) => [e, [entry]]));
  if (text.trim() === "") return JSON.stringify({ version: 1, hooks: fresh() }, null, 2) + "\n";
  return converge(text, true, (text, root) => {
    if (!cursorVersionCheck(root)) return addMember(text, root, "version", 1);
    const hooks = hooksObject(root);
    if (!hooks) return addMember(text, root, "hooks", fresh());
    const slots = new Map<string, JsonNode>();
    for (const event of liveMembers(hooks)) {
      if (event.node.kind !== "array") {
        if ((CURSOR_HOOK_EVENTS as readonly string[]).includes(event.key)) {
          throw new JsonShapeError(`"hooks.${event.key}" is not a JSON array`);
        }
        continue;
      }
      for (const [i, item] of (event.node.items ?? []).entries()) {
        if (!isCursorHookEntry(item.value)) continue;
        if ((CURSOR_HOOK_EVENTS as readonly string[]).includes(event.key) && !slots.has(event.key)) {
          slots.set(event.key, item);
          continue;
        }
        return dropElement(text, { root, hooks, event, dropEmptyHooks: false }, i);
      }
    }
    for (const name of CURSOR_HOOK_EVENTS) {
      const slot = slots.get(name);
      if (slot) {
        if (!jsonEqual(slot.value, entry)) return replaceNode(text, slot, entry);
        continue;
      }
      const event = memberOf(hooks, name);
      return event ? appendArrayItem(text, event.node, entry) : addMember(text, hooks, name, [entry]);
    }
    return null;
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
