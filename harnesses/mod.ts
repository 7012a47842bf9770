/** The harness registry. Imports are static so `deno compile` keeps every adapter. */
import { claude, claudeBinary, claudeClient, claudeParent, claudeParentHookStatus } from "./claude/mod.ts";
import { codex, codexBinary, codexClient, codexParent, type CodexQueueFn } from "./codex/mod.ts";
import { cursor, cursorBinary, cursorClient, cursorParent, cursorParentHookStatus } from "./cursor/mod.ts";
import { grok, grokBinary, grokClient } from "./grok/mod.ts";
import type {
  BinarySpec,
  ClientId,
  ClientIntegration,
  HarnessAdapter,
  HarnessId,
  HookStatus,
  ParentIntegration,
} from "./common/mod.ts";
import { hookStatusOf } from "./common/mod.ts";

export { HARNESS_IDS, identifyParent, OTHER_PARENT, parentStoreDirs, resolveBinary } from "./common/mod.ts";
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
} from "./cursor/mod.ts";
export {
  checkClaudeHookVersion,
  CLAUDE_HOOK_MATCHER,
  CLAUDE_HOOK_NAMES,
  CLAUDE_HOOK_SPECS,
  CLAUDE_MIN_HOOK_VERSION,
  claudeParentHookStatus,
  claudeSettingsPath,
  installClaudeParentHooks,
  parseClaudeVersion,
  removeClaudeParentHooks,
  uninstallClaudeParentHooks,
} from "./claude/mod.ts";
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
} from "./common/mod.ts";
export type { CodexQueueFn } from "./codex/mod.ts";
export { addToCodexQueue, AppServer, CodexDeliveryError, recordOf } from "./codex/mod.ts";
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
} from "./common/mod.ts";
export type {
  ApprovalChoice,
  ApprovalDialog,
  ApprovalKind,
  BinarySpec,
  BlockedReason,
  CatalogModel,
  ConfigureGoal,
  ConfigureRules,
  ConfigureStage,
  ConfigureVerdict,
  HarnessAdapter,
  HarnessId,
  KeyStep,
  LaunchOptions,
  LaunchSpec,
  ModelCatalog,
  ScreenState,
  TranscriptContext,
  TranscriptRules,
  TranscriptTurn,
  TurnParser,
} from "./common/mod.ts";

const BINARIES: Record<HarnessId, BinarySpec> = {
  "claude-code": claudeBinary,
  "codex-cli": codexBinary,
  "grok-cli": grokBinary,
  "cursor-cli": cursorBinary,
};

/** Every harness adapter. */
const ADAPTERS: Partial<Record<HarnessId, HarnessAdapter>> = {
  "claude-code": claude,
  "codex-cli": codex,
  "grok-cli": grok,
  "cursor-cli": cursor,
};

/** The adapter for `id`, or null when this version has none. */
export function getHarness(id: HarnessId): HarnessAdapter | null {
  return ADAPTERS[id] ?? null;
}

/** The binary lookup of any harness id (also those without an adapter yet). */
export function harnessBinary(id: HarnessId): BinarySpec {
  return BINARIES[id];
}

/** Every harness id with its binary lookup, in the public enum order. */
export function listHarnessBinaries(): { id: HarnessId; binary: BinarySpec }[] {
  return (Object.keys(BINARIES) as HarnessId[]).map((id) => ({ id, binary: BINARIES[id] }));
}

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

/** Every client's registration (harnesses/<vendor>/register.ts), by id. */
export const CLIENTS: Record<ClientId, ClientIntegration> = {
  claude: claudeClient,
  codex: codexClient,
  cursor: cursorClient,
  grok: grokClient,
};
