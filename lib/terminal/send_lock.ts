/**
 * The per-session send lock, shared by every aiterm process on the machine. Two files in the session
 * directory:
 *
 * - `send.lock.flock` is held with an exclusive advisory lock (flock) for the whole hold. The kernel
 *   drops it when its process dies, so whether someone holds the lock is never guessed from a pid.
 * - `send.lock`, the record, is created exclusively with the holder's pid, start identity and token,
 *   and removed by the holder on release (the same file older aiterm versions use on their own).
 *
 * A record whose flock is free was left by a process that died while holding it (SIGKILL mid-send):
 * when its pid is gone or now names another process, the record is taken over and the hold says
 * `recoveredStaleLock` (that send may have been partly typed), or, for callers that do not take over,
 * SEND_LOCK_STALE. Nothing is ever removed or replaced while a live process could own it: a free
 * flock with the record of a live process is an older aiterm's lock, waited for like any other.
 */
import { AppError } from "../errors.ts";
import { createExclusiveJson, readJsonFile, writeJsonAtomic } from "../state/mod.ts";
import { processStartIdentity, sameProcessAlive } from "../../platform/mod.ts";

interface LockRecord {
  pid: number;
  identity: string | null;
  token: string;
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

const MY_IDENTITY = processStartIdentity(Deno.pid);

/** The file whose flock is the lock itself. */
export function flockPath(path: string): string {
  return `${path}.flock`;
}

/** Reads the lock's owner, or null when no lock is held. */
export async function readSendLock(path: string): Promise<{ pid: number; alive: boolean } | null> {
  const rec = await readJsonFile<LockRecord>(path).catch(() => null);
  if (!rec) return null;
  return { pid: rec.pid, alive: sameProcessAlive(rec.pid, rec.identity) };
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
  const record: LockRecord = {
    pid: Deno.pid,
    identity: MY_IDENTITY,
    token: crypto.randomUUID(),
    at: new Date().toISOString(),
  };
  const { file, hold } = await acquire(path, record, options);
  try {
    return await fn(hold);
  } finally {
    const now = await readJsonFile<LockRecord>(path).catch(() => null);
    if (now?.token === record.token) await Deno.remove(path).catch(() => {});
    await unlockAndClose(file);
  }
}

type Attempt = { file: Deno.FsFile; hold: Omit<SendLockHold, "waited"> } | { busy: number | null };

async function acquire(
  path: string,
  record: LockRecord,
  options: SendLockOptions,
): Promise<{ file: Deno.FsFile; hold: SendLockHold }> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let delay = 2;
  for (let waited = false;; waited = true) {
    const got = await attempt(path, record, options);
    if ("file" in got) return { file: got.file, hold: { ...got.hold, waited } };
    if (Date.now() > deadline) {
      throw new AppError(
        "SEND_LOCK_BUSY",
        `Cannot send to session "${options.sessionId}": pid ${got.busy ?? "?"} is still sending to it`,
        { suggestion: "nothing was typed; retry when that send has finished", data: { owner_pid: got.busy } },
      );
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 20);
  }
}

/** One try: the flock, then the record. Anything but a hold releases the flock before returning. */
async function attempt(path: string, record: LockRecord, options: SendLockOptions): Promise<Attempt> {
  const file = await openFlock(path, options.sessionId);
  let held = false;
  try {
    if (!(await file.tryLock(true))) return { busy: (await readOwner(path))?.pid ?? null };
    // A session closed (and maybe reopened) meanwhile: our flock is on a file nobody else will open.
    if (!(await sameFile(file, flockPath(path), options.sessionId))) return { busy: null };
    if (await createExclusiveJson(path, record)) {
      held = true;
      return { file, hold: { recoveredStaleLock: false, staleOwnerPid: null } };
    }
    const owner = await readOwner(path);
    // Released between the two steps by an older aiterm, or that aiterm holds it right now.
    if (owner === null) return { busy: null };
    if (owner.pid !== Deno.pid && sameProcessAlive(owner.pid, owner.identity)) return { busy: owner.pid };
    if (options.takeover === false) throw staleError(options.sessionId, owner.pid);
    // We hold the flock, so no process of this protocol can touch the record; older ones never replace it.
    await writeJsonAtomic(path, record, { sync: false });
    held = true;
    return { file, hold: { recoveredStaleLock: true, staleOwnerPid: owner.pid } };
  } finally {
    if (!held) await unlockAndClose(file);
  }
}

async function openFlock(path: string, sessionId: string): Promise<Deno.FsFile> {
  try {
    return await Deno.open(flockPath(path), { read: true, write: true, create: true, mode: 0o600 });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw closedError(sessionId);
    throw err;
  }
}

/** True when the open flock file is still the one at its path (inode check; always true without inodes). */
async function sameFile(file: Deno.FsFile, path: string, sessionId: string): Promise<boolean> {
  const [mine, there] = await Promise.all([file.stat(), Deno.stat(path).catch(() => null)]);
  if (there === null) throw closedError(sessionId);
  return mine.ino === null || there.ino === null || mine.ino === there.ino;
}

async function readOwner(path: string): Promise<LockRecord | null> {
  return await readJsonFile<LockRecord>(path).catch(() => null);
}

async function unlockAndClose(file: Deno.FsFile): Promise<void> {
  await file.unlock().catch(() => {});
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
