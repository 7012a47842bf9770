/**
 * The server's stdio transport: newline-delimited JSON-RPC with a line limit, and an answer for every line that is
 * not a message the SDK can dispatch (the SDK's own transport drops those silently, answers a bad `params` shape
 * with -32603, and closes on a line over 10 MiB):
 *
 * - not UTF-8 or not JSON: -32700 Parse error, id null;
 * - JSON but not a JSON-RPC 2.0 request, notification or response (a number, an array/batch, a bad `jsonrpc`,
 *   `method` or `id`, an unknown member): -32600 Invalid Request, with the id when it is a valid one;
 * - a request whose `params` do not fit its method (e.g. `tools/call` with `"arguments": "str"`): -32602 Invalid
 *   params with its id; a notification with bad params is dropped (notifications are never answered);
 * - a line over {@link MAX_REQUEST_BYTES}: skipped as it streams in (never held whole), then -32600 naming the
 *   limit, with the id when it can be read cheaply from the line's first or last bytes.
 *
 * Blank lines are ignored; a trailing `\r` is dropped. At the end of stdin, requests already read are answered
 * before the transport reports that it closed.
 */
import { log } from "../../base/log.ts";
import { ClientNotificationSchema, ClientRequestSchema, JSONRPCMessageSchema } from "./sdk.ts";
import type { JSONRPCMessage, Transport } from "./sdk.ts";

/**
 * The longest request line read, in bytes (without its newline). pty_send takes 64 KiB of UTF-8, at most 6 bytes
 * of JSON each (`\u001b`): 384 KiB; 4 MiB leaves ten times that for every other tool and stays far below what a
 * line costs to hold and parse.
 */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** JSON-RPC 2.0 error codes used here. */
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_INVALID_PARAMS = -32602;

type Id = string | number | null;

/** A line that gets an error answer (`answer: false`: dropped, for a notification). */
export interface LineProblem {
  id: Id;
  code: number;
  message: string;
  answer: boolean;
}

const ID_BYTES = 256;

/** A JSON-RPC id this server accepts: a string or a safe integer. */
export function validId(v: unknown): v is string | number {
  return typeof v === "string" || (typeof v === "number" && Number.isSafeInteger(v));
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const text = error.issues.map((i) => `${i.path.length ? i.path.map(String).join(".") : "(message)"}: ${i.message}`)
    .join("; ");
  return text.length > 300 ? text.slice(0, 300) + "…" : text;
}

type MethodSchema = { safeParse(v: unknown): { success: boolean; error?: unknown } };

function byMethod(union: { options: readonly unknown[] }): Map<string, MethodSchema> {
  const out = new Map<string, MethodSchema>();
  for (const option of union.options) {
    const method = (option as { shape?: { method?: { value?: unknown } } }).shape?.method?.value;
    if (typeof method === "string") out.set(method, option as MethodSchema);
  }
  return out;
}

const REQUESTS = byMethod(ClientRequestSchema);
const REQUEST_MEMBERS = new Set(["jsonrpc", "id", "method", "params"]);
const NOTIFICATION_MEMBERS = new Set(["jsonrpc", "method", "params"]);
const NOTIFICATIONS = byMethod(ClientNotificationSchema);

/** Whether a message has no member JSON-RPC does not have. */
function envelopeOnly(value: Record<string, unknown>, isRequest: boolean): boolean {
  const members = isRequest ? REQUEST_MEMBERS : NOTIFICATION_MEMBERS;
  for (const k in value) if (!members.has(k)) return false;
  return true;
}

/**
 * Whether `params` is a tools/call's in its plain form, which the SDK's schema accepts: a name, arguments that are an
 * object (or none), and at most a progress token (a string or an integer) in `_meta`. A task, other `_meta` members or
 * anything unexpected is not plain, and is judged by the schema as before.
 */
function plainToolCall(params: unknown): boolean {
  if (!isObject(params) || typeof params.name !== "string") return false;
  for (const k in params) if (k !== "name" && k !== "arguments" && k !== "_meta") return false;
  if (params.arguments !== undefined && !isObject(params.arguments)) return false;
  if (params._meta === undefined) return true;
  if (!isObject(params._meta)) return false;
  for (const k in params._meta) if (k !== "progressToken") return false;
  const token = params._meta.progressToken;
  return token === undefined || typeof token === "string" || Number.isInteger(token);
}

/** Classifies one parsed JSON value: the message to dispatch, or the problem to answer (see module doc). */
export function vetMessage(value: unknown): { message: JSONRPCMessage } | { problem: LineProblem } {
  const invalid = (id: Id, why: string, code = JSONRPC_INVALID_REQUEST, answer = true) => ({
    problem: {
      id,
      code,
      message: `${code === JSONRPC_INVALID_PARAMS ? "Invalid params" : "Invalid Request"}: ${why}`,
      answer,
    },
  });
  if (Array.isArray(value)) {
    return invalid(null, value.length ? "batches are not supported; send one message per line" : "an empty batch");
  }
  if (!isObject(value)) return invalid(null, "a JSON-RPC message is a JSON object");
  const id = validId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") return invalid(id, 'jsonrpc must be "2.0"');
  if ("id" in value && !validId(value.id)) return invalid(null, "id must be a string or an integer");
  if ("method" in value) {
    if (typeof value.method !== "string") return invalid(id, "method must be a string");
    const isRequest = "id" in value;
    if ("params" in value && !isObject(value.params)) {
      return invalid(id, "params must be an object", JSONRPC_INVALID_PARAMS, isRequest);
    }
    // The plain tool call (every call of a session) is recognised by hand; anything else about it goes to the schema.
    if (isRequest && value.method === "tools/call" && plainToolCall(value.params) && envelopeOnly(value, true)) {
      return { message: value as unknown as JSONRPCMessage };
    }
    const schema = (isRequest ? REQUESTS : NOTIFICATIONS).get(value.method);
    const checked = schema?.safeParse({ method: value.method, params: value.params });
    if (checked && !checked.success) {
      const why = `${value.method}: ${describe(checked.error as Parameters<typeof describe>[0])}`;
      return invalid(id, why, JSONRPC_INVALID_PARAMS, isRequest);
    }
    // A method we know, its params checked above, and no member JSON-RPC does not have: the envelope is whole
    // (the schema below would only say so again, at a cost on every call).
    if (checked && envelopeOnly(value, isRequest)) {
      return { message: value as unknown as JSONRPCMessage };
    }
  } else if (!("result" in value) && !("error" in value)) {
    return invalid(id, "method is missing");
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) {
    // A malformed response refers to one of our ids: answering with it would look like a reply to the client's.
    return invalid("method" in value ? id : null, describe(parsed.error));
  }
  return { message: parsed.data as JSONRPCMessage };
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Classifies one line (without its newline); null for a blank line. */
export function vetLine(bytes: Uint8Array): { message: JSONRPCMessage } | { problem: LineProblem } | null {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return {
      problem: { id: null, code: JSONRPC_PARSE_ERROR, message: "Parse error: the line is not UTF-8", answer: true },
    };
  }
  if (text.trim() === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const message = "Parse error: the line is not JSON (one JSON-RPC message per line)";
    return { problem: { id: null, code: JSONRPC_PARSE_ERROR, message, answer: true } };
  }
  return vetMessage(value);
}

const HEAD_ID = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")\s*[,}]/;
const TAIL_ID = /[,{]\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/;

/** The id of an oversized line, read from its first and last bytes only (null when it is not plainly there). */
export function recoverId(head: Uint8Array, tail: Uint8Array): Id {
  const lossy = new TextDecoder();
  const m = HEAD_ID.exec(lossy.decode(head)) ?? TAIL_ID.exec(lossy.decode(tail));
  if (!m) return null;
  try {
    const id = JSON.parse(m[1]!);
    return validId(id) ? id : null;
  } catch {
    return null;
  }
}

/** What {@link LineFramer} produces. */
export type Frame = { kind: "line"; bytes: Uint8Array } | { kind: "oversize"; bytes: number; id: Id };

/** Splits a byte stream at newlines; a line over the limit is counted and discarded as it arrives. */
export class LineFramer {
  readonly #max: number;
  #parts: Uint8Array[] = [];
  #size = 0;
  #discarding = false;
  #head = new Uint8Array(0);
  #tail = new Uint8Array(0);

  constructor(maxLineBytes: number) {
    this.#max = maxLineBytes;
  }

  /** Feeds a chunk; returns the frames it completes. */
  push(chunk: Uint8Array): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl);
      this.#add(piece);
      if (nl < 0) return frames;
      frames.push(this.#finish());
      start = nl + 1;
    }
  }

  /** The last line when the stream ended without a newline (null when there is none). */
  end(): Frame | null {
    return this.#size > 0 ? this.#finish() : null;
  }

  #add(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.#size += piece.length;
    if (!this.#discarding && this.#size > this.#max) {
      this.#discarding = true;
      const held = concat(this.#parts);
      this.#head = held.slice(0, ID_BYTES);
      this.#tail = held.slice(-ID_BYTES);
      this.#parts = [];
    }
    if (this.#discarding) {
      if (this.#head.length < ID_BYTES) {
        this.#head = concat([this.#head, piece.subarray(0, ID_BYTES)]).slice(0, ID_BYTES);
      }
      this.#tail = concat([this.#tail, piece.subarray(-ID_BYTES)]).slice(-ID_BYTES);
    } else this.#parts.push(piece.slice()); // a copy: the source may reuse its buffer
  }

  #finish(): Frame {
    let frame: Frame;
    if (this.#discarding) {
      let tail = this.#tail;
      if (tail[tail.length - 1] === 0x0d) tail = tail.subarray(0, -1);
      frame = { kind: "oversize", bytes: this.#size, id: recoverId(this.#head, tail) };
    } else {
      let bytes = concat(this.#parts);
      if (bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, -1);
      frame = { kind: "line", bytes };
    }
    this.#parts = [];
    this.#size = 0;
    this.#discarding = false;
    this.#head = new Uint8Array(0);
    this.#tail = new Uint8Array(0);
    return frame;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A line waiting to be written, and its caller. */
interface QueuedLine {
  bytes: Uint8Array;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** The most bytes of queued lines written in one call. */
const BATCH_BYTES = 256 * 1024;

/** Options for {@link LineTransport}. */
export interface LineTransportOptions {
  input?: ReadableStream<Uint8Array>;
  output?: WritableStream<Uint8Array>;
  maxLineBytes?: number;
}

/** Newline-delimited JSON-RPC over stdin/stdout (see module doc). */
export class LineTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  readonly #input: ReadableStream<Uint8Array>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #framer: LineFramer;
  readonly #encoder = new TextEncoder();
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  /** Lines waiting for the write in flight to end; then written together (see #write). */
  #queued: QueuedLine[] = [];
  /** A #flush loop is running (it takes every line queued until the queue is empty). */
  #flushing = false;
  /** Settles when no write is in flight and none is queued. */
  #writes: Promise<void> = Promise.resolve();
  /** Requests read and not answered yet (`typeof id:id`). */
  readonly #open = new Set<string>();
  #settled: (() => void) | null = null;
  #closed = false;

  constructor(options: LineTransportOptions = {}) {
    this.#input = options.input ?? Deno.stdin.readable;
    this.#writer = (options.output ?? Deno.stdout.writable).getWriter();
    this.#framer = new LineFramer(options.maxLineBytes ?? MAX_REQUEST_BYTES);
  }

  /** Starts reading (returns at once; lines are dispatched as they arrive). */
  start(): Promise<void> {
    if (this.#reader) throw new Error("LineTransport already started");
    this.#reader = this.#input.getReader();
    void this.#readLoop();
    return Promise.resolve();
  }

  /** Writes one message as one line; lines never interleave. */
  send(message: JSONRPCMessage): Promise<void> {
    if ("id" in message && !("method" in message) && validId(message.id)) this.#answered(message.id);
    return this.#write(JSON.stringify(message) + "\n");
  }

  /** Stops reading and reports the close once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader?.cancel().catch(() => {});
    await this.#writes;
    this.onclose?.();
  }

  /**
   * Queues one line. A line with no write in flight goes out at once; lines that come while one is in flight (many
   * answers at once: fifty sessions read together) go out together when it ends, in one write call instead of one
   * each (each write to stdout is a hop to the runtime's I/O thread). Lines never interleave or reorder.
   */
  #write(line: string): Promise<void> {
    const bytes = this.#encoder.encode(line);
    return new Promise<void>((resolve, reject) => {
      this.#queued.push({ bytes, resolve, reject });
      if (!this.#flushing) this.#writes = this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#flushing = true;
    while (this.#queued.length > 0) {
      // One batch up to BATCH_BYTES (a single larger line goes alone).
      let n = 0;
      let size = 0;
      while (n < this.#queued.length && (n === 0 || size + this.#queued[n]!.bytes.length <= BATCH_BYTES)) {
        size += this.#queued[n]!.bytes.length;
        n++;
      }
      const batch = this.#queued.splice(0, n);
      try {
        await this.#writer.write(concat(batch.map((q) => q.bytes)));
        for (const q of batch) q.resolve();
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        for (const q of batch) q.reject(error);
        this.onerror?.(error);
      }
    }
    this.#flushing = false;
  }

  async #readLoop(): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await this.#reader!.read();
        if (done) break;
        for (const frame of this.#framer.push(value)) this.#handle(frame);
      }
      const last = this.#framer.end();
      if (last) this.#handle(last);
    } catch (err) {
      if (!this.#closed) this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
    // End of input: answer what was asked, then close.
    while (this.#open.size > 0 && !this.#closed) await new Promise<void>((resolve) => this.#settled = resolve);
    await this.close();
  }

  #handle(frame: Frame): void {
    if (frame.kind === "oversize") {
      const mib = MAX_REQUEST_BYTES / (1024 * 1024);
      this.#problem({
        id: frame.id,
        code: JSONRPC_INVALID_REQUEST,
        message:
          `Invalid Request: the line is ${frame.bytes} bytes, over the ${mib} MiB limit (${MAX_REQUEST_BYTES} bytes); it was skipped`,
        answer: true,
      });
      return;
    }
    const vetted = vetLine(frame.bytes);
    if (vetted === null) return;
    if ("problem" in vetted) {
      this.#problem(vetted.problem);
      return;
    }
    const m = vetted.message;
    if ("method" in m && "id" in m) this.#open.add(`${typeof m.id}:${m.id}`);
    if ("method" in m && m.method === "notifications/cancelled") {
      // A cancelled request gets no answer (the SDK drops it): do not wait for one at the end of input.
      const cancelled = (m.params as { requestId?: unknown } | undefined)?.requestId;
      if (validId(cancelled)) this.#answered(cancelled);
    }
    this.onmessage?.(m);
  }

  #problem(p: LineProblem): void {
    log("debug", "json-rpc line refused", { code: p.code, answered: p.answer });
    if (!p.answer) return;
    void this.#write(JSON.stringify({ jsonrpc: "2.0", id: p.id, error: { code: p.code, message: p.message } }) + "\n")
      .catch(() => {});
  }

  #answered(id: string | number): void {
    if (this.#open.delete(`${typeof id}:${id}`) && this.#open.size === 0) this.#settled?.();
  }
}
