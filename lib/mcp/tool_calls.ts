/**
 * `tools/call` answered next to the SDK, not through it. The SDK's request dispatch (its request checks, an abort
 * controller and a context object per request, the result checked again against CallToolResultSchema) costs a
 * quarter of a millisecond per call on a cold process, about a tenth of a `pty_send` (ADR 0022, third amendment);
 * the tool call itself already validates its arguments and its result with the tool's own schemas (./server.ts).
 *
 * {@link ToolCallRouter} sits between a transport and the SDK's Server: a `tools/call` request goes to the tool
 * dispatcher, everything else (initialize, tools/list, ping, notifications) to the SDK. What the SDK did for a
 * tool call is kept: the progress token of the request's `_meta` gets `notifications/progress`, a
 * `notifications/cancelled` for it aborts its signal and it gets no answer, and closing the connection aborts every
 * call in flight.
 */
import type { JSONRPCMessage, Transport } from "./sdk.ts";
import { isObject, JSONRPC_INVALID_PARAMS, validId } from "./stdio_transport.ts";
import type { ProgressFn, SettleFn } from "./tool.ts";

/** What a tool call gets besides its params. */
export interface ToolCallContext {
  progress: ProgressFn;
  signal: AbortSignal;
  /** Work that runs after the answer was written (`true`), or when it was not (cancelled, the client gone: `false`). */
  settle(fn: SettleFn): void;
}

/** The params of a `tools/call` request (checked only this far here: the tool checks its arguments). */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** Runs one tool call to its result (never throws for a tool's own failure: that is an isError result). */
export type ToolCallDispatch = (params: ToolCallParams, ctx: ToolCallContext) => Promise<Record<string, unknown>>;

const JSONRPC_INTERNAL_ERROR = -32603;

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

type Id = string | number;
type Message = Record<string, unknown>;

/** A transport for the SDK's Server that answers `tools/call` itself (see module doc). */
export class ToolCallRouter implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  readonly #inner: Transport;
  readonly #dispatch: ToolCallDispatch;
  /** Calls in flight by `typeof id:id`. */
  readonly #running = new Map<string, AbortController>();

  constructor(inner: Transport, dispatch: ToolCallDispatch) {
    this.#inner = inner;
    this.#dispatch = dispatch;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(): Promise<void> {
    this.#inner.onmessage = (message) => this.#route(message as unknown as Message);
    this.#inner.onerror = (error) => this.onerror?.(error);
    // What the transport's owner set (main.ts exits on it) runs as well.
    const ownerClose = this.#inner.onclose;
    this.#inner.onclose = () => {
      for (const call of this.#running.values()) call.abort();
      this.#running.clear();
      ownerClose?.();
      this.onclose?.();
    };
    return this.#inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#inner.send(message);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #route(m: Message): void {
    if (m.method === "tools/call" && validId(m.id)) {
      void this.#call(m.id, m.params);
      return;
    }
    if (m.method === "notifications/cancelled" && isObject(m.params) && validId(m.params.requestId)) {
      this.#running.get(`${typeof m.params.requestId}:${m.params.requestId}`)?.abort();
    }
    this.onmessage?.(m as unknown as JSONRPCMessage);
  }

  async #call(id: Id, params: unknown): Promise<void> {
    if (
      !isObject(params) || typeof params.name !== "string" ||
      !(params.arguments === undefined || isObject(params.arguments))
    ) {
      await this.#answer({
        jsonrpc: "2.0",
        id,
        error: {
          code: JSONRPC_INVALID_PARAMS,
          message: "Invalid params: tools/call takes a name and an arguments object",
        },
      });
      return;
    }
    const key = `${typeof id}:${id}`;
    const abort = new AbortController();
    this.#running.set(key, abort);
    const meta = isObject(params._meta) ? params._meta : undefined;
    const token = meta?.progressToken;
    const progress: ProgressFn = async (progress, total, message) => {
      if (!validId(token) || abort.signal.aborted) return;
      await this.#inner.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress,
          ...(total !== undefined ? { total } : {}),
          ...(message ? { message } : {}),
        },
      }).catch(() => {});
    };
    const settlers: SettleFn[] = [];
    const settle = (fn: SettleFn) => void settlers.push(fn);
    let reply: Message;
    try {
      const result = await this.#dispatch(params as unknown as ToolCallParams, {
        progress,
        signal: abort.signal,
        settle,
      });
      reply = { jsonrpc: "2.0", id, result };
    } catch (err) {
      reply = { jsonrpc: "2.0", id, error: { code: JSONRPC_INTERNAL_ERROR, message: String(err) } };
    } finally {
      this.#running.delete(key);
    }
    // A cancelled request is not answered (the client stopped waiting for it), and what it read is not consumed.
    const delivered = !abort.signal.aborted && await this.#answer(reply);
    for (const fn of settlers) await fn(delivered).catch((err) => this.onerror?.(asError(err)));
  }

  /** Writes `reply`; false when it could not be written. */
  async #answer(reply: Message): Promise<boolean> {
    try {
      await this.#inner.send(reply as unknown as JSONRPCMessage);
      return true;
    } catch (err) {
      this.onerror?.(asError(err));
      return false;
    }
  }
}
