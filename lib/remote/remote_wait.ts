/**
 * `aiterm-mcp remote-wait -- ssh … <remote aiterm-mcp wait …>`: runs the remote waiter and, when ssh
 * itself fails (exit 255: connection lost, not the waiter), runs it again — it re-observes the same
 * cursor, so nothing is missed or doubled. Any other exit code is the remote waiter's verdict and final.
 */

import { waitUntil } from "../../base/wait.ts";
import { runProcess } from "../../platform/mod.ts";

/** Options for {@link runRemoteWait}. */
export interface RemoteWaitOptions {
  /** Give up re-connecting after this long (default 600 s, the waiter's own default). */
  budgetMs?: number;
  /** Pause between attempts (default 2 s). */
  retryDelayMs?: number;
}

/** Exit code when ssh kept failing until the budget ran out (the waiter's "timeout"). */
const GAVE_UP = 3;

/** Runs `argv` (after `--`) with retries on 255; returns the exit code to exit with. */
export async function runRemoteWait(args: string[], options: RemoteWaitOptions = {}): Promise<number> {
  const sep = args.indexOf("--");
  const argv = sep >= 0 ? args.slice(sep + 1) : args;
  if (argv.length === 0) {
    Deno.stderr.writeSync(new TextEncoder().encode("usage: aiterm-mcp remote-wait -- <ssh argv…>\n"));
    return 2;
  }
  const budgetMs = options.budgetMs ?? 600_000;
  const started = performance.now();
  let attempt = 0;
  const out = await waitUntil(async (): Promise<number> => {
    attempt++;
    let code: number;
    try {
      code = (await runProcess(argv[0]!, { args: argv.slice(1), stdout: "inherit", stderr: "inherit" })).code;
    } catch {
      Deno.stderr.writeSync(new TextEncoder().encode(`aiterm-mcp remote-wait: cannot run ${argv[0]}\n`));
      return CANNOT_RUN;
    }
    if (code === 255 && performance.now() - started < budgetMs) {
      Deno.stderr.writeSync(
        new TextEncoder().encode(`aiterm-mcp remote-wait: ssh failed (attempt ${attempt}); re-observing\n`),
      );
    }
    return code;
  }, { timeoutMs: budgetMs, intervalMs: options.retryDelayMs ?? 2000, until: (code) => code !== 255 });
  return out.status === "done" ? (out.value === CANNOT_RUN ? 2 : out.value) : GAVE_UP;
}

/** The probe's "the program could not start" (exit 2); never a real exit code. */
const CANNOT_RUN = -1;
