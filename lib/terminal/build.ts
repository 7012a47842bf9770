/**
 * The terminal service over the state root the environment names: how every composition root (the
 * server's lib/app.ts, aiterm-wait's lib/wait_cli.ts, the integration tests) builds it, so the state
 * layout, the multiplexer and its server record are chosen in one place.
 */
import type { Config } from "../../base/config.ts";
import { defaultStateRoot, selectMultiplexer } from "../../platform/mod.ts";
import { StateLayout } from "../../state/mod.ts";
import { Terminal } from "./terminal.ts";

/** Options for {@link buildTerminal}. */
export interface BuildTerminalOptions {
  /** The program's environment (state root, PATH, `env_vars` values). */
  env: Record<string, string>;
  /** The program's settings, read once by its root. */
  config: Config;
  /** Default cwd for new sessions. */
  cwd: string;
  /** Environment of tmux client processes (and so of a server they start); default: this process's. */
  muxEnv?: Record<string, string>;
}

/** Builds the terminal service. Starts no process. */
export function buildTerminal(options: BuildTerminalOptions): Terminal {
  const { env, config } = options;
  const layout = new StateLayout(defaultStateRoot(env, config.stateDir));
  const mux = selectMultiplexer({
    socketPath: layout.socketPath,
    scratchDir: layout.scratchDir,
    serverRecordPath: layout.tmuxServerRecord,
    config,
    ...(options.muxEnv ? { env: options.muxEnv } : {}),
  });
  return new Terminal({ mux, layout, env, defaultCwd: options.cwd, config });
}
