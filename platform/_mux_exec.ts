/** Running a multiplexer client (tmux or psmux): the one process spawn both backends share. */
import { AppError } from "../base/errors.ts";
import { type ProcessResult, runProcess } from "./run.ts";

/** What one multiplexer invocation printed. */
export interface MuxOutput {
  code: number;
  stdout: string;
  stderr: string;
  /** Control transport: which command of the line failed (0-based), when one did. */
  failedAt?: number;
}

/** Options for {@link execMux}. */
export interface ExecMuxOptions {
  /** The program's name in messages (`tmux`, `psmux`). */
  label: string;
  /** Environment for the client (default: inherit). */
  env?: Record<string, string> | undefined;
  /** Return a non-zero exit instead of throwing TMUX_COMMAND_FAILED. */
  allowFail?: boolean | undefined;
  /** The error for a missing binary. */
  notFound: () => AppError;
}

/**
 * Runs `bin argv…` and captures its output. `argv[firstArg]` names the subcommand in errors.
 * @throws {AppError} the notFound error, or TMUX_COMMAND_FAILED on a non-zero exit without allowFail
 */
export async function execMux(
  bin: string,
  argv: string[],
  subcommand: string,
  options: ExecMuxOptions,
): Promise<MuxOutput> {
  let out: ProcessResult;
  try {
    out = await runProcess(bin, { args: argv, ...(options.env ? { env: options.env, clearEnv: true } : {}) });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw options.notFound();
    throw err;
  }
  const result = { code: out.code, stdout: out.stdout, stderr: out.stderr };
  if (out.code !== 0 && !options.allowFail) throw muxFailure(options.label, subcommand, result);
  return result;
}

/** The TMUX_COMMAND_FAILED error for a non-zero exit (the same whichever transport ran the command). */
export function muxFailure(label: string, subcommand: string, result: MuxOutput): AppError {
  return new AppError(
    "TMUX_COMMAND_FAILED",
    `Cannot run ${label} ${subcommand}: ${result.stderr.trim() || `exit ${result.code}`}`,
    { data: { subcommand, exit_code: result.code } },
  );
}

/** `bin -V` output, or null when the binary is missing or fails. Never throws. */
export async function muxVersionText(bin: string): Promise<string | null> {
  try {
    const out = await runProcess(bin, { args: ["-V"], stderr: "null" });
    return out.success ? out.stdout : null;
  } catch {
    return null;
  }
}
