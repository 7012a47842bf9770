/** Reading a Codex thread's official queue through an app-server connection (every page). */
import { type AppServer, recordOf, type RpcFailure } from "./app_server.ts";

/** Upper bound on queue pages, so a server that repeats its cursor cannot loop us forever. */
const MAX_QUEUE_PAGES = 1000;

/**
 * Every entry of a thread's official queue, in order, reading all pages (`thread/queue/list`).
 * A failed page is turned into an error by `onFailure` (default: the connection's `unavailable`).
 */
export async function listQueue(
  conn: AppServer,
  threadId: string,
  onFailure: (reply: RpcFailure) => Error = (f) =>
    conn.unavailable(`thread/queue/list failed: ${f.message}`, { rpc_code: f.code }),
): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  const seen = new Set<string>();
  for (let page = 0; page < MAX_QUEUE_PAGES; page++) {
    const params: Record<string, unknown> = { threadId };
    if (cursor !== null) params.cursor = cursor;
    const list = await conn.call("thread/queue/list", params);
    if (!list.ok) throw onFailure(list);
    const res = recordOf(list.result);
    if (!res || !Array.isArray(res.data)) throw conn.unavailable("thread/queue/list answered without a data array");
    for (const item of res.data) {
      const e = recordOf(item);
      if (e) all.push(e);
    }
    const next = typeof res.nextCursor === "string" && res.nextCursor !== "" ? res.nextCursor : null;
    if (next === null) return all;
    if (seen.has(next)) throw conn.unavailable(`thread/queue/list repeated its cursor "${next}"`);
    seen.add(next);
    cursor = next;
  }
  throw conn.unavailable(`thread/queue/list did not end within ${MAX_QUEUE_PAGES} pages`);
}
