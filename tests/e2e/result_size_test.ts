/**
 * Results stay within 1 MiB (issue 14 item 9): ~20 MB of output read with full:true, raw:true and
 * line_range "1:" through the real SDK client comes back in pages that rebuild it exactly; before,
 * one 20 MB line made the client drop the connection and the server exit.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";
import type { CallToolResult } from "../../lib/mcp/sdk.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };
const LIMIT = 1024 * 1024;
const enc = new TextEncoder();

interface Page {
  text: string;
  view?: string;
  /** Only where the text starts after a gap (truncated). */
  cursor?: number;
  next_cursor: number;
  next_line: number | null;
  end?: number;
  has_more?: boolean;
  truncated?: boolean;
  meta: string | null;
}

async function sha256(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? enc.encode(data) : data;
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Calls pty_read page after page; asserts each result's size and that the text block is no second copy. */
async function pages(
  c: TestClient,
  first: Record<string, unknown>,
  next: (p: Page) => Record<string, unknown>,
): Promise<Page[]> {
  const out: Page[] = [];
  let args = first;
  for (;;) {
    const r: CallToolResult = await c.call("pty_read", args);
    assert(!r.isError, `pty_read ${JSON.stringify(args)} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
    const size = enc.encode(JSON.stringify(r)).length;
    assert(size <= LIMIT, `a result of ${size} bytes for ${JSON.stringify(args)}`);
    const p = r.structuredContent as unknown as Page;
    const block = r.content[0]?.type === "text" ? r.content[0].text : "";
    if (p.text.length > 64 * 1024) assert(block.length < 4096, `a ${block.length}-char text block repeats the body`);
    out.push(p);
    if (!p.has_more) return out;
    assert(out.length < 200, "paging does not end");
    args = next(p);
  }
}

/** The base64 lines of a text (the file's content as the terminal showed it). */
function base64Lines(text: string): string {
  // deno-lint-ignore no-control-regex
  const plain = text.replace(/\x1b\][^\x07]*\x07/g, "").replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replaceAll("\r", "");
  return plain.split("\n").filter((l) => /^[A-Za-z0-9+/=]{4,76}$/.test(l)).join("\n") + "\n";
}

Deno.test(
  "a 20 MB output reads in pages of at most 1 MiB that rebuild it exactly; the client stays connected",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    // A scrollback larger than one result: panes opened from now on keep 50,000 lines.
    await c.ok("pty_open", { cwd: t.root, name: "warm" });
    assertEquals((await t.tmux("set-option", "-g", "history-limit", "50000")).code, 0);
    const id = (await c.ok<{ session_id: string }>("pty_open", { cwd: t.root })).session_id;
    const file = `${t.root}/data.b64`;
    await c.ok("pty_send", {
      wait: false,
      session_id: id,
      text: `head -c 15000000 /dev/urandom | base64 > ${file}; cat ${file}`,
    });
    const done = await c.ok<Page & { is_complete: boolean }>("pty_read", { session_id: id, wait: true, timeout: 300 });
    assert(done.is_complete, "the cat did not finish");
    const want = await sha256(await Deno.readFile(file));

    // raw:true from the start: the pages are the log, byte for byte.
    const raw = await pages(c, { session_id: id, raw: true, cursor: 0 }, (p) => ({
      session_id: id,
      raw: true,
      cursor: p.next_cursor,
    }));
    assert(raw.length > 10 && raw[0]!.has_more, `raw: ${raw.length} pages`);
    // Each page starts where it was asked to (a start after a gap would say cursor and truncated).
    for (const p of raw) assertEquals([p.cursor, p.truncated], [undefined, undefined]);
    const rawText = raw.map((p) => p.text).join("");
    assertEquals(rawText.length, raw[raw.length - 1]!.next_cursor, "raw pages do not cover the log exactly");
    assertEquals(await sha256(base64Lines(rawText)), want);

    // full:true: whole lines per page, from the first byte of the log.
    const full = await pages(c, { session_id: id, full: true }, (p) => ({
      session_id: id,
      full: true,
      cursor: p.next_cursor,
    }));
    assert(full.length > 10 && full[0]!.has_more && !full[0]!.truncated, `full: ${full.length} pages`);
    assertEquals(await sha256(base64Lines(full.map((p) => p.text).join("\n"))), want);

    // line_range "1:" continues with next_line.
    const lines = await pages(c, { session_id: id, line_range: "1:" }, (p) => {
      assert(typeof p.next_line === "number", "has_more without next_line");
      assertStringIncludes(p.meta ?? "", `line_range="${p.next_line}:"`);
      return { session_id: id, line_range: `${p.next_line}:` };
    });
    assert(lines.length > 10, `line_range: ${lines.length} pages`);
    assertEquals(await sha256(base64Lines(lines.map((p) => p.text).join("\n"))), want);

    // The screen with its whole scrollback keeps the newest lines that fit, and says so.
    const screen = await c.call("pty_read", { session_id: id, screen: true, lines: 50000 });
    assert(enc.encode(JSON.stringify(screen)).length <= LIMIT, "screen result over the limit");
    const sc = screen.structuredContent as unknown as Page;
    assert(sc.truncated, "a cut screen must say truncated");
    assertStringIncludes(sc.meta ?? "", "left out");

    // Still connected, still serving.
    const list = await c.ok<{ sessions: { session_id: string }[] }>("pty_list", {});
    assert(list.sessions.some((s) => s.session_id === id));
  },
);

Deno.test(
  "line_range pages a bounded range, counts from a cursor, and cuts a line longer than a page",
  opts,
  async () => {
    await using t = await makeTestEnv({ AITERM_LOG_SEGMENT_BYTES: "65536", AITERM_LOG_KEEP_SEGMENTS: "200" });
    await using c = await connect(t.env);
    const id = (await c.ok<{ session_id: string }>("pty_open", { cwd: t.root })).session_id;
    // 3,000,000 characters on one line, then 200,000 numbered lines.
    await c.ok("pty_send", {
      wait: false,
      session_id: id,
      text: "head -c 3000000 /dev/zero | tr '\\0' x; echo; seq -f 'n%06g' 1 200000",
    });
    assert(
      (await c.ok<{ is_complete: boolean }>("pty_read", { session_id: id, wait: true, timeout: 120 })).is_complete,
    );
    // The first page stops before the long line; the long line alone is cut at the limit.
    const head = await c.ok<Page>("pty_read", { session_id: id, line_range: "1:" });
    assert(head.has_more && typeof head.next_line === "number", JSON.stringify(head.meta));
    const long = head.next_line;
    const cut = await c.call("pty_read", { session_id: id, line_range: `${long}:` });
    assert(enc.encode(JSON.stringify(cut)).length <= LIMIT, "a cut line over the limit");
    const cp = cut.structuredContent as unknown as Page;
    assert(/^x+$/.test(cp.text) && cp.has_more && (cp.next_line ?? null) === null, JSON.stringify(cp.meta));
    assertStringIncludes(cp.meta ?? "", `cursor=${cp.next_cursor}`);
    const rest = await c.ok<Page>("pty_read", { session_id: id, cursor: cp.next_cursor, line_range: "1:1" });
    assert(/^x+$/.test(rest.text), "the rest of the long line");
    // A bounded range ends without has_more; with a cursor, lines count from there.
    const range = await c.ok<Page>("pty_read", { session_id: id, line_range: `${long + 1}:${long + 3}` });
    // has_more and next_line are left out when there is nothing more (pty_read drops fields at their default).
    assertEquals([range.text, range.has_more, range.next_line], ["n000001\nn000002\nn000003", undefined, undefined]);
    const fromCursor = await c.ok<Page>("pty_read", { session_id: id, cursor: range.next_cursor, line_range: "1:2" });
    assertEquals(fromCursor.text, "n000004\nn000005");
    // Every numbered line, in order, paging with next_line.
    const all = await pages(c, { session_id: id, line_range: `${long + 1}:` }, (p) => ({
      session_id: id,
      line_range: `${p.next_line}:`,
    }));
    assert(all.length >= 2, `${all.length} pages`);
    const numbered = all.flatMap((p) => p.text.split("\n")).filter((l) => /^n\d{6}$/.test(l));
    assertEquals(numbered.length, 200000);
    assert(numbered.every((l, i) => l === `n${String(i + 1).padStart(6, "0")}`), "lines out of order");
  },
);
