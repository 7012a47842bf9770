/**
 * The integration tier: the terminal service built in the test process, the way lib/app.ts builds it
 * for the server (a private state root, the multiplexer selectMultiplexer picks, the config read once),
 * on real tmux. Faster than spawning a server per test, and it reaches what the MCP layer hides
 * (two services on one state root, as two aiterm processes would be).
 */
import { loadConfig } from "../../base/config.ts";
import { buildTerminal, Terminal } from "../../lib/terminal/mod.ts";
import { StateLayout } from "../../state/mod.ts";
import { defaultStateRoot, type Multiplexer, selectMultiplexer } from "../../platform/mod.ts";
import { makeTestEnv, type TestEnv } from "../../devkit/env.ts";

/** One terminal service over a test environment's state root. */
export interface Service extends AsyncDisposable {
  terminal: Terminal;
}

/** Builds a terminal service over `t`'s state root (another call builds a second one on the same root). */
export function service(t: TestEnv, env: Record<string, string> = {}): Service {
  const allEnv = { ...t.env, ...env };
  // tmux clients (and so the server they start, and every pane) get the test's environment: its own HOME,
  // never the user's startup files.
  const terminal = buildTerminal({ env: allEnv, config: loadConfig(allEnv), cwd: t.root, muxEnv: allEnv });
  return {
    terminal,
    async [Symbol.asyncDispose]() {
      await terminal.shutdown();
    },
  };
}

/**
 * {@link service} built by hand as buildTerminal builds it, with its multiplexer seen through `watch` (a test that
 * counts what the terminal asks the multiplexer: `watch` may replace the methods of the object it is given).
 */
export function watchedService(t: TestEnv, watch: (mux: Multiplexer) => void): Service {
  const env = t.env;
  const config = loadConfig(env);
  const layout = new StateLayout(defaultStateRoot(env, config.stateDir));
  const mux = selectMultiplexer({
    socketPath: layout.socketPath,
    scratchDir: layout.scratchDir,
    serverRecordPath: layout.tmuxServerRecord,
    config,
    env,
  });
  watch(mux);
  const terminal = new Terminal({ mux, layout, env, defaultCwd: t.root, config });
  return { terminal, [Symbol.asyncDispose]: () => terminal.shutdown() };
}

/** A test environment with one service; both are torn down together. */
export async function serviceEnv(): Promise<{ t: TestEnv; svc: Service } & AsyncDisposable> {
  const t = await makeTestEnv();
  const svc = service(t);
  return {
    t,
    svc,
    async [Symbol.asyncDispose]() {
      await svc[Symbol.asyncDispose]();
      await t[Symbol.asyncDispose]();
    },
  };
}
