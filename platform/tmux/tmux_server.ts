/**
 * The private tmux server behind the socket: whether the socket may be used at all, which server
 * process is ours, and getting a deleted socket back. tmux re-creates its socket when it receives
 * SIGUSR1; without that, a deleted socket leaves every live shell unreachable and the next
 * `new-session` starts a second server beside the first. So the pid the server reports about itself
 * (`display-message -p '#{pid}'`) is recorded with its start identity, and a missing socket is
 * re-created by signalling exactly that process, never one found by name.
 */
import { AppError } from "../../base/errors.ts";
import { replaceFile } from "../../base/atomic.ts";
import { dirname } from "node:path";
import { waitUntil } from "../../base/wait.ts";
import { currentUid } from "../paths.ts";
import { processStartIdentity, readProcStat, sameProcessAlive } from "../process.ts";

/** The record of the server we started (or last saw start a session). */
export interface ServerRecord {
  schema: "aiterm.tmux-server.v1";
  pid: number;
  /** processStartIdentity() of that pid when it was recorded. */
  start: string;
  /** The socket it serves. */
  socket: string;
}

/** How long a signalled server may take to re-create its socket. */
const RECREATE_TIMEOUT_MS = 5_000;

/** Why the file at `socketPath` must not be used, or null when it is our socket. */
export function socketProblem(st: Deno.FileInfo, uid: number | null): string | null {
  if (st.isSocket !== true) return "it is not a socket";
  if (uid !== null && st.uid !== null && st.uid !== uid) return `it belongs to uid ${st.uid}, not ${uid}`;
  return null;
}

/** Guards one socket path; `recordPath` is where the server's identity is kept (owner-only). */
export class TmuxServerGuard {
  readonly #socket: string;
  readonly #record: string;
  #recorded: number | null = null;
  #recovering: Promise<void> | null = null;

  constructor(socketPath: string, recordPath: string) {
    this.#socket = socketPath;
    this.#record = recordPath;
  }

  /**
   * Runs before every tmux command: a socket that is not ours is refused; a missing socket of a live
   * server of ours is re-created before anything could start a second server.
   * @returns undefined when the socket is fine (nothing to wait for), else a promise that settles when it is
   *   again, or rejects with STATE_ROOT_UNSAFE or TMUX_SERVER_GONE (our server runs but its socket cannot be
   *   re-created)
   */
  check(): Promise<void> | undefined {
    let st: Deno.FileInfo;
    try {
      // Synchronous, and no promise when the socket is fine: one lstat of a local path costs far less than a hop to
      // the I/O thread pool, and this runs before every tmux command (so a send's line leaves in the same tick).
      st = Deno.lstatSync(this.#socket);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) return Promise.reject(err);
      this.#recovering ??= this.#recover().finally(() => (this.#recovering = null));
      return this.#recovering;
    }
    const problem = socketProblem(st, currentUid());
    if (problem) {
      return Promise.reject(
        new AppError("STATE_ROOT_UNSAFE", `Cannot use the tmux socket "${this.#socket}": ${problem}`, {
          data: { path: this.#socket },
          suggestion:
            "nothing was run; remove that file (aiterm starts its own server again) after checking who made it",
        }),
      );
    }
    return undefined;
  }

  /** Records the server's pid (printed by new-session's command list) with its start identity. */
  async record(pid: number): Promise<void> {
    if (!Number.isInteger(pid) || pid <= 0 || pid === this.#recorded) return;
    const start = processStartIdentity(pid);
    if (start === null) return;
    const rec: ServerRecord = { schema: "aiterm.tmux-server.v1", pid, start, socket: this.#socket };
    try {
      await replaceFile(this.#record, JSON.stringify(rec) + "\n", { sync: false });
      this.#recorded = pid;
    } catch {
      // Not recorded: the next session start records it again.
    }
  }

  /** The recorded server when it is still that process and looks like tmux; null otherwise. */
  async #ourLiveServer(): Promise<ServerRecord | null> {
    let rec: ServerRecord;
    try {
      rec = JSON.parse(await Deno.readTextFile(this.#record)) as ServerRecord;
    } catch {
      return null;
    }
    if (rec?.schema !== "aiterm.tmux-server.v1" || rec.socket !== this.#socket) return null;
    if (!sameProcessAlive(rec.pid, rec.start)) return null;
    const comm = readProcStat(rec.pid)?.comm;
    if (comm !== undefined && !comm.startsWith("tmux")) return null;
    return rec;
  }

  async #recover(): Promise<void> {
    const rec = await this.#ourLiveServer();
    if (!rec) return;
    try {
      Deno.kill(rec.pid, "SIGUSR1");
    } catch {
      return;
    }
    const back = await waitUntil(() => Deno.lstat(this.#socket).then(() => true, () => false), {
      timeoutMs: RECREATE_TIMEOUT_MS,
      intervalMs: 2,
      maxIntervalMs: 50,
      watch: [dirname(this.#socket)],
    });
    if (back.status === "done") return;
    throw new AppError(
      "TMUX_SERVER_GONE",
      `Cannot reach the tmux server (pid ${rec.pid}): its socket was deleted and it did not re-create it`,
      {
        data: { pid: rec.pid },
        suggestion: "nothing was run and no second server was started; send it SIGUSR1 by hand or end it",
      },
    );
  }
}
