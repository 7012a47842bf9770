/**
 * The per-session send lock, shared by every aiterm process on the machine. It is a file created
 * exclusively with its owner's pid, start identity and a token; the owner removes it. A lock whose
 * owner died is never taken over silently (another process may be mid-send in a way we cannot see):
 * the caller gets SEND_LOCK_STALE and closes and reopens the session.
 */
import { AppError } from "../errors.ts";
import { createExclusiveJson, readJsonFile } from "../state/mod.ts";
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
}

const MY_IDENTITY = processStartIdentity(Deno.pid);

/** Reads the lock's owner, or null when no lock is held. */
export async function readSendLock(path: string): Promise<{ pid: number; alive: boolean } | null> {
  const rec = await readJsonFile<LockRecord>(path).catch(() => null);
  if (!rec) return null;
  return { pid: rec.pid, alive: sameProcessAlive(rec.pid, rec.identity) };
}

/**
 * Runs `fn` while holding the session's send lock.
 * @throws {AppError} SEND_LOCK_BUSY when a live owner keeps it past the timeout
 * @throws {AppError} SEND_LOCK_STALE when a dead owner left it
 */
export async function withSendLock<T>(path: string, options: SendLockOptions, fn: () => Promise<T>): Promise<T> {
  const token = crypto.randomUUID();
  const record: LockRecord = { pid: Deno.pid, identity: MY_IDENTITY, token, at: new Date().toISOString() };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let delay = 2;
  for (;;) {
    if (await createExclusiveJson(path, record)) break;
    const owner = await readJsonFile<LockRecord>(path).catch(() => null);
    if (owner && !sameProcessAlive(owner.pid, owner.identity)) {
      throw new AppError(
        "SEND_LOCK_STALE",
        `Cannot send to session "${options.sessionId}": a process that died (pid ${owner.pid}) left its send lock`,
        {
          suggestion: "nothing was typed; call pty_close on the session and pty_open it again",
          data: { owner_pid: owner.pid },
        },
      );
    }
    if (Date.now() > deadline) {
      throw new AppError(
        "SEND_LOCK_BUSY",
        `Cannot send to session "${options.sessionId}": pid ${owner?.pid ?? "?"} is still sending to it`,
        {
          suggestion: "nothing was typed; retry when that send has finished",
          data: { owner_pid: owner?.pid ?? null },
        },
      );
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 20);
  }
  try {
    return await fn();
  } finally {
    const now = await readJsonFile<LockRecord>(path).catch(() => null);
    if (now?.token === token) await Deno.remove(path).catch(() => {});
  }
}
