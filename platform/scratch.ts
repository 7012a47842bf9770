/**
 * Scratch files: the owner-only files a paste is loaded from (they hold the typed text). Each name
 * carries its writer's pid and start identity, so leftovers of a process that died (SIGKILL mid-send)
 * are recognised and removed at start-up without touching the files of another live server that
 * shares the state root.
 */
import { join } from "node:path";
import { processAlive, processStartIdentity } from "./process.ts";

const PREFIX = "aiterm-";
/** `aiterm-<pid>-<identity hash>-…`; names without the hash (older servers) carry only the pid. */
const NAME = /^aiterm-(\d+)-(?:([0-9a-f]{8})-)?/;

/** A short, stable hash of a start identity (FNV-1a, 32 bits), safe in file and tmux buffer names. */
export function identityHash(identity: string | null): string {
  let h = 0x811c9dc5;
  for (const ch of identity ?? "") {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

const MY_HASH = identityHash(processStartIdentity(Deno.pid));
/**
 * A fresh tag for one paste: scratch file names and multiplexer buffer names start with it. `seq` is the
 * caller's paste count (each multiplexer counts its own; the random part keeps tags apart across them).
 */
export function scratchTag(seq: number): string {
  return `${PREFIX}${Deno.pid}-${MY_HASH}-${seq}-${crypto.randomUUID().slice(0, 8)}`;
}

/** True when the process that wrote scratch file `name` is gone (or the pid now names another process). */
export function scratchOwnerGone(name: string): boolean {
  const m = name.match(NAME);
  if (!m) return false;
  const pid = Number(m[1]);
  if (!processAlive(pid)) return true;
  return m[2] !== undefined && m[2] !== identityHash(processStartIdentity(pid));
}

/**
 * Removes the scratch files in `dir` whose writer is gone; files of live processes stay. Returns
 * how many were removed. A missing directory is empty.
 */
export async function sweepScratch(dir: string): Promise<number> {
  let removed = 0;
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !scratchOwnerGone(entry.name)) continue;
      await Deno.remove(join(dir, entry.name)).then(() => removed++, () => {});
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return removed;
}
