/**
 * The per-session send lock, shared by every aiterm process on the machine. Two files in the session
 * directory:
 *
 * - `send.lock.flock` is held with an exclusive advisory lock (flock) for the whole hold. The kernel
 *   drops it when its process dies, so whether someone holds the lock is never guessed from a pid.
 * - `send.lock`, the record, is created exclusively with the holder's pid, start identity and token,
 *   and removed by the holder on release (the same file older aiterm versions use on their own).
 *
 * The record is linked into place from a file this process wrote once per session (`send.lock.<pid>-<hash>.rec`,
 * its pid, identity and a per-process token), so a hold creates no file: on some disks a file creation costs
 * a millisecond, while a link and an unlink cost microseconds. The steps are synchronous: each is one small
 * local file operation, cheaper than a hop to the I/O thread pool.
 *
 * A record whose flock is free was left by a process that died while holding it (SIGKILL mid-send):
 * when its pid is gone or now names another process, the record is taken over and the hold says
 * `recoveredStaleLock` (that send may have been partly typed), or, for callers that do not take over,
 * SEND_LOCK_STALE. Nothing is ever removed or replaced while a live process could own it: a free
 * flock with the record of a live process is an older aiterm's lock, waited for like any other.
 */
import { AppError } from "../../../base/errors.ts";
import { replaceFileSync } from "../../../base/atomic.ts";
import { waitUntil } from "../../../base/wait.ts";
import { judgeOwner, type LockOwner, ownerRecord, readJsonFile, writeJsonAtomic } from "../../../state/mod.ts";
import { identityHash } from "../../../platform/mod.ts";

/** The owner record (state/owner.ts) and when the hold began. */
interface LockRecord extends LockOwner {
  at: string;
}

/** Options for {@link withSendLock}. */
export interface SendLockOptions {
  /** How long to wait for a live owner (default 30 s). */
  timeoutMs?: number;
  sessionId: string;
  /** Take over a lock whose owner died (default true); false refuses it with SEND_LOCK_STALE. */
  takeover?: boolean;
}

/** What the holder learns about how it got the lock. */
export interface SendLockHold {
  /** A lock left by a process that died was taken over: its send may have been partly typed. */
  recoveredStaleLock: boolean;
  /** That process's pid (null unless recovered). */
  staleOwnerPid: number | null;
  /** The lock was not free at the first try (the session may have changed meanwhile). */
  waited: boolean;
}

/** This process's record: one token per process (the flock, not the token, is what excludes). */
const MY_RECORD: LockRecord = { ...ownerRecord(crypto.randomUUID()), at: new Date().toISOString() };
const MY_RECORD_TEXT = JSON.stringify(MY_RECORD) + "\n";
const SPARE_SUFFIX = `.${Deno.pid}-${identityHash(MY_RECORD.identity)}.rec`;
const decoder = new TextDecoder();

/** The file whose flock is the lock itself. */
export function flockPath(path: string): string {
  return `${path}.flock`;
}

/** Reads the lock's owner, or null when no lock is held. */
export async function readSendLock(path: string): Promise<{ pid: number; alive: boolean } | null> {
  const rec = await readJsonFile<LockRecord>(path).catch(() => null);
  if (!rec) return null;
  return { pid: rec.pid, alive: judgeOwner(rec) !== "gone" };
}

/**
 * Runs `fn` while holding the session's send lock.
 * @throws {AppError} SEND_LOCK_BUSY when a live owner keeps it past the timeout
 * @throws {AppError} SEND_LOCK_STALE when a dead owner left it and `takeover` is false
 * @throws {AppError} SESSION_NOT_FOUND when the session's directory went away (closed meanwhile)
 */
export async function withSendLock<T>(
  path: string,
  options: SendLockOptions,
  fn: (hold: SendLockHold) => Promise<T>,
): Promise<T> {
  const { file, hold } = await acquire(path, MY_RECORD, options);
  try {
    return await fn(hold);
  } finally {
    if (ownRecordThere(path)) {
      try {
        Deno.removeSync(path);
      } catch {
        // removed meanwhile
      }
    }
    unlockAndClose(file);
  }
}

/** Whether the record at `path` is this process's: the copy it linked (two lstats), else by its token. */
function ownRecordThere(path: string): boolean {
  let there: number | null;
  try {
    there = Deno.lstatSync(path).ino;
  } catch {
    return false;
  }
  try {
    if (there !== null && Deno.lstatSync(`${path}${SPARE_SUFFIX}`).ino === there) return true;
  } catch {
    // no copy of ours beside it: read by token
  }
  // Taken over from a dead owner (written, not linked), or no inodes here: read its token.
  return readOwnerSync(path)?.token === MY_RECORD.token;
}

type Attempt = { file: Deno.FsFile; hold: Omit<SendLockHold, "waited"> } | { busy: number | null };

async function acquire(
  path: string,
  record: LockRecord,
  options: SendLockOptions,
): Promise<{ file: Deno.FsFile; hold: SendLockHold }> {
  let tries = 0;
  const got = await waitUntil(() => (tries++, attempt(path, record, options)), {
    timeoutMs: options.timeoutMs ?? 30_000,
    intervalMs: 2,
    maxIntervalMs: 20,
    until: (a) => "file" in a,
  });
  if (got.status === "done" && "file" in got.value) {
    return { file: got.value.file, hold: { ...got.value.hold, waited: tries > 1 } };
  }
  const busy = got.last && "busy" in got.last ? got.last.busy : null;
  throw new AppError(
    "SEND_LOCK_BUSY",
    `Cannot send to session "${options.sessionId}": pid ${busy ?? "?"} is still sending to it`,
    { suggestion: "nothing was typed; retry when that send has finished", data: { owner_pid: busy } },
  );
}

/** One try: the flock, then the record. Anything but a hold releases the flock before returning. */
async function attempt(path: string, record: LockRecord, options: SendLockOptions): Promise<Attempt> {
  const file = openFlock(path, options.sessionId);
  let held = false;
  try {
    if (!file.tryLockSync(true)) return { busy: readOwnerSync(path)?.pid ?? null };
    // A session closed (and maybe reopened) meanwhile: our flock is on a file nobody else will open.
    if (!sameFile(file, flockPath(path), options.sessionId)) return { busy: null };
    if (linkRecord(path, options.sessionId)) {
      held = true;
      return { file, hold: { recoveredStaleLock: false, staleOwnerPid: null } };
    }
    const owner = readOwnerSync(path);
    // Released between the two steps by an older aiterm, or that aiterm holds it right now.
    if (owner === null) return { busy: null };
    // A record of this very process was left by a hold of ours (the flock is ours now): ours to take over.
    if (judgeOwner(owner) === "alive") return { busy: owner.pid };
    if (options.takeover === false) throw staleError(options.sessionId, owner.pid);
    // We hold the flock, so no process of this protocol can touch the record; older ones never replace it.
    await writeJsonAtomic(path, record, { sync: false });
    held = true;
    return { file, hold: { recoveredStaleLock: true, staleOwnerPid: owner.pid } };
  } finally {
    if (!held) unlockAndClose(file);
  }
}

function openFlock(path: string, sessionId: string): Deno.FsFile {
  try {
    return Deno.openSync(flockPath(path), { read: true, write: true, create: true, mode: 0o600 });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw closedError(sessionId);
    throw err;
  }
}

/**
 * Puts this process's record at `path` unless a record is there: a hard link of its per-session copy
 * (written whole, once, before it is ever linked), so the record appears with its full content.
 * @returns false when `path` already existed
 */
function linkRecord(path: string, sessionId: string): boolean {
  const spare = `${path}${SPARE_SUFFIX}`;
  for (let tries = 0;; tries++) {
    try {
      Deno.linkSync(spare, path);
      return true;
    } catch (err) {
      if (err instanceof Deno.errors.AlreadyExists) return false;
      if (!(err instanceof Deno.errors.NotFound) || tries > 0) {
        throw new AppError("STATE_WRITE_FAILED", `Cannot create a lock file: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
    writeSpare(spare, sessionId);
  }
}

/** Writes this process's record copy beside the lock (whole, then renamed into place). */
function writeSpare(spare: string, sessionId: string): void {
  try {
    replaceFileSync(spare, MY_RECORD_TEXT, { sync: false });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw closedError(sessionId);
    throw new AppError("STATE_WRITE_FAILED", `Cannot create a lock file: ${(err as Error).message}`, { cause: err });
  }
}

/** True when the open flock file is still the one at its path (inode check; always true without inodes). */
function sameFile(file: Deno.FsFile, path: string, sessionId: string): boolean {
  const mine = file.statSync();
  let there: Deno.FileInfo;
  try {
    there = Deno.statSync(path);
  } catch {
    throw closedError(sessionId);
  }
  return mine.ino === null || there.ino === null || mine.ino === there.ino;
}

function readOwnerSync(path: string): LockRecord | null {
  try {
    return JSON.parse(decoder.decode(Deno.readFileSync(path))) as LockRecord;
  } catch {
    return null;
  }
}

function unlockAndClose(file: Deno.FsFile): void {
  try {
    file.unlockSync();
  } catch {
    // not locked
  }
  try {
    file.close();
  } catch {
    // already closed
  }
}

function staleError(sessionId: string, pid: number): AppError {
  return new AppError(
    "SEND_LOCK_STALE",
    `Cannot send to session "${sessionId}": a process that died (pid ${pid}) left its send lock`,
    {
      suggestion: "nothing was typed; press a key with pty_key (e.g. Escape) to take the lock over, " +
        "check the screen with pty_read, then retry",
      data: { owner_pid: pid },
    },
  );
}

function closedError(sessionId: string): AppError {
  return new AppError("SESSION_NOT_FOUND", `Cannot send to session "${sessionId}": it was closed`, {
    suggestion: "call pty_list",
  });
}
