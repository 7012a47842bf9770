/**
 * The `aiterm-wait` program (also `aiterm-mcp wait`): blocks until one agent turn ends, prints one
 * JSON line and exits 0 done, 3 timeout, 4 closed, 5 blocked (stuck; the turn is still open), 7 error;
 * 2 on bad arguments.
 */
import { parseArgs } from "node:util";
import { buildDeps } from "./app.ts";
import { waitForTurn } from "./agent/mod.ts";

/** Usage line of the waiter. */
export const WAIT_USAGE =
  "usage: aiterm-wait --session S --cursor N [--generation G] [--timeout SECONDS (default 600)]";

/** Runs the waiter with `args`; returns the process exit code. */
export async function runWait(args: string[], env: Record<string, string>): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        session: { type: "string" },
        cursor: { type: "string" },
        timeout: { type: "string", default: "600" },
        generation: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (err) {
    Deno.stderr.writeSync(new TextEncoder().encode(`aiterm-wait: ${(err as Error).message}\n${WAIT_USAGE}\n`));
    return 2;
  }
  if (values.help) {
    Deno.stdout.writeSync(
      new TextEncoder().encode(
        `${WAIT_USAGE}\nExit: 0 done, 3 timeout, 4 closed, 5 blocked (stuck on a dialog or stopped: see reason; wait again after resolving it), 7 error (no result).\n`,
      ),
    );
    return 0;
  }
  const cursor = Number(values.cursor);
  const timeout = Number(values.timeout);
  if (
    !values.session || !/^[A-Za-z0-9_-]{1,64}$/.test(values.session) || !Number.isInteger(cursor) || cursor < 0 ||
    !(timeout >= 0)
  ) {
    Deno.stderr.writeSync(
      new TextEncoder().encode(`aiterm-wait: --session and a non-negative --cursor are required\n${WAIT_USAGE}\n`),
    );
    return 2;
  }
  const deps = buildDeps({ env, cwd: Deno.cwd() });
  const outcome = await waitForTurn(deps.terminal, values.session, cursor, {
    timeoutMs: timeout * 1000,
    env,
    generation: values.generation ?? null,
    reportBlocked: true,
  });
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(outcome) + "\n"));
  return outcome.exit_code;
}
