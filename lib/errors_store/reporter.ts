/**
 * The optional, explicitly opted-in hand-off of the aggregate to an external reporter (for example
 * a factory's collector). The store never does this by itself and has no network code; with
 * `AITERM_ERROR_REPORTER` unset nothing is attempted and aiterm behaves exactly the same.
 *
 * `AITERM_ERROR_REPORTER=command:<absolute path>`: after a recorded occurrence, that program is run
 * with no arguments and gets `{"schema":"aiterm.runtime-errors.report.v1","entries":[...]}` on
 * stdin: the same validated entries a snapshot shows (fixed codes and aggregate metadata only).
 * Its output is discarded and it is killed after a timeout. Whatever it does next is its business.
 */
import { isAbsolute } from "node:path";
import { loadConfig } from "../../base/config.ts";
import { defaultStateRoot, runProcess } from "../../platform/mod.ts";
import type { RuntimeCode } from "./codes.ts";
import { type AggregateEntry, RuntimeErrorStore, type RuntimeErrorStoreOptions } from "./store.ts";

/** The `schema` of what a command reporter receives. */
export const REPORT_SCHEMA = "aiterm.runtime-errors.report.v1";

/** An external reporter. */
export interface Reporter {
  report(entries: readonly AggregateEntry[]): Promise<void>;
}

/** What the configuration says: nothing (the default), a command, or an unusable value. */
export type ReporterConfig = { kind: "none" } | { kind: "command"; reporter: Reporter } | { kind: "invalid" };

/** Reads the configured reporter (Config.errorReporter, AITERM_ERROR_REPORTER). Null or empty: none. */
export function reporterFromConfig(value: string | null): ReporterConfig {
  if (value === null || value === "") return { kind: "none" };
  const prefix = "command:";
  if (!value.startsWith(prefix)) return { kind: "invalid" };
  const path = value.slice(prefix.length);
  if (!isAbsolute(path)) return { kind: "invalid" };
  return { kind: "command", reporter: new CommandReporter(path) };
}

/** Runs a local program with the entries on stdin. */
export class CommandReporter implements Reporter {
  readonly #path: string;
  readonly #timeoutMs: number;

  constructor(path: string, timeoutMs = 5000) {
    this.#path = path;
    this.#timeoutMs = timeoutMs;
  }

  /** @throws when the program cannot start, fails or runs out of time. */
  async report(entries: readonly AggregateEntry[]): Promise<void> {
    // Killed at once on timeout (graceMs 0): a reporter has no state worth a TERM.
    const out = await runProcess(this.#path, {
      input: JSON.stringify({ schema: REPORT_SCHEMA, entries }) + "\n",
      stdout: "null",
      stderr: "null",
      timeoutMs: this.#timeoutMs,
      graceMs: 0,
    });
    if (out.timedOut) throw new Error("reporter timed out");
    if (!out.success) throw new Error("reporter failed");
  }
}

/**
 * The product's way to record: counts the occurrence in the store, then, only when a reporter is
 * configured, hands the aggregate to it in the background (coalesced: one delivery at a time, one
 * more if anything was recorded meanwhile). Never throws; reporter failures are ignored.
 */
export class RuntimeErrorRecorder {
  readonly store: RuntimeErrorStore;
  readonly #reporter: Reporter | null;
  #inFlight: Promise<void> | null = null;
  #again = false;

  constructor(store: RuntimeErrorStore, reporter: Reporter | null = null) {
    this.store = store;
    this.#reporter = reporter;
  }

  /** A recorder for a state root and the configured reporter (Config.errorReporter). */
  static fromConfig(
    stateRoot: string,
    reporter: string | null,
    options: RuntimeErrorStoreOptions = {},
  ): RuntimeErrorRecorder {
    const config = reporterFromConfig(reporter);
    return new RuntimeErrorRecorder(
      new RuntimeErrorStore(stateRoot, options),
      config.kind === "command" ? config.reporter : null,
    );
  }

  /** A recorder for the state root and reporter `env` configures (read through base/config.ts). */
  static fromEnv(
    env: Record<string, string | undefined>,
    options: RuntimeErrorStoreOptions = {},
  ): RuntimeErrorRecorder {
    const config = loadConfig(env);
    return RuntimeErrorRecorder.fromConfig(defaultStateRoot(env, config.stateDir), config.errorReporter, options);
  }

  /** Records `code` (see RuntimeErrorStore.record). */
  async record(code: RuntimeCode): Promise<boolean> {
    const ok = await this.store.record(code);
    if (ok && this.#reporter) this.#schedule(this.#reporter);
    return ok;
  }

  /** Resolves when no delivery is running (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.#inFlight) await this.#inFlight;
  }

  #schedule(reporter: Reporter): void {
    if (this.#inFlight) {
      this.#again = true;
      return;
    }
    this.#inFlight = (async () => {
      do {
        this.#again = false;
        try {
          const snap = await this.store.snapshot();
          if (snap.status === "ready") await reporter.report(snap.entries);
        } catch {
          // a reporter never affects aiterm
        }
      } while (this.#again);
    })().finally(() => {
      this.#inFlight = null;
    });
  }
}
