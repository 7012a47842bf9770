/**
 * aiterm's parent hooks in Claude Code's user settings (`~/.claude/settings.json`,
 * `$CLAUDE_CONFIG_DIR/settings.json` when set): their status, install and removal, and the version
 * check (the hooks need a Claude Code that takes `args` and `asyncRewake`).
 */
import { join } from "node:path";
import { runProcess } from "../../../platform/mod.ts";
import {
  editHookFile,
  type Env,
  type HookFileChange,
  type HookFileOptions,
  hookFileStatus,
  isObject,
  jsonEqual,
  type ParentHookStatus,
  type ServerCommand,
  SetupFailure,
  versionAtLeast,
} from "../../common/client/mod.ts";
import {
  addClaudeParentHooks,
  CLAUDE_HOOK_SPECS,
  claudeHookGroup,
  claudeHookName,
  removeClaudeParentHooks,
} from "./hook_edit.ts";

/** The oldest Claude Code whose command hooks take `args` and `asyncRewake` the way aiterm uses them. */
export const CLAUDE_MIN_HOOK_VERSION = "2.1.259";

/** Claude Code's user settings file (`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`). */
export function claudeSettingsPath(env: Env, home: string): string {
  return join(env.CLAUDE_CONFIG_DIR || join(home, ".claude"), "settings.json");
}

/** The state of aiterm's Claude hooks in the user settings (read-only; never throws). */
export function claudeParentHookStatus(home: string, env: Env): ParentHookStatus {
  const path = claudeSettingsPath(env, home);
  return hookFileStatus({
    path,
    jsonc: false,
    events: CLAUDE_HOOK_SPECS.map((s) => s.event),
    entries(settings, event) {
      const spec = CLAUDE_HOOK_SPECS.find((s) => s.event === event)!;
      const hooks = isObject(settings.hooks) ? settings.hooks : {};
      const groups = Array.isArray(hooks[event]) ? hooks[event] as unknown[] : [];
      return groups.flatMap((group) =>
        (isObject(group) && Array.isArray(group.hooks) ? group.hooks : [])
          .filter((h) => claudeHookName(h) === spec.name)
          .map((h) => {
            const { command, args } = h as { command: unknown; args: unknown[] };
            const argv = [command, ...args.slice(0, -2)];
            const base = { command: String(command), args: args.slice(0, -2).map(String) };
            return { argv, wellFormed: jsonEqual(group, claudeHookGroup(spec, base)) };
          })
      );
    },
    blocker: (doc) =>
      isObject(doc) && doc.disableAllHooks === true
        ? {
          code: "claude_hooks_disabled",
          reason:
            `${path} sets disableAllHooks: true, so Claude Code runs no hooks (aiterm leaves that setting to you)`,
        }
        : null,
  }, env);
}

/**
 * Adds aiterm's Claude hooks to the user settings (the version check is the caller's). Throws
 * SetupFailure: config_invalid, config_readonly, config_unreadable, config_write_failed.
 */
export function installClaudeParentHooks(server: ServerCommand, options: HookFileOptions): Promise<HookFileChange> {
  return editHookFile(
    claudeSettingsPath(options.env, options.home),
    false,
    options.dryRun,
    (text) => ({ text: addClaudeParentHooks(text, server) }),
  );
}

/** Removes only aiterm's Claude hooks (backup kept). Throws like {@link installClaudeParentHooks}. */
export function uninstallClaudeParentHooks(options: HookFileOptions): Promise<HookFileChange> {
  return editHookFile(claudeSettingsPath(options.env, options.home), false, options.dryRun, removeClaudeParentHooks);
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
  // A CLI that cannot start prints no version: reported below.
  const out = await runProcess(bin, { args: ["--version"], env, clearEnv: true, timeoutMs: 30_000 }).catch(() => null);
  const version = parseClaudeVersion(out?.stdout ?? "");
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
