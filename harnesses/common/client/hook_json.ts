/**
 * What the hook-file edits of the vendor folders share (harnesses/claude/client/hook_edit.ts,
 * harnesses/cursor/client/hook_edit.ts, harnesses/codex/client/steer_edit.ts): a command line in the
 * shell a client runs hooks with, the edit loop over a `hooks` object, the step that adds aiterm's
 * entries, and the add and removal of aiterm's matcher groups. Every edit goes through json_edit.ts, one entry at a time, so other
 * hooks, other keys, their order, comments and layout keep their bytes.
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

// ---------------------------------------------------------------------------------------------
// The edit loop: find one change, apply it, parse again, until nothing is left to change. One change
// per pass keeps every span valid; each pass strictly reduces what differs, so it ends.

const MAX_PASSES = 64;

/** Applies `step` (one change, or null when nothing is left) until the text settles. */
export function converge(text: string, jsonc: boolean, step: (text: string, root: JsonNode) => string | null): string {
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
export function liveMembers(obj: JsonNode): JsonMember[] {
  return (obj.members ?? []).filter((m) => memberOf(obj, m.key) === m);
}

/**
 * Removes element `index` of the event array `arr` (member `event` of `hooks`); when it was the only
 * element the event key goes too, and with `dropEmptyHooks` an emptied `hooks` leaves the root.
 */
export function dropElement(
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

/** The `hooks` object of a hook file (null when absent). */
export function hooksObject(root: JsonNode): JsonNode | null {
  const m = memberOf(root, "hooks");
  if (!m) return null;
  if (m.node.kind !== "object") throw new JsonShapeError('"hooks" is not a JSON object');
  return m.node;
}

/** One entry aiterm keeps in a hook file: the event it goes under, its slot (one entry each), the value written. */
export interface WantedHook {
  event: string;
  slot: string;
  value: unknown;
}

/** The `hooks` object of a file that has none of them yet: each event with its wanted entries, in order. */
export function freshHooks(want: readonly WantedHook[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const w of want) (out[w.event] ??= []).push(w.value);
  return out;
}

/**
 * One step of an add (for {@link converge}): the `hooks` object is added when missing; a wanted event
 * that is not an array is an error; `scan` looks at each event array and returns an edit (one of our
 * entries in the wrong place, or twice, removed), or null after putting our entries that are in place
 * into `slots`; then the first wanted entry that differs is replaced, or the first missing one added.
 * Returns null when nothing is left to change.
 */
export function addHooksStep(
  text: string,
  root: JsonNode,
  want: readonly WantedHook[],
  scan: (event: JsonMember, hooks: JsonNode, slots: Map<string, JsonNode>) => string | null,
): string | null {
  const hooks = hooksObject(root);
  if (!hooks) return addMember(text, root, "hooks", freshHooks(want));
  const slots = new Map<string, JsonNode>();
  for (const event of liveMembers(hooks)) {
    if (event.node.kind !== "array") {
      if (want.some((w) => w.event === event.key)) throw new JsonShapeError(`"hooks.${event.key}" is not a JSON array`);
      continue;
    }
    const edit = scan(event, hooks, slots);
    if (edit !== null) return edit;
  }
  for (const w of want) {
    const slot = slots.get(w.slot);
    if (slot) {
      if (!jsonEqual(slot.value, w.value)) return replaceNode(text, slot, w.value);
      continue;
    }
    const event = memberOf(hooks, w.event);
    return event ? appendArrayItem(text, event.node, w.value) : addMember(text, hooks, w.event, [w.value]);
  }
  return null;
}

/** The handlers of a matcher group (its `hooks` array), or null when the group has none. */
function groupHandlers(group: JsonNode): JsonNode | null {
  if (group.kind !== "object") return null;
  const m = memberOf(group, "hooks");
  return m && m.node.kind === "array" ? m.node : null;
}

/** A hook file of matcher groups, each holding handlers (Claude Code's settings, Codex's hooks.json). */
export interface GroupHookFile {
  jsonc: boolean;
  /** Which of our hooks a handler is, or null for anyone else's. */
  nameOf: (handler: unknown) => string | null;
  /**
   * A group of ours stays where it is only when it holds our one handler and nothing else (otherwise:
   * only ours, all the same hook).
   */
  oneHandlerPerGroup: boolean;
  /** A removal also removes `hooks` when it empties. */
  dropEmptyHooks: boolean;
}

/**
 * Adds (or brings up to date) aiterm's groups (`want`, one per hook) in the text of a {@link GroupHookFile}.
 * A group of ours in its place stays there, replaced only when it differs; our handlers elsewhere (another
 * group, another event, twice) are removed. Throws JsonSyntaxError / JsonShapeError.
 */
export function addGroupHooks(text: string, want: readonly WantedHook[], file: GroupHookFile): string {
  if (text.trim() === "") return JSON.stringify({ hooks: freshHooks(want) }, null, 2) + "\n";
  return converge(text, file.jsonc, (text, root) =>
    addHooksStep(text, root, want, (event, hooks, slots) => {
      for (const [gi, group] of (event.node.items ?? []).entries()) {
        const handlers = groupHandlers(group);
        if (!handlers) continue;
        const names = (handlers.items ?? []).map((h) => file.nameOf(h.value));
        const ours = names.filter((n) => n !== null);
        if (ours.length === 0) continue;
        const first = ours[0]!;
        const home = want.find((w) => w.slot === first)!.event;
        const onlyOurs = ours.length === names.length && ours.every((n) => n === first) &&
          (!file.oneHandlerPerGroup || names.length === 1);
        if (onlyOurs && home === event.key && !slots.has(first)) {
          slots.set(first, group);
          continue;
        }
        if (ours.length === names.length) return dropElement(text, { root, hooks, event, dropEmptyHooks: false }, gi);
        return removeArrayItem(text, handlers, names.findIndex((n) => n !== null));
      }
      return null;
    }));
}

/**
 * Removes every aiterm handler from the text of a {@link GroupHookFile}: whole groups when they hold
 * only ours, one handler at a time otherwise; an event key goes when its array empties. Returns the new
 * text and how many handlers went.
 */
export function removeGroupHooks(text: string, file: GroupHookFile): { text: string; removed: number } {
  if (text.trim() === "") return { text, removed: 0 };
  let removed = 0;
  const out = converge(text, file.jsonc, (text, root) => {
    const hooks = hooksObject(root);
    if (!hooks) return null;
    for (const event of liveMembers(hooks)) {
      if (event.node.kind !== "array") continue;
      for (const [gi, group] of (event.node.items ?? []).entries()) {
        const handlers = groupHandlers(group);
        if (!handlers) continue;
        const names = (handlers.items ?? []).map((h) => file.nameOf(h.value));
        const ours = names.filter((n) => n !== null).length;
        if (ours === 0) continue;
        if (ours === names.length) {
          removed += ours;
          return dropElement(text, { root, hooks, event, dropEmptyHooks: file.dropEmptyHooks }, gi);
        }
        removed++;
        return removeArrayItem(text, handlers, names.findIndex((n) => n !== null));
      }
    }
    return null;
  });
  return { text: out, removed };
}
