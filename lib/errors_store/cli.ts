/**
 * `aiterm-mcp errors …`: the runtime-error aggregate from the command line, JSON on stdout.
 * Exit 0 ok, 1 failure (unreadable store, busy lock, unknown entry, cursor ahead), 2 bad arguments.
 */
import { parseArgs } from "node:util";
import { codeForFingerprint } from "./codes.ts";
import { type MutationResult, RuntimeErrorStore, type RuntimeErrorStoreOptions } from "./store.ts";

/** Help text for the `errors` subcommand. */
export const ERRORS_HELP =
  `aiterm-mcp errors snapshot | ack --cursor N | resolve --fingerprint F | reopen --fingerprint F
  The runtime-error aggregate in the state root (fixed codes and counts only; no messages, paths or output).
  snapshot                 print it as JSON (read-only; exit 1 when the file is unreadable)
  ack --cursor N           acknowledge open entries whose latest occurrence is at or before seq N
  resolve --fingerprint F  mark an entry resolved (a later occurrence opens it again)
  reopen --fingerprint F   open a resolved or acknowledged entry again
  Exit 0 ok, 1 failure, 2 bad arguments.`;

/** Where the command writes. */
export interface ErrorsCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const encoder = new TextEncoder();

function writeAll(target: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  let off = 0;
  while (off < bytes.length) off += target.writeSync(bytes.subarray(off));
}

const DEFAULT_IO: ErrorsCommandIo = {
  stdout: (text) => writeAll(Deno.stdout, text),
  stderr: (text) => writeAll(Deno.stderr, text),
};

const RESULT_SCHEMA = "aiterm.runtime-errors.result.v1";
const ACTIONS = ["snapshot", "ack", "resolve", "reopen"] as const;
type Action = typeof ACTIONS[number];

/** Options for tests. */
export interface ErrorsCommandOptions {
  io?: ErrorsCommandIo;
  store?: RuntimeErrorStoreOptions;
}

/** Runs `aiterm-mcp errors <args>`; returns the exit code. */
export async function runErrorsCommand(
  args: string[],
  env: Record<string, string | undefined>,
  options: ErrorsCommandOptions = {},
): Promise<number> {
  const io = options.io ?? DEFAULT_IO;
  const bad = (message: string): number => {
    io.stderr(`aiterm-mcp errors: ${message}\n${ERRORS_HELP.split("\n")[0]}\n`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        cursor: { type: "string" },
        fingerprint: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    return bad((err as Error).message);
  }
  if (parsed.values.help) {
    io.stdout(ERRORS_HELP + "\n");
    return 0;
  }
  const [action, ...extra] = parsed.positionals;
  if (action === undefined) return bad("missing action");
  if (!(ACTIONS as readonly string[]).includes(action)) return bad(`unknown action "${action}"`);
  if (extra.length) return bad("unexpected arguments");
  const act = action as Action;
  const { cursor, fingerprint } = parsed.values;
  if (act !== "ack" && cursor !== undefined) return bad(`--cursor is only for ack`);
  if ((act === "snapshot" || act === "ack") && fingerprint !== undefined) {
    return bad(`--fingerprint is only for resolve and reopen`);
  }

  const store = RuntimeErrorStore.fromEnv(env, options.store ?? {});
  const print = (value: unknown) => io.stdout(JSON.stringify(value) + "\n");

  if (act === "snapshot") {
    const snap = await store.snapshot();
    print(snap);
    return snap.status === "unreadable" ? 1 : 0;
  }

  let result: MutationResult;
  if (act === "ack") {
    if (cursor === undefined) return bad("ack needs --cursor N");
    if (!/^\d{1,15}$/.test(cursor)) return bad("--cursor must be a non-negative integer");
    result = await store.ack(Number(cursor));
  } else {
    if (fingerprint === undefined) return bad(`${act} needs --fingerprint F`);
    if (!/^sha256:[0-9a-f]{64}$/.test(fingerprint) || codeForFingerprint(fingerprint) === null) {
      return bad("--fingerprint must be a fingerprint from the snapshot");
    }
    result = act === "resolve" ? await store.resolve(fingerprint) : await store.reopen(fingerprint);
  }
  if (result.ok) {
    print({ schema: RESULT_SCHEMA, ok: true, action: act, changed: result.changed, seq: result.seq });
    return 0;
  }
  print({ schema: RESULT_SCHEMA, ok: false, action: act, error: result.reason });
  return result.reason === "INVALID_ARGUMENT" ? 2 : 1;
}
