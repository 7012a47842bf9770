/**
 * The integration tier: the terminal service built in the test process, the way lib/app.ts builds it
 * for the server (a private state root, the multiplexer selectMultiplexer picks, the config read once),
 * on real tmux. Faster than spawning a server per test, and it reaches what the MCP layer hides
 * (two services on one state root, as two aiterm processes would be).
 */
import { loadConfig } from "../../base/config.ts";
import { selectMultiplexer } from "../../platform/mod.ts";
import { StateLayout } from "../../lib/state/mod.ts";
import { Terminal } from "../../lib/terminal/mod.ts";
import { makeTestEnv, type TestEnv } from "../../devkit/env.ts";

/** One terminal service over a test environment's state root. */
export interface Service extends AsyncDisposable {
  terminal: Terminal;
}

/** Builds a terminal service over `t`'s state root (another call builds a second one on the same root). */
export function service(t: TestEnv, env: Record<string, string> = {}): Service {
  const allEnv = { ...t.env, ...env };
  const config = loadConfig(allEnv);
  const layout = new StateLayout(t.stateDir);
  const mux = selectMultiplexer({
    socketPath: layout.socketPath,
    scratchDir: layout.scratchDir,
    serverRecordPath: layout.tmuxServerRecord,
    config,
    // tmux clients (and so the server they start, and every pane) get the test's environment: its own
    // HOME, never the user's startup files.
    env: allEnv,
  });
  const terminal = new Terminal({ mux, layout, env: allEnv, defaultCwd: t.root, config });
  return {
    terminal,
    async [Symbol.asyncDispose]() {
      await terminal.logs.stop();
      await (mux as { close?: () => Promise<void> }).close?.();
    },
  };
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
