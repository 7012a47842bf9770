/**
 * The server's stdin and stdout as web streams, read and written on the runtime's event loop where they are a pipe
 * or a socket (what an MCP client gives: Node makes socket pairs, most others pipes).
 *
 * `Deno.stdin` and `Deno.stdout` read and write through a thread-pool thread: a request wakes that thread, which
 * then wakes the event loop, and every answer wakes one again. On a machine whose CPUs sleep between calls each hop
 * is a wake-up; an echo of one JSON line after 10 ms idle took 0.69 ms that way and 0.39 ms with both descriptors
 * polled by the event loop (node:net on the descriptor: epoll, kqueue), which also never blocks the loop on a full
 * pipe (a write that cannot finish waits for the pipe to drain, like any socket write).
 *
 * Anything else (a terminal, a file, Windows) keeps `Deno.stdin`/`Deno.stdout`. A descriptor shared with stderr
 * (`2>&1`, or one socket for all three) keeps them too: the event loop's descriptor is made non-blocking, which would
 * make stderr's log writes fail when that pipe is full.
 */
import { Socket } from "node:net";

/** The two streams, and how each is carried (for the startup log). */
export interface ServerStdio {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
  how: { input: "event_loop" | "runtime"; output: "event_loop" | "runtime" };
}

/** stdin and stdout for the JSON-RPC transport (see the module doc). */
export function serverStdio(): ServerStdio {
  const input = polledDescriptor(0) && !sameFile(0, 2) ? readableSocket(0) : null;
  const output = polledDescriptor(1) && !sameFile(1, 2) ? writableSocket(1) : null;
  return {
    input: input ?? Deno.stdin.readable,
    output: output ?? Deno.stdout.writable,
    how: { input: input ? "event_loop" : "runtime", output: output ? "event_loop" : "runtime" },
  };
}

/** Whether descriptor `fd` is a pipe or a socket (something the event loop can poll). */
function polledDescriptor(fd: number): boolean {
  if (Deno.build.os === "windows") return false;
  const info = fdInfo(fd);
  return info !== null && (info.isFifo === true || info.isSocket === true);
}

function fdInfo(fd: number): Deno.FileInfo | null {
  try {
    return Deno.statSync(`/dev/fd/${fd}`);
  } catch {
    return null;
  }
}

/** Whether two descriptors are the same file (`2>&1`): not when one is closed; true when inodes cannot tell. */
function sameFile(a: number, b: number): boolean {
  const x = fdInfo(a);
  const y = fdInfo(b);
  if (!x || !y) return false;
  if (x.ino === null || y.ino === null) return true;
  return x.dev === y.dev && x.ino === y.ino;
}

function openSocket(fd: number, read: boolean): Socket | null {
  try {
    return new Socket({ fd, readable: read, writable: !read, allowHalfOpen: true });
  } catch {
    return null;
  }
}

/** Bytes of a chunk as a plain Uint8Array (a Buffer's `slice` is a view, which the line framer must not get). */
function plain(chunk: Uint8Array): Uint8Array {
  return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Descriptor `fd` read on the event loop, paused while the reader has a chunk it has not taken. */
function readableSocket(fd: number): ReadableStream<Uint8Array> | null {
  const sock = openSocket(fd, true);
  if (!sock) return null;
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      sock.on("data", (chunk: Uint8Array) => {
        if (done) return;
        controller.enqueue(plain(chunk));
        if ((controller.desiredSize ?? 1) <= 0) sock.pause();
      });
      sock.on("end", () => {
        if (done) return;
        done = true;
        controller.close();
      });
      sock.on("error", (err: Error) => {
        if (done) return;
        done = true;
        controller.error(err);
      });
    },
    pull() {
      sock.resume();
    },
    cancel() {
      done = true;
      sock.destroy();
    },
  });
}

/** Descriptor `fd` written on the event loop: a write resolves once the bytes are in the pipe. */
function writableSocket(fd: number): WritableStream<Uint8Array> | null {
  const sock = openSocket(fd, false);
  if (!sock) return null;
  // A write's own callback reports its failure; an error between writes has no one to tell.
  sock.on("error", () => {});
  return new WritableStream<Uint8Array>({
    write(chunk) {
      return new Promise<void>((resolve, reject) => {
        sock.write(chunk, (err?: Error | null) => (err ? reject(err) : resolve()));
      });
    },
    close() {
      return new Promise<void>((resolve) => sock.end(() => resolve()));
    },
    abort() {
      sock.destroy();
    },
  });
}
