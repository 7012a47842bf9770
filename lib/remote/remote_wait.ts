/**
 * `aiterm-mcp remote-wait -- ssh … <remote aiterm-mcp wait …>`: runs the remote waiter and, when ssh
 * itself fails (exit 255: connection lost, not the waiter), runs it again — it re-observes the same
 * cursor, so nothing is missed or doubled. Any other exit code is the remote waiter's verdict and final.
 */

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
  const deadline = Date.now() + (options.budgetMs ?? 600_000);
  for (let attempt = 1;; attempt++) {
    let code: number;
    try {
      const child = new Deno.Command(argv[0]!, {
        args: argv.slice(1),
        stdin: "null",
        stdout: "inherit",
        stderr: "inherit",
      })
        .spawn();
      code = (await child.status).code;
    } catch {
      Deno.stderr.writeSync(new TextEncoder().encode(`aiterm-mcp remote-wait: cannot run ${argv[0]}\n`));
      return 2;
    }
    if (code !== 255) return code;
    if (Date.now() >= deadline) return GAVE_UP;
    Deno.stderr.writeSync(
      new TextEncoder().encode(`aiterm-mcp remote-wait: ssh failed (attempt ${attempt}); re-observing\n`),
    );
    await new Promise((r) => setTimeout(r, options.retryDelayMs ?? 2000));
  }
}
