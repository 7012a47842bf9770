/**
 * The lock with owner identity that aiterm processes share for a file they all write: the runtime-error
 * aggregate (`<dir>/lock`) and each parent-delivery record (`<dir>/<id>.lock`). `name` is the lock's
 * directory name inside `dir` (default `lock`); below, `lock` stands for it.
 *
 * `<dir>/lock` is a directory that holds exactly one file, `owner.<token>.json` = {pid, identity,
 * token}. A writer builds `lock.<token>.tmp/owner.<token>.json` completely, then renames that
 * directory to `lock`. rename(2) of a directory succeeds only when the target does not exist or is
 * an empty directory, so the lock appears atomically with its owner record already inside (the
 * directory form of the hard-link pattern in state/atomic.ts). The owner releases it by
 * unlinking `lock/owner.<token>.json` and then removing the empty directory; an empty `lock`
 * directory means "free".
 *
 * A dead owner (pid gone, or the pid now belongs to another start identity) is cleaned by unlinking
 * `lock/owner.<dead token>.json` — by its name, which carries the token read before. That unlink can
 * only ever remove that one owner's record: if another process cleaned it first and a third process
 * has since taken the lock, the third's record has a different name and the unlink fails with
 * NotFound. There is no "check, then delete whatever is at the path" window, so no ABA race.
 */
import { join } from "node:path";
import { waitUntil } from "../base/wait.ts";
import { judgeOwner, type LockOwner, newOwnerToken, ownerRecord, thisProcess } from "./owner.ts";

const encoder = new TextEncoder();
const OWNER_RE = /^owner\.([0-9a-f]{32})\.json$/;

/** What is written into the owner file (the one owner record of state/owner.ts). */
export type { LockOwner };

/** A held lock. */
export interface LockHandle {
  readonly token: string;
  /** True while `lock/owner.<token>.json` is still ours. */
  held(): Promise<boolean>;
  /** Gives the lock up; never throws. */
  release(): Promise<void>;
}

/** What a look at `<dir>/lock` found. */
export type LockState =
  | { kind: "absent" }
  | { kind: "free" }
  | { kind: "held"; owner: LockOwner; alive: boolean }
  | { kind: "unusable" };

/**
 * Where this process cannot tell live processes from dead ones at all (no /proc access, no `ps`), every
 * owner counts as alive, so a live lock is never broken; a dead owner's lock then only costs dropped
 * records until a process that can see cleans it. Another hold of this same process is alive too.
 */
function ownerAlive(owner: LockOwner): boolean {
  return judgeOwner(owner, { blind: "alive" }) !== "gone";
}

/** The lock directory inside the store directory. */
export function lockPath(dir: string, name = "lock"): string {
  return join(dir, name);
}

function parseOwner(text: string, token: string): LockOwner | null {
  try {
    const v = JSON.parse(text) as Partial<LockOwner>;
    if (typeof v.pid !== "number" || !Number.isSafeInteger(v.pid) || v.token !== token) return null;
    if (v.identity !== null && typeof v.identity !== "string") return null;
    return { pid: v.pid, identity: v.identity, token };
  } catch {
    return null;
  }
}

/** Looks at the lock without changing it. */
export async function inspectLock(dir: string, name = "lock"): Promise<LockState> {
  const path = lockPath(dir, name);
  let names: string[];
  try {
    const st = await Deno.lstat(path);
    if (!st.isDirectory || st.isSymlink) return { kind: "unusable" };
    names = [];
    for await (const e of Deno.readDir(path)) names.push(e.name);
  } catch (err) {
    return err instanceof Deno.errors.NotFound ? { kind: "absent" } : { kind: "unusable" };
  }
  if (names.length === 0) return { kind: "free" };
  const entry = names[0];
  const match = names.length === 1 && entry !== undefined ? OWNER_RE.exec(entry) : null;
  const token = match?.[1];
  if (entry === undefined || token === undefined) return { kind: "unusable" };
  let text: string;
  try {
    text = await Deno.readTextFile(join(path, entry));
  } catch (err) {
    // Released (or cleaned) between the listing and the read: look again.
    return err instanceof Deno.errors.NotFound ? { kind: "absent" } : { kind: "unusable" };
  }
  const owner = parseOwner(text, token);
  // The record is complete before the directory is renamed into place, so an unparsable one can
  // only come from a crash of the whole machine: its writer is gone.
  if (!owner) return { kind: "held", owner: { pid: 0, identity: null, token }, alive: !thisProcess().canJudgeLiveness };
  return { kind: "held", owner, alive: ownerAlive(owner) };
}

/**
 * Removes the record of the owner whose token is `deadToken`, and only that one (see the module
 * comment). Returns true when this call removed it. Callers must have seen that owner dead.
 */
export async function removeDeadOwner(dir: string, deadToken: string, name = "lock"): Promise<boolean> {
  if (!/^[0-9a-f]{32}$/.test(deadToken)) return false;
  try {
    await Deno.remove(join(lockPath(dir, name), `owner.${deadToken}.json`));
  } catch {
    return false;
  }
  await Deno.remove(lockPath(dir, name)).catch(() => {}); // only succeeds while it is empty
  return true;
}

async function buildCandidate(dir: string, name: string, owner: LockOwner): Promise<string> {
  const tmp = join(dir, `${name}.${owner.token}.tmp`);
  await Deno.mkdir(tmp, { mode: 0o700 });
  try {
    const file = await Deno.open(join(tmp, `owner.${owner.token}.json`), { write: true, createNew: true, mode: 0o600 });
    try {
      const bytes = encoder.encode(JSON.stringify(owner) + "\n");
      let off = 0;
      while (off < bytes.length) off += await file.write(bytes.subarray(off));
    } finally {
      file.close();
    }
  } catch (err) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw err;
  }
  return tmp;
}

/** Options for {@link acquireLock}. */
export interface AcquireOptions {
  /** Give up after this long (the caller drops its write). */
  timeoutMs: number;
  /** The lock's directory name inside `dir` (default `lock`). */
  name?: string;
}

/**
 * Takes the lock, cleaning a dead owner's lock on the way. Null when a live owner kept it past
 * the timeout or the lock cannot be used at all. Never throws.
 */
export async function acquireLock(dir: string, options: AcquireOptions): Promise<LockHandle | null> {
  const owner: LockOwner = ownerRecord(newOwnerToken());
  const name = options.name ?? "lock";
  const path = lockPath(dir, name);
  let tmp: string | null = null;
  // One try: rename our candidate into place, or clean what stands in the way ("progressed": try again at once).
  const tryOnce = async (): Promise<LockHandle | "progressed" | "blocked"> => {
    const candidate: string = tmp ?? await buildCandidate(dir, name, owner);
    tmp = candidate;
    try {
      await Deno.rename(candidate, path);
      tmp = null;
      return handleFor(path, owner.token);
    } catch (err) {
      // Our candidate vanished (a cleaner removed an old-looking temp directory): build it again.
      if (err instanceof Deno.errors.NotFound) {
        await Deno.remove(candidate, { recursive: true }).catch(() => {});
        tmp = null;
      }
    }
    const state = await inspectLock(dir, name);
    let progressed = false;
    if (state.kind === "free") {
      // Windows cannot rename onto an empty directory; rmdir only succeeds while it is still empty.
      progressed = await Deno.remove(path).then(() => true, () => false);
    } else if (state.kind === "held" && !state.alive) {
      progressed = await removeDeadOwner(dir, state.owner.token, name);
    } else if (state.kind === "absent") {
      progressed = true;
    }
    return progressed ? "progressed" : "blocked";
  };
  try {
    // A try that cleaned something is repeated at once; a blocked one backs off (with jitter) up to 25 ms.
    const got = await waitUntil(tryOnce, {
      timeoutMs: options.timeoutMs,
      intervalMs: 1,
      maxIntervalMs: 25,
      jitter: true,
      until: (r) => typeof r !== "string",
      again: (r) => r === "progressed",
    });
    return got.status === "done" && typeof got.value !== "string" ? got.value : null;
  } catch {
    return null;
  } finally {
    if (tmp !== null) await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

function handleFor(path: string, token: string): LockHandle {
  const ownerFile = join(path, `owner.${token}.json`);
  return {
    token,
    held: () => Deno.lstat(ownerFile).then(() => true, () => false),
    release: async () => {
      await Deno.remove(ownerFile).catch(() => {});
      await Deno.remove(path).catch(() => {});
    },
  };
}

/**
 * Removes lock candidates (`lock.<token>.tmp`) that writers killed before their rename left
 * behind, once older than `minAgeMs`. A live writer whose candidate is removed builds a new one.
 */
export async function removeOldCandidates(dir: string, minAgeMs: number, name = "lock"): Promise<void> {
  const now = Date.now();
  const prefix = `${name}.`;
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.name.startsWith(prefix) || !/^[0-9a-f]{32}\.tmp$/.test(e.name.slice(prefix.length))) continue;
      const p = join(dir, e.name);
      const st = await Deno.lstat(p).catch(() => null);
      if (!st?.isDirectory || st.isSymlink) continue;
      if (now - (st.mtime?.getTime() ?? 0) < minAgeMs) continue;
      await Deno.remove(p, { recursive: true }).catch(() => {});
    }
  } catch {
    // best effort
  }
}
