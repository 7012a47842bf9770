/** Builds the concrete dependencies once, from the environment. main.ts is the only caller. */
import { buildTerminal } from "./terminal/mod.ts";
import { DeliveryStore } from "../state/mod.ts";
import type { ToolDeps } from "./mcp/mod.ts";
import { VERSION } from "../base/version.ts";
import { runtimeCodeFor, RuntimeErrorRecorder, WriteQueue } from "./errors_store/mod.ts";
import { ParentDeliveryManager } from "./agent/delivery/mod.ts";
import { type CallLimits, callLimitsFor, type ParentIntegration, parentStoreDirs } from "../harnesses/clients/mod.ts";
import { RemoteRelay } from "./mcp/mod.ts";
import { ModelCatalogs, TranscriptReaders } from "./agent/mod.ts";
import type { Config } from "../base/config.ts";

/** Options for {@link buildDeps}. */
export interface BuildDepsOptions {
  env: Record<string, string>;
  cwd: string;
  /** The program's settings, read once by its root (base/config.ts loadConfig). */
  config: Config;
  /** The AI clients as parents (harnesses/mod.ts parentIntegrations, with their hook status readers). */
  parents: readonly ParentIntegration[];
}

/** The dependency graph for the server. Starts no process; starts the log retention sweep (an unref'd timer). */
export function buildDeps(options: BuildDepsOptions): ToolDeps {
  const env = options.env;
  const config = options.config;
  const terminal = buildTerminal({ env, config, cwd: options.cwd });
  // The process's state lives in these objects, built once here (no module-level caches).
  const transcripts = new TranscriptReaders();
  const relay = new RemoteRelay({ terminal, env, version: VERSION, sshConfig: config.sshConfig });
  const runtimeErrors = RuntimeErrorRecorder.fromConfig(terminal.stateRoot, config.errorReporter, {
    queue: new WriteQueue(),
  });
  // While this process runs, every session's log stays within its cap and a stopped writer is restarted (counted).
  const restarted = runtimeCodeFor("LOG_WRITER_RESTARTED");
  terminal.superviseLogs(() => void (restarted && runtimeErrors.record(restarted).catch(() => {})));
  const parents = options.parents;
  const callLimitCache = new Map<string, CallLimits>();
  const dirs = parentStoreDirs(parents);
  const common = { terminal, env, defaultCwd: options.cwd, parents };
  const delivery = new ParentDeliveryManager({ ...common, store: new DeliveryStore(terminal.stateRoot, dirs) });
  const remoteDelivery = new ParentDeliveryManager({
    ...common,
    store: new DeliveryStore(terminal.stateRoot, dirs, "remote-"),
    access: relay.childAccess(),
  });
  return {
    terminal,
    env,
    version: VERSION,
    cwd: options.cwd,
    parents,
    runtimeErrors,
    delivery,
    remoteDelivery,
    relay,
    transcripts,
    catalogs: new ModelCatalogs(),
    callLimits: (name) => {
      // Read once per client name: the client's own settings are read when it starts its server.
      let limits = callLimitCache.get(name ?? "");
      if (!limits) {
        limits = callLimitsFor(name, env, { cutS: config.callLimitS, resultBytes: config.resultLimitBytes });
        callLimitCache.set(name ?? "", limits);
      }
      return limits;
    },
    sendWaitS: config.sendWaitS,
  };
}
