/**
 * Lock owner identity, one definition for every cross-process lock under the state root (the send lock,
 * the runtime-error store's lock): who holds a lock is `{pid, identity, token}`, where `identity` is the
 * process's start identity (so a reused pid is not mistaken for the owner) and `token` tells this holder
 * from any other. {@link judgeOwner} is the one rule that decides whether a recorded owner may be taken
 * over: only when it is provably gone.
 */
import { processAlive, processStartIdentity, sameProcessAlive } from "../platform/mod.ts";

/** What a lock records about its holder. */
export interface LockOwner {
  pid: number;
  /** The holder's start identity (platform/process.ts); null where none can be read. */
  identity: string | null;
  token: string;
}

/** This process as an owner, before a token is chosen. */
export interface ThisProcess {
  pid: number;
  identity: string | null;
  /** Whether this process can tell live processes from dead ones at all (it sees itself alive). */
  canJudgeLiveness: boolean;
}

/**
 * The one piece of module state here, on purpose (tests/static/module_state_test.ts allows it): facts about
 * this process, read on first use (a /proc read, or a `ps` spawn off Linux) and never changed after.
 */
let self: ThisProcess | null = null;

/** Facts about this process (read once, on first use). */
export function thisProcess(): ThisProcess {
  self ??= {
    pid: Deno.pid,
    identity: processStartIdentity(Deno.pid),
    canJudgeLiveness: processAlive(Deno.pid),
  };
  return self;
}

/** A fresh owner token: 32 hex digits. */
export function newOwnerToken(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/** This process as the owner of a new hold (a fresh token unless one is given). */
export function ownerRecord(token: string = newOwnerToken()): LockOwner {
  const me = thisProcess();
  return { pid: me.pid, identity: me.identity, token };
}

/** Options for {@link judgeOwner}. */
export interface JudgeOptions {
  /**
   * Where this process cannot judge liveness at all (no /proc access, no `ps`): "alive" keeps every owner
   * (a live lock is never broken; a dead one costs waiting), "probe" asks anyway (every owner looks gone).
   */
  blind?: "alive" | "probe";
}

/**
 * Whether `owner` still holds: "self" (this very process), "alive" (another live process), or "gone"
 * (its pid is dead or now names another process, an earlier incarnation of this pid included): only a
 * gone owner's lock may be taken over. What "self" means is the lock's own rule.
 */
export function judgeOwner(
  owner: Pick<LockOwner, "pid" | "identity">,
  options: JudgeOptions = {},
): "self" | "alive" | "gone" {
  const me = thisProcess();
  if (options.blind === "alive" && !me.canJudgeLiveness) return "alive";
  if (owner.pid === me.pid) return owner.identity === null || owner.identity === me.identity ? "self" : "gone";
  return sameProcessAlive(owner.pid, owner.identity) ? "alive" : "gone";
}
