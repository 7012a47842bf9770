/** The platform layer's way in: multiplexer selection, process facts, shell dialects, OS paths. */
export type {
  Multiplexer,
  MuxSession,
  NewSessionResult,
  NewSessionSpec,
  PasteIfReady,
  PasteOptions,
  PipeState,
} from "./multiplexer.ts";
export { parseSessionList } from "./pane_lists.ts";
export {
  createTmux,
  newSessionArgs,
  parseTmuxVersion,
  TMUX_FEATURES,
  TMUX_MIN_VERSION,
  tmuxInstallHint,
} from "./tmux/mod.ts";
export {
  foregroundBrief,
  foregroundOf,
  foregroundProcess,
  processAlive,
  processArgvBytes,
  processEnvVar,
  processStartIdentity,
  processTree,
  readInputWaitFacts,
  readProcStat,
  sameProcessAlive,
  sameProcessStat,
} from "./process.ts";
export type { ForegroundBrief, ForegroundProcess, ProcStat, TreeProcess } from "./process.ts";
export { blockedInTerminalRead, classifyInputWait, waitedReadFds } from "./input_wait.ts";
export type { InputWaitFacts, InputWaitVerdict } from "./input_wait.ts";
export { dialectById, dialectForShell, posixQuote, pwshQuote } from "./shell_dialect.ts";
export type { ShellDialect } from "./shell_dialect.ts";
export { tmuxArg, tmuxFormatArg, tmuxTimeFormatArg } from "./tmux/mod.ts";
export { identityHash, scratchOwnerGone, scratchTag, sweepScratch } from "./scratch.ts";
export {
  gapMarkerName,
  outputSinkCommand,
  parseGapMarkerName,
  parseSegmentName,
  segmentIndex,
  segmentName,
  segmentPrefix,
} from "./output_sink.ts";
export type { SegmentFile } from "./output_sink.ts";
export { COMMAND_END_MARK, CONTINUATION_MARK, integratedShell, PROMPT_MARK } from "./shell_integration.ts";
export { classifyInputPrompt, lastIntegrationMark } from "./input_prompt.ts";
export type { PromptFacts, PromptKind } from "./input_prompt.ts";
export { parseSttyModes, readTerminalModes, sttyArgs } from "./terminal_modes.ts";
export type { TerminalModes } from "./terminal_modes.ts";
export type { IntegratedShell } from "./shell_integration.ts";
export { currentUid, defaultStateRoot } from "./paths.ts";
export {
  createPsmux,
  gitBashPath,
  parsePsmuxVersion,
  PSMUX_MIN_VERSION,
  psmuxInstallHint,
  psmuxNamespace,
  psmuxNewSessionArgs,
  psmuxPasteInvocations,
} from "./psmux.ts";
export {
  encodeCommand,
  outputSinkScript,
  parsePwshVersion,
  PWSH_MIN_MAJOR,
  pwshScriptArgv,
  pwshScriptCommandLine,
  resolvePwsh,
  startProcessScript,
} from "./pwsh.ts";
export { findExecutable, programProblem, resolveProgram } from "./which.ts";
export { type OutputMode, type ProcessResult, type RunOptions, runProcess, runProcessSync } from "./run.ts";

import type { Config } from "../base/config.ts";
import type { Multiplexer } from "./multiplexer.ts";
import { createPsmux } from "./psmux.ts";
import { createTmux } from "./tmux/mod.ts";

/** Options for {@link selectMultiplexer}. */
export interface SelectMultiplexerOptions {
  socketPath: string;
  scratchDir: string;
  /** The backend knobs of the program's Config (AITERM_TMUX_BIN, AITERM_TMUX_TRANSPORT, AITERM_PSMUX_BIN). */
  config: Pick<Config, "tmuxBin" | "tmuxTransport" | "psmuxBin">;
  env?: Record<string, string>;
  /** Where the tmux backend records its server's identity (see TmuxOptions.serverRecordPath). */
  serverRecordPath?: string;
}

/** Picks the backend for this OS, once, at start-up. */
export function selectMultiplexer(options: SelectMultiplexerOptions): Multiplexer {
  if (Deno.build.os === "windows") {
    const psmuxBin = options.config.psmuxBin;
    return createPsmux({
      socketPath: options.socketPath,
      scratchDir: options.scratchDir,
      ...(psmuxBin ? { bin: psmuxBin } : {}),
      ...(options.env ? { env: options.env } : {}),
    });
  }
  const bin = options.config.tmuxBin;
  // One long-lived `tmux -C` client carries the commands (ADR 0022); the cli transport spawns tmux per command.
  return createTmux({
    socketPath: options.socketPath,
    scratchDir: options.scratchDir,
    transport: options.config.tmuxTransport,
    ...(options.serverRecordPath ? { serverRecordPath: options.serverRecordPath } : {}),
    ...(bin ? { bin } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
}
export { FileWaker, type WakeReason } from "./file_waker.ts";
export { isCompiled, selfCommand, SERVER_V8_FLAGS, windowsArgumentList } from "./self_command.ts";
export { type ServerStdio, serverStdio } from "./stdio.ts";
