/**
 * Parent hooks: the entries that let a child agent's answer reach the parent AI by itself. Claude
 * Code runs `aiterm-mcp hook claude-…` from `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR` when
 * set); Cursor runs `aiterm-mcp hook cursor-parent` from `~/.cursor/hooks.json`. This module
 * installs, removes and inspects those entries (the handlers themselves live behind the `hook`
 * subcommand). Setup and diagnostics both use it.
 *
 * The hook command is the server command setup registers (the same program; proven by the smoke
 * test) with `hook <name>` appended: the compiled `aiterm-mcp`, or `deno run -A main.ts` from source.
 */
import { isAbsolute, join } from "node:path";
import { findExecutable } from "../platform/mod.ts";
import type { HookStatus } from "../harnesses/mod.ts";
import { type ConfigPathKind, SetupFailure, updateJsonConfig } from "./config_file.ts";
import {
  addClaudeParentHooks,
  addCursorParentHooks,
  CLAUDE_HOOK_SPECS,
  claudeHookGroup,
  claudeHookName,
  CURSOR_HOOK_EVENTS,
  cursorHookEntry,
  isCursorHookEntry,
  removeClaudeParentHooks,
  removeCursorParentHooks,
  splitCommandLine,
} from "./hook_edit.ts";
import { jsonEqual, JsonSyntaxError, parseJsonSpans } from "./json_edit.ts";
import { currentOs, type SetupOs, versionAtLeast } from "./platform_deps.ts";
import type { ServerCommand } from "./server_command.ts";

export {
  CLAUDE_HOOK_MATCHER,
  CLAUDE_HOOK_NAMES,
  CLAUDE_HOOK_SPECS,
  CURSOR_HOOK_EVENTS,
  CURSOR_HOOK_NAME,
} from "./hook_edit.ts";

/** The oldest Claude Code whose command hooks take `args` and `asyncRewake` the way aiterm uses them. */
export const CLAUDE_MIN_HOOK_VERSION = "2.1.259";

type Env = Record<string, string | undefined>;

/** Claude Code's user settings file (`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`). */
export function claudeSettingsPath(env: Env, home: string): string {
  return join(env.CLAUDE_CONFIG_DIR || join(home, ".claude"), "settings.json");
}

/** Cursor's user hooks file. */
export function cursorHooksPath(home: string): string {
  return join(home, ".cursor", "hooks.json");
}

/** Whether aiterm's parent hooks for one client are in place and usable. */
export interface ParentHookStatus {
  /** Every entry present in the installed form, its program exists, and hooks are not disabled. */
  ready: boolean;
  /** Why not ready (a sentence), or null. */
  reason: string | null;
  /**
   * Why not ready, as a code: parent_hooks_missing, parent_hooks_outdated (present, different form),
   * parent_hook_command_missing (the program is gone), claude_hooks_disabled (disableAllHooks),
   * config_invalid (the file cannot be parsed), config_unreadable, or null.
   */
  reason_code: string | null;
  /** The events whose aiterm entry is absent or not usable. */
  missing: string[];
  /** The file that was inspected. */
  config_path: string;
}

const PRIORITY = ["parent_hooks_missing", "parent_hooks_outdated", "parent_hook_command_missing"] as const;
type Problem = typeof PRIORITY[number];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** True when argv's program resolves to an executable and every absolute path in it exists. */
function runnable(argv: unknown[], env: Env): boolean {
  const [program, ...rest] = argv;
  if (typeof program !== "string" || findExecutable(program, env.PATH) === null) return false;
  for (const a of rest) {
    if (typeof a !== "string" || !isAbsolute(a)) continue;
    try {
      Deno.statSync(a);
    } catch {
      return false;
    }
  }
  return true;
}

/** Reads a config as a plain value: undefined when missing; throws SetupFailure config_invalid / config_unreadable. */
function readConfig(path: string, jsonc: boolean): unknown {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new SetupFailure("config_unreadable", `cannot read ${path}: ${(err as Error).message}`);
  }
  text = text.replace(/^\uFEFF/, "");
  if (text.trim() === "") return {};
  try {
    return parseJsonSpans(text, { jsonc }).value;
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new SetupFailure("config_invalid", `${path}: ${err.message}`);
    throw err;
  }
}

/** The problem with one event's aiterm entries (the best of them counts), or null when one is usable. */
function problemOf(found: { argv: unknown[]; wellFormed: boolean }[], env: Env): Problem | null {
  if (found.length === 0) return "parent_hooks_missing";
  const wellFormed = found.filter((f) => f.wellFormed);
  if (wellFormed.length === 0) return "parent_hooks_outdated";
  return wellFormed.some((f) => runnable(f.argv, env)) ? null : "parent_hook_command_missing";
}

function summarize(
  path: string,
  problems: Map<string, Problem>,
  extra: { code: string; reason: string } | null,
): ParentHookStatus {
  const missing = [...problems.keys()];
  for (const code of PRIORITY) {
    const events = missing.filter((e) => problems.get(e) === code);
    if (events.length === 0) continue;
    const what = code === "parent_hooks_missing"
      ? "no aiterm entry"
      : code === "parent_hooks_outdated"
      ? "an aiterm entry in another form than this version installs"
      : "an aiterm entry whose program does not exist";
    return {
      ready: false,
      reason: `${path} has ${what} for ${events.join(", ")}; run aiterm-mcp setup`,
      reason_code: code,
      missing,
      config_path: path,
    };
  }
  if (extra) return { ready: false, reason: extra.reason, reason_code: extra.code, missing, config_path: path };
  return { ready: true, reason: null, reason_code: null, missing, config_path: path };
}

function failedStatus(path: string, err: unknown, events: readonly string[]): ParentHookStatus {
  const code = err instanceof SetupFailure ? err.reasonCode : "config_invalid";
  return { ready: false, reason: (err as Error).message, reason_code: code, missing: [...events], config_path: path };
}

/** The state of aiterm's Claude hooks in the user settings (read-only; never throws). */
export function claudeParentHookStatus(home: string, env: Env): ParentHookStatus {
  const path = claudeSettingsPath(env, home);
  const events = CLAUDE_HOOK_SPECS.map((s) => s.event);
  let doc: unknown;
  try {
    doc = readConfig(path, false);
    if (doc !== undefined && !isObject(doc)) throw new SetupFailure("config_invalid", `${path} is not a JSON object`);
  } catch (err) {
    return failedStatus(path, err, events);
  }
  const settings = isObject(doc) ? doc : {};
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  const problems = new Map<string, Problem>();
  for (const spec of CLAUDE_HOOK_SPECS) {
    const groups = Array.isArray(hooks[spec.event]) ? hooks[spec.event] as unknown[] : [];
    const found = groups.flatMap((group) =>
      (isObject(group) && Array.isArray(group.hooks) ? group.hooks : [])
        .filter((h) => claudeHookName(h) === spec.name)
        .map((h) => {
          const { command, args } = h as { command: unknown; args: unknown[] };
          const argv = [command, ...args.slice(0, -2)];
          const base = { command: String(command), args: args.slice(0, -2).map(String) };
          return { argv, wellFormed: jsonEqual(group, claudeHookGroup(spec, base)) };
        })
    );
    const problem = problemOf(found, env);
    if (problem) problems.set(spec.event, problem);
  }
  const disabled = settings.disableAllHooks === true
    ? {
      code: "claude_hooks_disabled",
      reason: `${path} sets disableAllHooks: true, so Claude Code runs no hooks (aiterm leaves that setting to you)`,
    }
    : null;
  return summarize(path, problems, disabled);
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

/** What an install or removal did to one file. */
export interface HookFileChange {
  outcome: "unchanged" | "written" | "would_write";
  config_path: string;
  /** What `config_path` was before the change. */
  config_path_kind: ConfigPathKind;
  /** The file actually written (a symlink's target). */
  target: string;
  backup_path?: string;
  /** Removal only: how many aiterm entries were (or would be) removed. */
  removed?: number;
}

/** Options for the install and remove functions. */
export interface HookFileOptions {
  env: Env;
  home: string;
  dryRun: boolean;
}

async function edit(
  path: string,
  jsonc: boolean,
  dryRun: boolean,
  fn: (text: string) => { text: string; removed?: number },
): Promise<HookFileChange> {
  let removed: number | undefined;
  const update = await updateJsonConfig(path, ({ text }) => {
    const r = fn(text);
    removed = r.removed;
    return r.text;
  }, { jsonc, dryRun, createMode: 0o600 });
  return {
    outcome: update.outcome,
    config_path: path,
    config_path_kind: update.kind,
    target: update.target,
    ...(update.backup && update.outcome !== "unchanged" ? { backup_path: update.backup } : {}),
    ...(removed !== undefined ? { removed } : {}),
  };
}

/**
 * Adds aiterm's Claude hooks to the user settings (the version check is the caller's). Throws
 * SetupFailure: config_invalid, config_readonly, config_unreadable, config_write_failed.
 */
export function installClaudeParentHooks(server: ServerCommand, options: HookFileOptions): Promise<HookFileChange> {
  return edit(
    claudeSettingsPath(options.env, options.home),
    false,
    options.dryRun,
    (text) => ({ text: addClaudeParentHooks(text, server) }),
  );
}

/** Removes only aiterm's Claude hooks (backup kept). Throws like {@link installClaudeParentHooks}. */
export function uninstallClaudeParentHooks(options: HookFileOptions): Promise<HookFileChange> {
  return edit(claudeSettingsPath(options.env, options.home), false, options.dryRun, removeClaudeParentHooks);
}

/** Adds aiterm's Cursor hooks to `~/.cursor/hooks.json`. Throws like {@link installClaudeParentHooks}. */
export function installCursorParentHooks(
  server: ServerCommand,
  options: HookFileOptions & { os?: SetupOs },
): Promise<HookFileChange> {
  return edit(
    cursorHooksPath(options.home),
    true,
    options.dryRun,
    (text) => ({ text: addCursorParentHooks(text, server, options.os ?? currentOs()) }),
  );
}

/** Removes only aiterm's Cursor hooks (backup kept). Throws like {@link installClaudeParentHooks}. */
export function uninstallCursorParentHooks(options: HookFileOptions): Promise<HookFileChange> {
  return edit(cursorHooksPath(options.home), true, options.dryRun, removeCursorParentHooks);
}

/** The `x.y.z` in `claude --version` output ("2.1.328 (Claude Code)"), or null. */
export function parseClaudeVersion(text: string): string | null {
  return /^\s*v?(\d+\.\d+\.\d+)/m.exec(text)?.[1] ?? null;
}

/**
 * Checks that the Claude Code at `bin` is new enough for aiterm's hooks. Returns its version; throws
 * SetupFailure claude_version_unknown (no CLI, or no version printed) or claude_version_too_old.
 */
export async function checkClaudeHookVersion(bin: string | null, env: Record<string, string>): Promise<string> {
  if (!bin) {
    throw new SetupFailure(
      "claude_version_unknown",
      `the claude CLI was not found, so its version (hooks need ${CLAUDE_MIN_HOOK_VERSION} or later) cannot be checked`,
    );
  }
  let text = "";
  try {
    const out = await new Deno.Command(bin, {
      args: ["--version"],
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(30_000),
    }).output();
    text = new TextDecoder().decode(out.stdout);
  } catch {
    // reported below
  }
  const version = parseClaudeVersion(text);
  if (!version) {
    throw new SetupFailure("claude_version_unknown", `${bin} --version printed no version`);
  }
  if (!versionAtLeast(version, CLAUDE_MIN_HOOK_VERSION)) {
    throw new SetupFailure(
      "claude_version_too_old",
      `Claude Code ${version} is older than ${CLAUDE_MIN_HOOK_VERSION}, the first version whose hooks aiterm uses; ` +
        "update Claude Code and run setup again",
    );
  }
  return version;
}

/** A hook status as the delivery core reads it: no paths (diagnostics never shows paths), the reason code and the fix. */
export function hookStatusOf(s: { ready: boolean; reason_code: string | null }): HookStatus {
  if (s.ready) return { ready: true, reason: null };
  const fix = s.reason_code === "claude_hooks_disabled"
    ? "disableAllHooks is set in Claude Code's settings"
    : "run aiterm-mcp setup";
  return { ready: false, reason: `${s.reason_code ?? "parent_hooks_missing"}: ${fix}` };
}

/** The hook status readers the parent integrations get (harnesses/mod.ts parentIntegrations). */
export function parentHookReaders(env: Record<string, string>): {
  claudeHooks(): Promise<HookStatus>;
  cursorHooks(): Promise<HookStatus>;
} {
  const home = env.HOME ?? env.USERPROFILE ?? "";
  return {
    claudeHooks: () => Promise.resolve(hookStatusOf(claudeParentHookStatus(home, env))),
    cursorHooks: () => Promise.resolve(hookStatusOf(cursorParentHookStatus(home, env))),
  };
}
