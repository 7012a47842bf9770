/** Builds the concrete dependencies once, from the environment. main.ts is the only caller. */
import { StateLayout } from "./state/mod.ts";
import { Terminal } from "./terminal/mod.ts";
import { defaultStateRoot, selectMultiplexer } from "../platform/mod.ts";
import type { ToolDeps } from "./mcp/mod.ts";
import { VERSION } from "./version.ts";
import { RuntimeErrorRecorder } from "./errors_store/mod.ts";

/** Options for {@link buildDeps}. */
export interface BuildDepsOptions {
  env: Record<string, string>;
  cwd: string;
}

/** The dependency graph for the server. Starts no process. */
export function buildDeps(options: BuildDepsOptions): ToolDeps {
  const layout = new StateLayout(defaultStateRoot(options.env));
  const mux = selectMultiplexer({ socketPath: layout.socketPath, scratchDir: layout.scratchDir });
  const terminal = new Terminal({ mux, layout, env: options.env, defaultCwd: options.cwd });
  return {
    terminal,
    env: options.env,
    version: VERSION,
    cwd: options.cwd,
    runtimeErrors: RuntimeErrorRecorder.fromEnv(options.env),
  };
}
