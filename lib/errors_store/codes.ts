/**
 * The closed list of runtime error codes the aggregate may hold, each with its one fixed template.
 * Nothing else can be recorded: no message, no data, no path. A fingerprint is derived from the
 * code and its template only, so it is the same on every machine and says nothing about the user.
 */
import { createHash } from "node:crypto";
import type { ErrorCode } from "../../base/errors.ts";

/** Every runtime code with its fixed, human-readable template. Add a code here before recording it. */
export const RUNTIME_CODES = {
  "AITERM.PTY_DEPENDENCY_UNAVAILABLE": "The terminal multiplexer is missing or older than the supported minimum",
  "AITERM.PTY_BACKEND_FAILED": "A terminal multiplexer command failed unexpectedly",
  "AITERM.PERSISTENCE_WRITE_FAILED": "A write under the state directory failed",
  "AITERM.VENDOR_LAUNCHER_FAILED": "A coding-agent CLI could not be started or did not answer",
  "AITERM.TRANSCRIPT_UNREADABLE": "A coding-agent transcript could not be read",
  "AITERM.LOG_WRITER_RESTARTED":
    "A session's output log writer had stopped and was restarted; output in the gap was lost",
  "AITERM.INTERNAL": "An unexpected internal failure",
} as const;

/** One of the keys of {@link RUNTIME_CODES}: the only value `record()` accepts. */
export type RuntimeCode = keyof typeof RUNTIME_CODES;

/** The codes in a fixed order. */
export const RUNTIME_CODE_LIST: readonly RuntimeCode[] = Object.freeze(Object.keys(RUNTIME_CODES) as RuntimeCode[]);

/** True only for a string that is exactly one of the runtime codes (runtime guard for untyped callers). */
export function isRuntimeCode(value: unknown): value is RuntimeCode {
  return typeof value === "string" && Object.hasOwn(RUNTIME_CODES, value);
}

/** The fixed template of a code. */
export function templateOf(code: RuntimeCode): string {
  return RUNTIME_CODES[code];
}

function computeFingerprint(code: RuntimeCode): string {
  return "sha256:" + createHash("sha256").update(`${code}\n${RUNTIME_CODES[code]}`, "utf8").digest("hex");
}

const FINGERPRINTS: ReadonlyMap<RuntimeCode, string> = new Map(
  RUNTIME_CODE_LIST.map((c) => [c, computeFingerprint(c)]),
);
const BY_FINGERPRINT: ReadonlyMap<string, RuntimeCode> = new Map(
  RUNTIME_CODE_LIST.map((c) => [computeFingerprint(c), c]),
);

/** `sha256:<hex>` of the code and its fixed template. */
export function fingerprintOf(code: RuntimeCode): string {
  return FINGERPRINTS.get(code) ?? computeFingerprint(code);
}

/** The code a fingerprint stands for, or null when it is not one of ours. */
export function codeForFingerprint(fingerprint: string): RuntimeCode | null {
  return BY_FINGERPRINT.get(fingerprint) ?? null;
}

/**
 * Which AppError codes are runtime (environment or product) failures worth aggregating. Only the
 * codes listed here are recorded; every other code (a bad argument, a missing session, a harness
 * the user has not installed, a busy lock, a timeout, a vendor API error inside a turn) is the
 * caller's or the user's situation, not a fault of aiterm or of the machine it runs on.
 *
 * - TMUX_NOT_FOUND, TMUX_TOO_OLD: the PTY backend dependency is unusable.
 * - TMUX_COMMAND_FAILED: tmux itself failed in a way aiterm did not expect.
 * - TMUX_SERVER_GONE: the private tmux server died under live sessions.
 * - STATE_WRITE_FAILED: persistence failed (disk full, permissions changed under us).
 * - MODEL_CATALOG_UNAVAILABLE: an installed coding-agent CLI did not answer its catalog command.
 * - LOG_WRITER_RESTARTED: a session's log writer died (disk full, killed, file deleted) and was restarted; recorded
 *   by the restart itself (lib/terminal/log_supervisor.ts), since it is a read warning, not a thrown error.
 * - INTERNAL: a bug.
 *
 * Not recorded: STATE_ROOT_INVALID (the aggregate lives under that root, so it could not be written
 * anyway; diagnostics reports the root), HARNESS_NOT_INSTALLED and THROUGHLINE_UNAVAILABLE (user
 * setup), SEND_LOCK_* and WAIT_TIMEOUT (expected contention), AGENT_TURN_ERROR (the vendor's API,
 * recorded by the harness itself). A code added to ERROR_CODES later is not recorded until it is
 * listed here.
 */
const APP_TO_RUNTIME: Partial<Record<ErrorCode, RuntimeCode>> = {
  TMUX_NOT_FOUND: "AITERM.PTY_DEPENDENCY_UNAVAILABLE",
  TMUX_TOO_OLD: "AITERM.PTY_DEPENDENCY_UNAVAILABLE",
  TMUX_COMMAND_FAILED: "AITERM.PTY_BACKEND_FAILED",
  TMUX_SERVER_GONE: "AITERM.PTY_BACKEND_FAILED",
  STATE_WRITE_FAILED: "AITERM.PERSISTENCE_WRITE_FAILED",
  MODEL_CATALOG_UNAVAILABLE: "AITERM.VENDOR_LAUNCHER_FAILED",
  LOG_WRITER_RESTARTED: "AITERM.LOG_WRITER_RESTARTED",
  INTERNAL: "AITERM.INTERNAL",
};

/** The runtime code for an AppError code, or null when that failure is not a runtime error. */
export function runtimeCodeFor(code: ErrorCode): RuntimeCode | null {
  return Object.hasOwn(APP_TO_RUNTIME, code) ? APP_TO_RUNTIME[code] ?? null : null;
}
