/** The platform layer's way in: multiplexer selection, process facts, shell dialects, OS paths. */
export type { Multiplexer, MuxSession, NewSessionSpec, PasteOptions } from "./multiplexer.ts";
export {
  createTmux,
  newSessionArgs,
  parseSessionList,
  parseTmuxVersion,
  TMUX_FEATURES,
  TMUX_MIN_VERSION,
  tmuxInstallHint,
} from "./tmux.ts";
export {
  foregroundProcess,
  processAlive,
  processArgvBytes,
  processStartIdentity,
  processTree,
  readProcStat,
  sameProcessAlive,
} from "./process.ts";
export type { ForegroundProcess, TreeProcess } from "./process.ts";
export { dialectById, dialectForShell, posixQuote, pwshQuote } from "./shell_dialect.ts";
export type { ShellDialect } from "./shell_dialect.ts";
export { outputSinkCommand, segmentIndex, segmentName } from "./output_sink.ts";
export { COMMAND_END_MARK, integratedShell, PROMPT_MARK } from "./shell_integration.ts";
export type { IntegratedShell } from "./shell_integration.ts";
export { currentUid, defaultStateRoot } from "./paths.ts";
export { findExecutable } from "./which.ts";

import { AppError } from "../lib/errors.ts";
import type { Multiplexer } from "./multiplexer.ts";
import { createTmux } from "./tmux.ts";

/** Options for {@link selectMultiplexer}. */
export interface SelectMultiplexerOptions {
  socketPath: string;
  scratchDir: string;
  env?: Record<string, string>;
}

/** Picks the backend for this OS, once, at start-up. */
export function selectMultiplexer(options: SelectMultiplexerOptions): Multiplexer {
  if (Deno.build.os === "windows") {
    throw new AppError(
      "TMUX_NOT_FOUND",
      "Cannot start a terminal: the psmux backend for native Windows is not built yet",
      {
        suggestion: "run aiterm under WSL2 with tmux",
      },
    );
  }
  const bin = options.env?.AITERM_TMUX_BIN ?? Deno.env.get("AITERM_TMUX_BIN");
  return createTmux({
    socketPath: options.socketPath,
    scratchDir: options.scratchDir,
    ...(bin ? { bin } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
}
