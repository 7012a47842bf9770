/** Builds the concrete dependencies once, from the environment. main.ts is the only caller. */
import { StateLayout } from "./state/mod.ts";
import { Terminal } from "./terminal/mod.ts";
import { defaultStateRoot, selectMultiplexer } from "../platform/mod.ts";
import type { ToolDeps } from "./mcp/mod.ts";
import { VERSION } from "../base/version.ts";
import { runtimeCodeFor, RuntimeErrorRecorder } from "./errors_store/mod.ts";
import { type CodexQueueFn, DeliveryStore, type HookStatus, ParentDeliveryManager } from "./agent/delivery/mod.ts";
import { harnessBinary, resolveBinary } from "../harnesses/mod.ts";
import { claudeParentHookStatus, cursorParentHookStatus } from "../setup/parent_hooks.ts";
import { remoteChildAccess } from "./mcp/relay.ts";
import { addToCodexQueue } from "./agent/delivery/codex_queue.ts";
import { codexHomeOf, codexHookStateDir, readSelection } from "./agent/delivery/codex_steer.ts";

/** Options for {@link buildDeps}. */
export interface BuildDepsOptions {
  env: Record<string, string>;
  cwd: string;
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
  const layout = new StateLayout(defaultStateRoot(env));
  const mux = selectMultiplexer({
    socketPath: layout.socketPath,
    scratchDir: layout.scratchDir,
    serverRecordPath: layout.tmuxServerRecord,
  });
  const terminal = new Terminal({ mux, layout, env, defaultCwd: options.cwd });
  const runtimeErrors = RuntimeErrorRecorder.fromEnv(env);
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
    access: remoteChildAccess({ terminal, env, version: VERSION }),
  });
  return {
    terminal,
    env,
    version: VERSION,
    cwd: options.cwd,
    runtimeErrors,
    delivery,
    remoteDelivery,
  };
}
