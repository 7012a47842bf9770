/**
 * The `aiterm-wait` program (also `aiterm-mcp wait`): blocks until one agent turn ends, prints one
 * JSON line and exits with its verdict (see {@link WAIT_EXIT_HELP}). `--timeout 0` reports now:
 * done, blocked, or still running (exit 8), never timeout. Bad arguments (a missing or malformed
 * value, a flag given twice, a timeout above {@link MAX_WAIT_TIMEOUT_S}) exit 2 with nothing waited.
 *
 * It builds only what a waiter needs (state layout, multiplexer, Terminal, the waiter): not the MCP
 * server, parent delivery, the remote relay, the error store or setup. It imports the waiter past
 * lib/agent/mod.ts on purpose, because the barrel would bring the whole agent layer into aiterm-wait
 * (tests/static/wait_graph_test.ts keeps the graph small).
 */
import { parseArgs } from "node:util";
import type { Config } from "../base/config.ts";
import { buildTerminal } from "./terminal/mod.ts";
import { waitForTurn } from "./agent/waiter.ts"; // past the barrel: see the module doc

/** Usage line of the waiter. */
export const WAIT_USAGE =
  "usage: aiterm-wait --session S --cursor N [--generation G] [--timeout SECONDS (default 600, 0 = report now, at most 86400)]";

/** What each exit code means (printed by --help; the README's table says the same). */
export const WAIT_EXIT_HELP =
  "Exit: 0 done, 2 bad arguments, 3 timeout (still running when the time ran out), 4 closed (the session ended or " +
  "was replaced), 5 blocked (stuck on a dialog or stopped: see reason; wait again after resolving it), 6 not found " +
  "(no such session, or not an agent session: error says SESSION_NOT_FOUND or AGENT_SESSION_REQUIRED), 7 error (no " +
  "result), 8 running (--timeout 0 only: the turn has not ended yet).";

/** The longest `--timeout` accepted, in seconds (24 h, the longest any parent receiver waits). */
export const MAX_WAIT_TIMEOUT_S = 86_400;

const DEFAULT_TIMEOUT_S = 600;
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;
const GENERATION = /^[0-9a-f]{12}$/;

/** Parsed waiter arguments. */
export interface WaitArgs {
  session: string;
  cursor: number;
  generation: string | null;
  timeoutS: number;
}

/**
 * Parses the waiter's argv (pure). Returns the arguments, `"help"`, or a usage error message.
 */
export function parseWaitArgs(args: string[]): WaitArgs | "help" | { usage: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        session: { type: "string" },
        cursor: { type: "string" },
        timeout: { type: "string" },
        generation: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
  } catch (err) {
    return { usage: (err as Error).message };
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== "option") continue;
    if (seen.has(token.name)) return { usage: `--${token.name} was given more than once` };
    seen.add(token.name);
  }
  const v = parsed.values;
  if (v.help) return "help";
  if (v.session === undefined) return { usage: "--session is required" };
  if (!SESSION_ID.test(v.session)) return { usage: `--session must match ${SESSION_ID.source}` };
  if (v.cursor === undefined) return { usage: "--cursor is required" };
  if (!/^[0-9]{1,9}$/.test(v.cursor)) return { usage: "--cursor must be a whole number (the receipt's event_cursor)" };
  if (v.generation !== undefined && !GENERATION.test(v.generation)) {
    return { usage: "--generation must be the 12 hex digits of the receipt's generation" };
  }
  let timeoutS = DEFAULT_TIMEOUT_S;
  if (v.timeout !== undefined) {
    if (!/^[0-9]{1,9}(\.[0-9]{1,3})?$/.test(v.timeout)) {
      return { usage: "--timeout must be a number of seconds (0 = report now)" };
    }
    timeoutS = Number(v.timeout);
    if (timeoutS > MAX_WAIT_TIMEOUT_S) {
      return {
        usage: `--timeout ${v.timeout} is above the cap of ${MAX_WAIT_TIMEOUT_S} s; start a new waiter instead`,
      };
    }
  }
  return { session: v.session, cursor: Number(v.cursor), generation: v.generation ?? null, timeoutS };
}

/** Runs the waiter with `args` and the root's `config`; returns the process exit code. */
export async function runWait(args: string[], env: Record<string, string>, config: Config): Promise<number> {
  const parsed = parseWaitArgs(args);
  if (parsed === "help") {
    Deno.stdout.writeSync(new TextEncoder().encode(`${WAIT_USAGE}\n${WAIT_EXIT_HELP}\n`));
    return 0;
  }
  if ("usage" in parsed) {
    Deno.stderr.writeSync(new TextEncoder().encode(`aiterm-wait: ${parsed.usage}\n${WAIT_USAGE}\n`));
    return 2;
  }
  const outcome = await waitForTurn(buildTerminal({ env, config, cwd: Deno.cwd() }), parsed.session, parsed.cursor, {
    timeoutMs: parsed.timeoutS * 1000,
    env,
    generation: parsed.generation,
    reportBlocked: true,
    reportNow: parsed.timeoutS === 0,
  });
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(outcome) + "\n"));
  return outcome.exit_code;
}
