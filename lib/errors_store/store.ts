/**
 * The runtime-error aggregate: `<state root>/runtime-errors/aggregate.json`, owned by aiterm, local
 * only. It holds one entry per runtime code (fingerprint, code, fixed template, count, first/last
 * seen at one-second resolution, status, sequence numbers) and a monotonic `seq` that counts every
 * recorded occurrence. `record(code)` is the only way in and takes nothing but a code from the
 * closed list, so no message, prompt, output, transcript, path or credential can reach the file.
 *
 * Writers hold the lock in ./lock.ts, read, change and atomically replace the file (temp + fsync +
 * rename), so readers and SIGKILLed writers never leave half a file. Readers never lock. Nothing
 * here talks to the network; an external reporter is a separate, opt-in adapter (./reporter.ts).
 */
import { join } from "node:path";
import { acquireLock, ensurePrivateDir, removeOldCandidates, writeJsonAtomic } from "../../state/mod.ts";
import { defaultStateRoot } from "../../platform/mod.ts";
import {
  codeForFingerprint,
  fingerprintOf,
  isRuntimeCode,
  RUNTIME_CODE_LIST,
  type RuntimeCode,
  templateOf,
} from "./codes.ts";
import { readRegularFile } from "./read.ts";

/** The `schema` of aggregate.json and of the snapshot. */
export const AGGREGATE_SCHEMA = "aiterm.runtime-errors.v1";

/** Status of one aggregated code. */
export type EntryStatus = "open" | "acked" | "resolved";
const STATUSES: readonly EntryStatus[] = ["open", "acked", "resolved"];

/** One aggregated runtime code. */
export interface AggregateEntry {
  /** `sha256:` of the code and its template. */
  fingerprint: string;
  code: RuntimeCode;
  /** The code's fixed template. */
  template: string;
  /** Occurrences recorded. */
  count: number;
  /** UTC, one-second resolution, e.g. 2026-01-02T03:04:05Z. */
  first_seen: string;
  last_seen: string;
  status: EntryStatus;
  /** `seq` of the latest occurrence. */
  last_seq: number;
  /** The cursor of the ack that acknowledged it, once acked. */
  acked_seq?: number;
}

/** The file's content. */
export interface Aggregate {
  schema: typeof AGGREGATE_SCHEMA;
  /** Occurrences ever recorded; every record() adds one. */
  seq: number;
  entries: AggregateEntry[];
}

/** Whether the aggregate could be read. */
export type StoreStatus = "ready" | "absent" | "unreadable";

/** The read-only view. `absent`: nothing recorded yet; `unreadable`: not a valid aggregate file. */
export type Snapshot =
  | { schema: typeof AGGREGATE_SCHEMA; status: "ready" | "absent"; seq: number; entries: AggregateEntry[] }
  | { schema: typeof AGGREGATE_SCHEMA; status: "unreadable"; seq: null; entries: [] };

/** For diagnostics: counts only. */
export interface Summary {
  status: StoreStatus;
  /** Entries with status open; null when unreadable. */
  open: number | null;
  /** Distinct codes recorded; null when unreadable. */
  total: number | null;
  /** Occurrences ever recorded; null when unreadable. */
  seq: number | null;
}

/** Why a change was not made. */
export type MutationFailure =
  | "INVALID_ARGUMENT"
  | "CURSOR_AHEAD"
  | "NOT_FOUND"
  | "LOCK_BUSY"
  | "UNREADABLE"
  | "WRITE_FAILED";

/** Outcome of ack/resolve/reopen. */
export type MutationResult = { ok: true; changed: number; seq: number } | { ok: false; reason: MutationFailure };

/** Options for {@link RuntimeErrorStore}. */
export interface RuntimeErrorStoreOptions {
  /** Longest wait for the writer lock before a record is dropped (default 2000 ms). */
  lockTimeoutMs?: number;
  /** Longest a read may take (default 1000 ms). */
  readTimeoutMs?: number;
  /** Lock candidates left by killed writers are removed once this old (default 60 000 ms). */
  leftoverAgeMs?: number;
  /** Clock (ms since the epoch), for tests. */
  now?: () => number;
  /**
   * The in-process queue that orders this store's writes (default: one of its own). Stores of one
   * process that share a directory share one queue, so the process never contends with itself for
   * the file lock: a program root builds one and hands it to each store it creates.
   */
  queue?: WriteQueue;
}

/** Orders the writes of one process per store directory (see RuntimeErrorStoreOptions.queue). */
export class WriteQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `job` after every job queued earlier for `dir` has settled. */
  run<T>(dir: string, job: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(dir) ?? Promise.resolve();
    const run = previous.then(job, job);
    const settled = run.then(() => {}, () => {});
    this.#tails.set(dir, settled);
    void settled.then(() => {
      if (this.#tails.get(dir) === settled) this.#tails.delete(dir);
    });
    return run;
  }
}

const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const FINGERPRINT_RE = /^sha256:[0-9a-f]{64}$/;
const AGGREGATE_TMP_RE = /^aggregate\.json\.[0-9a-f]{12}\.tmp$/;
const ENTRY_KEYS = new Set([
  "fingerprint",
  "code",
  "template",
  "count",
  "first_seen",
  "last_seen",
  "status",
  "last_seq",
  "acked_seq",
]);

/** UTC ISO time truncated to the second. */
export function secondResolution(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19) + "Z";
}

/** The store directory under a state root. */
export function runtimeErrorsDir(stateRoot: string): string {
  return join(stateRoot, "runtime-errors");
}

function isCount(v: unknown, min: number): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= min;
}

/**
 * Validates parsed JSON as an aggregate and rebuilds it from the closed table, so nothing but
 * checked numbers, checked timestamps and our own fixed strings ever leaves the file. Null when
 * anything is off.
 */
export function parseAggregate(value: unknown): Aggregate | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  if (Object.keys(v).length !== 3 || v.schema !== AGGREGATE_SCHEMA) return null;
  if (!isCount(v.seq, 0) || !Array.isArray(v.entries) || v.entries.length > RUNTIME_CODE_LIST.length) return null;
  const seq = v.seq;
  const seen = new Set<RuntimeCode>();
  const entries: AggregateEntry[] = [];
  for (const raw of v.entries as unknown[]) {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
    const e = raw as Record<string, unknown>;
    if (Object.keys(e).some((k) => !ENTRY_KEYS.has(k))) return null;
    const code = e.code;
    if (!isRuntimeCode(code) || seen.has(code)) return null;
    seen.add(code);
    if (e.fingerprint !== fingerprintOf(code) || e.template !== templateOf(code)) return null;
    if (!isCount(e.count, 1) || !isCount(e.last_seq, 1) || e.last_seq > seq) return null;
    if (typeof e.first_seen !== "string" || !TIMESTAMP_RE.test(e.first_seen)) return null;
    if (typeof e.last_seen !== "string" || !TIMESTAMP_RE.test(e.last_seen)) return null;
    if (typeof e.status !== "string" || !STATUSES.includes(e.status as EntryStatus)) return null;
    const entry: AggregateEntry = {
      fingerprint: fingerprintOf(code),
      code,
      template: templateOf(code),
      count: e.count,
      first_seen: e.first_seen,
      last_seen: e.last_seen,
      status: e.status as EntryStatus,
      last_seq: e.last_seq,
    };
    if (e.acked_seq !== undefined) {
      if (!isCount(e.acked_seq, 0) || e.acked_seq > seq) return null;
      entry.acked_seq = e.acked_seq;
    }
    entries.push(entry);
  }
  return { schema: AGGREGATE_SCHEMA, seq, entries: sortEntries(entries) };
}

function sortEntries(entries: AggregateEntry[]): AggregateEntry[] {
  return entries.sort((a, b) => RUNTIME_CODE_LIST.indexOf(a.code) - RUNTIME_CODE_LIST.indexOf(b.code));
}

type Loaded = { kind: "ready"; data: Aggregate } | { kind: "absent" } | { kind: "unreadable" };

const EMPTY = (): Aggregate => ({ schema: AGGREGATE_SCHEMA, seq: 0, entries: [] });

/** The runtime-error aggregate of one state root. */
export class RuntimeErrorStore {
  readonly dir: string;
  readonly file: string;
  readonly #root: string;
  readonly #lockTimeoutMs: number;
  readonly #readTimeoutMs: number;
  readonly #leftoverAgeMs: number;
  readonly #now: () => number;
  readonly #queue: WriteQueue;

  constructor(stateRoot: string, options: RuntimeErrorStoreOptions = {}) {
    this.#root = stateRoot;
    this.dir = runtimeErrorsDir(stateRoot);
    this.file = join(this.dir, "aggregate.json");
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 2000;
    this.#readTimeoutMs = options.readTimeoutMs ?? 1000;
    this.#leftoverAgeMs = options.leftoverAgeMs ?? 60_000;
    this.#now = options.now ?? Date.now;
    this.#queue = options.queue ?? new WriteQueue();
  }

  /** The store of the state root the environment selects (the configured stateDir, else XDG_STATE_HOME, HOME). */
  static fromEnv(
    env: Record<string, string | undefined>,
    options: RuntimeErrorStoreOptions = {},
    stateDir?: string | null,
  ): RuntimeErrorStore {
    return new RuntimeErrorStore(defaultStateRoot(env, stateDir), options);
  }

  /**
   * Counts one occurrence of `code`. The only write API: its one parameter is a code from the closed
   * list (checked again at runtime for untyped callers). Returns false, without throwing, when the
   * code is not one of ours, the lock stays busy past the timeout, the file is unreadable or the
   * write fails: recording an error must never become an error of the terminal work.
   */
  async record(code: RuntimeCode): Promise<boolean> {
    if (!isRuntimeCode(code)) return false;
    try {
      return await this.#mutate((data) => {
        const seq = data.seq + 1;
        const at = secondResolution(this.#now());
        const existing = data.entries.find((e) => e.code === code);
        if (existing) {
          existing.count += 1;
          existing.last_seen = at;
          existing.last_seq = seq;
          existing.status = "open";
        } else {
          data.entries.push({
            fingerprint: fingerprintOf(code),
            code,
            template: templateOf(code),
            count: 1,
            first_seen: at,
            last_seen: at,
            status: "open",
            last_seq: seq,
          });
        }
        data.seq = seq;
        return 1;
      }).then((r) => r.ok);
    } catch {
      return false;
    }
  }

  /** The aggregate as it is on disk. Read-only: takes no lock, creates nothing, never blocks past the read timeout. */
  async snapshot(): Promise<Snapshot> {
    const loaded = await this.#load();
    if (loaded.kind === "unreadable") return { schema: AGGREGATE_SCHEMA, status: "unreadable", seq: null, entries: [] };
    if (loaded.kind === "absent") return { schema: AGGREGATE_SCHEMA, status: "absent", seq: 0, entries: [] };
    return { schema: AGGREGATE_SCHEMA, status: "ready", seq: loaded.data.seq, entries: loaded.data.entries };
  }

  /** Counts for the diagnostics tool (no fingerprints, no times). */
  async summary(): Promise<Summary> {
    const snap = await this.snapshot();
    if (snap.status === "unreadable") return { status: "unreadable", open: null, total: null, seq: null };
    return {
      status: snap.status,
      open: snap.entries.filter((e) => e.status === "open").length,
      total: snap.entries.length,
      seq: snap.seq,
    };
  }

  /** Acknowledges every open entry whose latest occurrence is at or before `cursor` (a `seq` from a snapshot). */
  async ack(cursor: number): Promise<MutationResult> {
    if (!isCount(cursor, 0)) return { ok: false, reason: "INVALID_ARGUMENT" };
    return await this.#mutate((data) => {
      if (cursor > data.seq) return "CURSOR_AHEAD";
      let changed = 0;
      for (const e of data.entries) {
        if (e.status !== "open" || e.last_seq > cursor) continue;
        e.status = "acked";
        e.acked_seq = cursor;
        changed++;
      }
      return changed;
    });
  }

  /** Marks the entry resolved; a later occurrence opens it again. */
  resolve(fingerprint: string): Promise<MutationResult> {
    return this.#setStatus(fingerprint, "resolved");
  }

  /** Opens a resolved or acked entry again. */
  reopen(fingerprint: string): Promise<MutationResult> {
    return this.#setStatus(fingerprint, "open");
  }

  async #setStatus(fingerprint: string, status: EntryStatus): Promise<MutationResult> {
    const code = typeof fingerprint === "string" && FINGERPRINT_RE.test(fingerprint)
      ? codeForFingerprint(fingerprint)
      : null;
    if (code === null) return { ok: false, reason: "INVALID_ARGUMENT" };
    return await this.#mutate((data) => {
      const entry = data.entries.find((e) => e.code === code);
      if (!entry) return "NOT_FOUND";
      if (entry.status === status) return 0;
      entry.status = status;
      return 1;
    });
  }

  async #load(): Promise<Loaded> {
    const read = await readRegularFile(this.file, this.#readTimeoutMs);
    if (read.kind === "absent") return { kind: "absent" };
    if (read.kind === "unreadable") return { kind: "unreadable" };
    let parsed: unknown;
    try {
      parsed = JSON.parse(read.text);
    } catch {
      return { kind: "unreadable" };
    }
    const data = parseAggregate(parsed);
    return data ? { kind: "ready", data } : { kind: "unreadable" };
  }

  /**
   * Runs `change` under the lock on the current aggregate (an empty one when absent) and writes the
   * result when it changed something. `change` returns how many things changed or a failure reason.
   * An unreadable file is never overwritten: it is left for a person to look at.
   */
  #mutate(change: (data: Aggregate) => number | MutationFailure): Promise<MutationResult> {
    return this.#queue.run(this.dir, () => this.#mutateLocked(change));
  }

  async #mutateLocked(change: (data: Aggregate) => number | MutationFailure): Promise<MutationResult> {
    try {
      ensurePrivateDir(this.#root);
      ensurePrivateDir(this.dir);
    } catch {
      return { ok: false, reason: "WRITE_FAILED" };
    }
    const lock = await acquireLock(this.dir, { timeoutMs: this.#lockTimeoutMs });
    if (!lock) return { ok: false, reason: "LOCK_BUSY" };
    try {
      await this.#removeLeftovers();
      const loaded = await this.#load();
      if (loaded.kind === "unreadable") return { ok: false, reason: "UNREADABLE" };
      const data = loaded.kind === "ready" ? loaded.data : EMPTY();
      const outcome = change(data);
      if (typeof outcome === "string") return { ok: false, reason: outcome };
      if (outcome > 0) {
        if (!(await lock.held())) return { ok: false, reason: "LOCK_BUSY" };
        await this.#write(data);
      }
      return { ok: true, changed: outcome, seq: data.seq };
    } catch {
      return { ok: false, reason: "WRITE_FAILED" };
    } finally {
      await lock.release();
    }
  }

  async #write(data: Aggregate): Promise<void> {
    const out: Aggregate = { schema: AGGREGATE_SCHEMA, seq: data.seq, entries: sortEntries(data.entries) };
    await writeJsonAtomic(this.file, out);
  }

  /** Under the lock, any aggregate temp file belongs to a writer that died; old lock candidates too. */
  async #removeLeftovers(): Promise<void> {
    try {
      for await (const e of Deno.readDir(this.dir)) {
        if (AGGREGATE_TMP_RE.test(e.name)) await Deno.remove(join(this.dir, e.name)).catch(() => {});
      }
    } catch {
      // best effort
    }
    await removeOldCandidates(this.dir, this.#leftoverAgeMs);
  }
}
