/** Builds the concrete dependencies once, from the environment. main.ts is the only caller. */
import { buildTerminal } from "./terminal/mod.ts";
import type { ToolDeps } from "./mcp/mod.ts";
import { VERSION } from "../base/version.ts";
import { runtimeCodeFor, RuntimeErrorRecorder, WriteQueue } from "./errors_store/mod.ts";
import { type CodexQueueFn, DeliveryStore, type HookStatus, ParentDeliveryManager } from "./agent/delivery/mod.ts";
import { harnessBinary, resolveBinary } from "../harnesses/mod.ts";
import { claudeParentHookStatus, cursorParentHookStatus } from "../setup/parent_hooks.ts";
import { RemoteRelay } from "./mcp/mod.ts";
import { ModelCatalogs, TranscriptReaders } from "./agent/mod.ts";
import type { Config } from "../base/config.ts";
import { addToCodexQueue } from "./agent/delivery/codex_queue.ts";
import { codexHomeOf, codexHookStateDir, readSelection } from "./agent/delivery/codex_steer.ts";

/** Options for {@link buildDeps}. */
export interface BuildDepsOptions {
  env: Record<string, string>;
  cwd: string;
  /** The program's settings, read once by its root (base/config.ts loadConfig). */
  config: Config;
}

/** Hook status without paths (diagnostics never shows paths): the reason code and what to do. */
function statusOf(s: { ready: boolean; reason_code: string | null }): HookStatus {
  if (s.ready) return { ready: true, reason: null };
  const fix = s.reason_code === "claude_hooks_disabled"
    ? "disableAllHooks is set in Claude Code's settings"
    : "run aiterm-mcp setup";
  return { ready: false, reason: `${s.reason_code ?? "parent_hooks_missing"}: ${fix}` };
}

/** The dependency graph for the server. Starts no process; starts the log retention sweep (an unref'd timer). */
export function buildDeps(options: BuildDepsOptions): ToolDeps {
  const env = options.env;
  const config = options.config;
  const terminal = buildTerminal({ env, config, cwd: options.cwd });
  const layout = terminal.layout;
  // The process's state lives in these objects, built once here (no module-level caches).
  const transcripts = new TranscriptReaders();
  const relay = new RemoteRelay({ terminal, env, version: VERSION, sshConfig: config.sshConfig });
  const runtimeErrors = RuntimeErrorRecorder.fromConfig(layout.root, config.errorReporter, { queue: new WriteQueue() });
  // While this process runs, every session's log stays within its cap and a stopped writer is restarted (counted).
  const restarted = runtimeCodeFor("LOG_WRITER_RESTARTED");
  terminal.logs.onRestart = () => void (restarted && runtimeErrors.record(restarted).catch(() => {}));
  terminal.logs.start();
  const home = env.HOME ?? env.USERPROFILE ?? "";
  const common = {
    terminal,
    env,
    defaultCwd: options.cwd,
    claudeHooks: async () => statusOf(await claudeParentHookStatus(home, env)),
    cursorHooks: async () => statusOf(await cursorParentHookStatus(home, env)),
    codexQueue: addToCodexQueue as CodexQueueFn,
    codexBin: () => Promise.resolve(resolveBinary(harnessBinary("codex-cli"), env)),
    codexSteer: async () =>
      (await readSelection(codexHookStateDir(env), codexHomeOf(env)))?.state === "enabled" ? "enabled" : "not_enabled",
  };
  const delivery = new ParentDeliveryManager({ ...common, store: new DeliveryStore(layout.root) });
  const remoteDelivery = new ParentDeliveryManager({
    ...common,
    store: new DeliveryStore(layout.root, "remote-"),
    access: relay.childAccess(),
  });
  return {
    terminal,
    env,
    version: VERSION,
    cwd: options.cwd,
    runtimeErrors,
    delivery,
    remoteDelivery,
    relay,
    transcripts,
    catalogs: new ModelCatalogs(),
  };
}
