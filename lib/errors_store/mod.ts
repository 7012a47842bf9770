/** The runtime-error aggregate: fixed codes and counts in product-owned local state (see docs/adr/0007). */
export {
  codeForFingerprint,
  fingerprintOf,
  isRuntimeCode,
  RUNTIME_CODE_LIST,
  RUNTIME_CODES,
  runtimeCodeFor,
  templateOf,
} from "./codes.ts";
export type { RuntimeCode } from "./codes.ts";
export { AGGREGATE_SCHEMA, runtimeErrorsDir, RuntimeErrorStore, WriteQueue } from "./store.ts";
export type {
  AggregateEntry,
  EntryStatus,
  MutationResult,
  RuntimeErrorStoreOptions,
  Snapshot,
  StoreStatus,
  Summary,
} from "./store.ts";
export { CommandReporter, REPORT_SCHEMA, reporterFromConfig, RuntimeErrorRecorder } from "./reporter.ts";
export type { Reporter, ReporterConfig } from "./reporter.ts";
export { ERRORS_HELP, runErrorsCommand } from "./cli.ts";
export type { ErrorsCommandIo, ErrorsCommandOptions } from "./cli.ts";
