/**
 * Every AI client as a client of aiterm: the parent integrations the delivery core works over
 * (`parentIntegrations`), the registrations setup runs (`CLIENTS`), and what lib/ and setup/ use of
 * them. Imports are static so `deno compile` keeps every client. The child adapters are
 * harnesses/mod.ts; nothing here is loaded by aiterm-wait.
 */
import {
  checkClaudeHookVersion,
  claudeCallCut,
  claudeClient,
  claudeParent,
  claudeParentHookStatus,
  installClaudeParentHooks,
  removeClaudeParentHooks,
  uninstallClaudeParentHooks,
} from "../claude/client/mod.ts";
import { codexCallCut, codexClient, codexParent, type CodexQueueFn } from "../codex/client/mod.ts";
import {
  cursorClient,
  cursorParent,
  cursorParentHookStatus,
  installCursorParentHooks,
  removeCursorParentHooks,
  uninstallCursorParentHooks,
} from "../cursor/client/mod.ts";
import { grokClient } from "../grok/client/mod.ts";
import { type CallLimits, type ClientCut, limitsOf, OTHER_CLIENT_CUT } from "../common/client/mod.ts";
import {
  type ClientId,
  type ClientIntegration,
  type HookFileChange,
  type HookFileOptions,
  type HookStatus,
  hookStatusOf,
  type ParentHookStatus,
  type ParentIntegration,
  type ServerCommand,
} from "../common/client/mod.ts";

export { identifyParent, OTHER_PARENT, parentStoreDirs } from "../common/client/mod.ts";
export { blockWithin, type CallLimits } from "../common/client/mod.ts";
export { CLAUDE_CLIENT_NAME } from "../claude/client/mod.ts";
export { CODEX_CLIENT_NAME } from "../codex/client/mod.ts";
export { type CodexSteerDetails, type CodexSteerState, runCodexSteer } from "../codex/client/mod.ts";
export {
  CURSOR_HOOK_EVENTS,
  CURSOR_HOOK_NAME,
  cursorHooksPath,
  cursorParentHookStatus,
  installCursorParentHooks,
  RECEIVE_USAGE,
  removeCursorParentHooks,
  runCursorReceive,
  uninstallCursorParentHooks,
} from "../cursor/client/mod.ts";
export {
  checkClaudeHookVersion,
  CLAUDE_HOOK_MATCHER,
  CLAUDE_HOOK_NAMES,
  CLAUDE_HOOK_SPECS,
  CLAUDE_MIN_HOOK_VERSION,
  CLAUDE_POST_MATCHER,
  claudeParentHookStatus,
  claudeSettingsPath,
  installClaudeParentHooks,
  parseClaudeVersion,
  removeClaudeParentHooks,
  uninstallClaudeParentHooks,
} from "../claude/client/mod.ts";
export {
  clientConfigPaths,
  type ClientContext,
  type ClientId,
  type ClientIntegration,
  type ConfigPathKind,
  currentOs,
  type Detection,
  displayCommand,
  fileModeFor,
  homeDir,
  type HookFileChange,
  type HookFileOptions,
  hookStatusOf,
  isReadOnlyFile,
  type ParentHookStatus,
  type ReadBackReport,
  readJsonConfig,
  type RegisterReport,
  REGISTRATION_NAME,
  sameCommand,
  type ServerCommand,
  SetupFailure,
  type SetupOs,
  updateJsonConfig,
  versionAtLeast,
} from "../common/client/mod.ts";
export type { CodexQueueFn } from "../codex/client/mod.ts";
export { addToCodexQueue, AppServer, CodexDeliveryError, recordOf } from "../codex/client/mod.ts";
export type {
  HookContext,
  HookStatus,
  ParentCall,
  ParentHook,
  ParentHost,
  ParentIntegration,
  ParentReadiness,
  PushOutcome,
  ReceiptWarning,
  ResolvedDestination,
} from "../common/client/mod.ts";
/**
 * The parent kinds as the public tool schemas list them (`parent_delivery.parent`), in that order;
 * typed as plain strings because the delivery records keep the kind as a string.
 */
export const PARENT_KINDS: readonly [string, ...string[]] = ["codex", "claude", "cursor"];

/** Every code a parent integration's receipt warning may carry (the public schema's enum). */
export const RECEIPT_WARNING_CODES: readonly [string, ...string[]] = ["CODEX_PARENT_ID_UNAVAILABLE"];

/** What the parent integrations need from the composition root. */
export interface ParentOptions {
  /** The server's environment: the hook status readers look for the clients' hook files under its HOME. */
  env?: Record<string, string>;
  /** Whether aiterm's Claude Code hooks are installed (setup reads the settings files). */
  claudeHooks?: () => Promise<HookStatus>;
  /** Whether aiterm's Cursor hooks are installed. */
  cursorHooks?: () => Promise<HookStatus>;
  /** Codex's queue (tests fake the receiver). */
  codexQueue?: CodexQueueFn;
}

/** Without an environment (a process that only runs hooks) nobody asks for hook status. */
const NOT_READ = () => Promise.resolve({ ready: false, reason: "hook status not read in this process" });

/**
 * Every AI client as a parent, in the order diagnostics lists them. Imports are static (see above);
 * the delivery core (lib/agent/delivery) and the hook entry point work over this list only.
 */
export function parentIntegrations(options: ParentOptions = {}): ParentIntegration[] {
  const env = options.env;
  const home = env?.HOME ?? env?.USERPROFILE ?? "";
  const claudeHooks = options.claudeHooks ??
    (env ? () => Promise.resolve(hookStatusOf(claudeParentHookStatus(home, env))) : NOT_READ);
  const cursorHooks = options.cursorHooks ??
    (env ? () => Promise.resolve(hookStatusOf(cursorParentHookStatus(home, env))) : NOT_READ);
  return [
    claudeParent({ hookStatus: claudeHooks }),
    cursorParent({ hookStatus: cursorHooks }),
    codexParent(options.codexQueue ? { queue: options.codexQueue } : {}),
  ];
}

/** The clients setup registers aiterm in, in the order it handles them. */
export const CLIENT_IDS: readonly ClientId[] = ["claude", "codex", "cursor", "grok"];

/** Every client's registration (harnesses/<vendor>/client/register.ts), by id. */
export const CLIENTS: Record<ClientId, ClientIntegration> = {
  claude: claudeClient,
  codex: codexClient,
  cursor: cursorClient,
  grok: grokClient,
};

/** The clients whose parent hooks setup installs in a hook file of theirs, in the order it handles them. */
export const HOOK_CLIENT_IDS = ["claude", "cursor"] as const satisfies readonly ClientId[];
/** One of {@link HOOK_CLIENT_IDS}. */
export type HookClientId = typeof HOOK_CLIENT_IDS[number];

/** What setup does with one client's parent hook file. */
export interface ParentHookFiles {
  /** Checks the client is new enough for the hooks before an install; returns its version. */
  checkVersion?: (bin: string | null, env: Record<string, string>) => Promise<string>;
  install(server: ServerCommand, options: HookFileOptions): Promise<HookFileChange>;
  uninstall(options: HookFileOptions): Promise<HookFileChange>;
  /** Reads the hook file back. */
  status(home: string, env: Record<string, string>): ParentHookStatus;
  /** Removes aiterm's entries from the file's text (a read-back counts what is left). */
  strip(text: string): { text: string; removed: number };
}

/** Each hook client's hook file, by id (its label is {@link CLIENTS}'s). */
export const PARENT_HOOK_FILES: Record<HookClientId, ParentHookFiles> = {
  claude: {
    checkVersion: checkClaudeHookVersion,
    install: installClaudeParentHooks,
    uninstall: uninstallClaudeParentHooks,
    status: claudeParentHookStatus,
    strip: removeClaudeParentHooks,
  },
  cursor: {
    install: installCursorParentHooks,
    uninstall: uninstallCursorParentHooks,
    status: cursorParentHookStatus,
    strip: removeCursorParentHooks,
  },
};

/** Overrides of the calling client's limits (AITERM_CALL_LIMIT_S, AITERM_RESULT_LIMIT_BYTES); null: the client's own. */
export interface CallLimitOverrides {
  cutS: number | null;
  resultBytes: number | null;
}

/**
 * The limits of the client named `clientName` in initialize (harnesses/<vendor>/client/call_limits.ts), read from
 * the server's environment and the client's own configuration; a user's override wins.
 */
export function callLimitsFor(
  clientName: string | undefined,
  env: Record<string, string | undefined>,
  overrides: CallLimitOverrides = { cutS: null, resultBytes: null },
): CallLimits {
  const name = clientName ?? "";
  const own = claudeCallCut(name, env) ?? codexCallCut(name, env) ?? OTHER_CLIENT_CUT;
  const cut: ClientCut = overrides.cutS !== null
    ? { ...own, cutMs: overrides.cutS * 1000, source: `AITERM_CALL_LIMIT_S=${overrides.cutS}` }
    : own;
  return limitsOf(overrides.resultBytes !== null ? { ...cut, resultBytes: overrides.resultBytes } : cut);
}
