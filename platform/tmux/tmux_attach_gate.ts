/**
 * Keeps a client's attach apart from session creation on one tmux server. tmux 3.3a's server can
 * segfault (a NULL read, "segfault at 20" in the kernel log) when a client runs `attach-session` while
 * other clients run `new-session`: every session on the server is lost and the clients in flight read
 * "server exited unexpectedly". Measured here with bare tmux (one session, then a control client
 * attaching while seven `new-session -d` run): 1–5 crashes in 15 bursts; none when the attach had
 * finished 50 ms earlier, none with the same bursts and no attach.
 *
 * So every `new-session` holds the gate shared (sessions are still created concurrently) and a control
 * client's start (attach, then the move to the oldest session) holds it exclusive. The gate is an
 * advisory `flock` on a file beside the socket: it also orders the aiterm processes that share the
 * socket, and the kernel drops it when its holder dies, so a SIGKILLed holder blocks nobody. Two
 * opens of one file in one process lock independently, so it orders this process's own calls too.
 * Where the file cannot be opened (a read-only directory), the work runs without the gate.
 */

/** The gate file of the server at `socketPath`. */
export function attachGatePath(socketPath: string): string {
  return `${socketPath}.attach.lock`;
}

/** A shared/exclusive gate on one file (see the module comment). */
export class AttachGate {
  readonly #path: string;

  constructor(path: string) {
    this.#path = path;
  }

  /** Runs `work` while no attach runs; other shared holders may run at the same time. */
  shared<T>(work: () => Promise<T>): Promise<T> {
    return this.#hold(false, work);
  }

  /** Runs `work` while nothing else holds the gate. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.#hold(true, work);
  }

  async #hold<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    let file: Deno.FsFile | null = null;
    try {
      file = await Deno.open(this.#path, { read: true, write: true, create: true, mode: 0o600 });
      await file.lock(exclusive);
    } catch {
      file?.close();
      file = null;
    }
    try {
      return await work();
    } finally {
      // Closing the file releases the lock.
      file?.close();
    }
  }
}
