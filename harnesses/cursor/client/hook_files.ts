/** aiterm's parent hook in Cursor's `~/.cursor/hooks.json`: its status, install and removal. */
import { join } from "node:path";
import type {
  Env,
  HookFileChange,
  HookFileOptions,
  ParentHookStatus,
  ServerCommand,
  SetupOs,
} from "../../common/client/mod.ts";
import { currentOs, editHookFile, hookFileStatus, isObject, jsonEqual, SetupFailure } from "../../common/client/mod.ts";
import { splitCommandLine } from "../../common/client/mod.ts";
import {
  addCursorParentHooks,
  CURSOR_HOOK_EVENTS,
  cursorHookEntry,
  isCursorHookEntry,
  removeCursorParentHooks,
} from "./hook_edit.ts";

/** Cursor's user hooks file. */
export function cursorHooksPath(home: string): string {
  return join(home, ".cursor", "hooks.json");
}

/** The state of aiterm's Cursor hooks in `~/.cursor/hooks.json` (read-only; never throws). */
export function cursorParentHookStatus(home: string, env: Env, os: SetupOs = currentOs()): ParentHookStatus {
  const path = cursorHooksPath(home);
  return hookFileStatus({
    path,
    jsonc: true,
    events: CURSOR_HOOK_EVENTS,
    check(doc) {
      if (doc.version !== undefined && doc.version !== 1) {
        throw new SetupFailure("config_invalid", `${path} has version ${JSON.stringify(doc.version)}, not 1`);
      }
    },
    entries(doc, event) {
      const hooks = isObject(doc.hooks) ? doc.hooks : {};
      const entries = Array.isArray(hooks[event]) ? hooks[event] as unknown[] : [];
      return (entries.filter(isCursorHookEntry) as { command: string }[]).map((entry) => {
        const argv = splitCommandLine(entry.command, os).slice(0, -2);
        const base = { command: argv[0] ?? "", args: argv.slice(1) };
        return { argv, wellFormed: jsonEqual(entry, cursorHookEntry(base, os)) };
      });
    },
    blocker: (doc, problems) =>
      isObject(doc) && doc.version === undefined && problems.size === 0
        ? { code: "parent_hooks_outdated", reason: `${path} has no "version": 1; run aiterm-mcp setup` }
        : null,
  }, env);
}

/** Adds aiterm's Cursor hooks to `~/.cursor/hooks.json`. Throws like {@link installClaudeParentHooks}. */
export function installCursorParentHooks(
  server: ServerCommand,
  options: HookFileOptions & { os?: SetupOs },
): Promise<HookFileChange> {
  return editHookFile(
    cursorHooksPath(options.home),
    true,
    options.dryRun,
    (text) => ({ text: addCursorParentHooks(text, server, options.os ?? currentOs()) }),
  );
}

/** Removes only aiterm's Cursor hooks (backup kept). Throws like {@link installClaudeParentHooks}. */
export function uninstallCursorParentHooks(options: HookFileOptions): Promise<HookFileChange> {
  return editHookFile(cursorHooksPath(options.home), true, options.dryRun, removeCursorParentHooks);
}
