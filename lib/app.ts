/** Builds the concrete dependencies once, from the environment. main.ts is the only caller. */
import { StateLayout } from "./state/mod.ts";
import { Terminal } from "./terminal/mod.ts";
import { defaultStateRoot, selectMultiplexer } from "../platform/mod.ts";
import type { ToolDeps } from "./mcp/mod.ts";
import { VERSION } from "./version.ts";
import { RuntimeErrorRecorder } from "./errors_store/mod.ts";
import { DeliveryStore, type HookStatus, ParentDeliveryManager } from "./agent/delivery/mod.ts";
import { harnessBinary, resolveBinary } from "../harnesses/mod.ts";
import { claudeParentHookStatus, cursorParentHookStatus } from "../setup/parent_hooks.ts";

/** Options for {@link buildDeps}. */
export interface BuildDepsOptions {
  env: Record<string, string>;
  cwd: string;
}

function statusOf(s: { ready: boolean; reason: string | null }): HookStatus {
  return { ready: s.ready, reason: s.reason };
}

/** The dependency graph for the server. Starts no process. */
export function buildDeps(options: BuildDepsOptions): ToolDeps {
  const env = options.env;
  const layout = new StateLayout(defaultStateRoot(env));
  const mux = selectMultiplexer({ socketPath: layout.socketPath, scratchDir: layout.scratchDir });
  const terminal = new Terminal({ mux, layout, env, defaultCwd: options.cwd });
  const home = env.HOME ?? env.USERPROFILE ?? "";
  const delivery = new ParentDeliveryManager({
    terminal,
    env,
    defaultCwd: options.cwd,
    store: new DeliveryStore(layout.root),
    claudeHooks: async () => statusOf(await claudeParentHookStatus(home, env)),
    cursorHooks: async () => statusOf(await cursorParentHookStatus(home, env)),
    codexQueue: () =>
      Promise.reject(Object.assign(new Error("TEMP"), { kind: "unavailable", code: "CODEX_APP_SERVER_UNAVAILABLE" })),
    codexBin: () => Promise.resolve(resolveBinary(harnessBinary("codex-cli"), env)),
  });
  return {
    terminal,
    env,
    version: VERSION,
    cwd: options.cwd,
    runtimeErrors: RuntimeErrorRecorder.fromEnv(env),
    delivery,
  };
}
