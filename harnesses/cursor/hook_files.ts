/** aiterm's parent hook in Cursor's `~/.cursor/hooks.json`: its status, install and removal. */
import { join } from "node:path";
import {
  currentOs,
  editHookFile,
  type Env,
  failedStatus,
  type HookFileChange,
  type HookFileOptions,
  isObject,
  jsonEqual,
  type ParentHookStatus,
  type Problem,
  problemOf,
  readConfig,
  type ServerCommand,
  SetupFailure,
  type SetupOs,
  splitCommandLine,
  summarize,
} from "../common/mod.ts";
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
  let doc: unknown;
  try {
    doc = readConfig(path, true);
    if (doc !== undefined && !isObject(doc)) throw new SetupFailure("config_invalid", `${path} is not a JSON object`);
    if (isObject(doc) && doc.version !== undefined && doc.version !== 1) {
      throw new SetupFailure("config_invalid", `${path} has version ${JSON.stringify(doc.version)}, not 1`);
    }
  } catch (err) {
    return failedStatus(path, err, CURSOR_HOOK_EVENTS);
  }
  const hooks = isObject(doc) && isObject(doc.hooks) ? doc.hooks : {};
  const problems = new Map<string, Problem>();
  for (const event of CURSOR_HOOK_EVENTS) {
    const entries = Array.isArray(hooks[event]) ? hooks[event] as unknown[] : [];
    const found = (entries.filter(isCursorHookEntry) as { command: string }[]).map((entry) => {
      const argv = splitCommandLine(entry.command, os).slice(0, -2);
      const base = { command: argv[0] ?? "", args: argv.slice(1) };
      return { argv, wellFormed: jsonEqual(entry, cursorHookEntry(base, os)) };
    });
    const problem = problemOf(found, env);
    if (problem) problems.set(event, problem);
  }
  if (isObject(doc) && doc.version === undefined && problems.size === 0) {
    return summarize(path, problems, {
      code: "parent_hooks_outdated",
      reason: `${path} has no "version": 1; run aiterm-mcp setup`,
    });
  }
  return summarize(path, problems, null);
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
