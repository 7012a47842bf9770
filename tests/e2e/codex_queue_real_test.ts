/**
 * addToCodexQueue() against the REAL Codex CLI 0.169.0 (scripts/install_vendor_clis.sh) in a
 * throwaway CODEX_HOME pointed at the loopback fake Responses server (tests/fixtures/fake_api/).
 *
 * 1. The queue: a thread made by our own app-server (thread/start + one turn) gets the body through
 *    addToCodexQueue(); a separate app-server lists it with our clientUserMessageId; a second call
 *    adds nothing; an unknown thread is refused; none of the parent's MCP servers is started and no
 *    Codex process is left.
 * 2. A real delivery: an idle Codex TUI resumed on that thread (private tmux socket) runs the queued
 *    body by itself: the fake model server receives it byte-exact, and the thread records it as a user
 *    message whose clientId is our clientUserMessageId.
 * Ignored, with the reason in the name, when the real CLI (or tmux, for 2) is missing.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux } from "../helpers/env.ts";
import { findVendorClis, PrivateTmux, processesUsing, type VendorHome, vendorHome } from "../helpers/vendor.ts";
import { startFakeOpenAI } from "../fixtures/fake_api/openai.ts";
import type { FakeServer } from "../fixtures/fake_api/mod.ts";
import { addToCodexQueue, CodexDeliveryError } from "../../harnesses/clients/mod.ts";

const codex = findVendorClis().codex;
const why = (needTmux: boolean) =>
  !codex
    ? " [ignored: run scripts/install_vendor_clis.sh first]"
    : needTmux && !hasTmux
    ? " [ignored: tmux missing]"
    : "";

/** Multi-line, non-ASCII, and free of the fake server's keywords (SLOW, TOOLCALL, ERR400). */
const BODY = '[aiterm] answer of child c1 QBODY-7f3a:\nline two ✓ 日本語\n\tindented "quoted" \\ backslash\nlast line';

/** A minimal JSON-RPC client of a real `codex app-server` (test side only). */
class AppServerClient implements AsyncDisposable {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #pending = new Map<number, (m: Record<string, unknown>) => void>();
  #id = 0;
  #pump: Promise<void>;
  notifications: Record<string, unknown>[] = [];

  constructor(bin: string, env: Record<string, string>) {
    this.#child = new Deno.Command(bin, {
      args: ["app-server"],
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
      detached: true,
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    const stdout = this.#child.stdout;
    this.#pump = (async () => {
      let buf = "";
      for await (const chunk of stdout.pipeThrough(new TextDecoderStream())) {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          const m = JSON.parse(line);
          const wake = typeof m.id === "number" && !m.method ? this.#pending.get(m.id) : undefined;
          if (wake) wake(m);
          else this.notifications.push(m);
        }
      }
    })();
  }

  static async start(bin: string, env: Record<string, string>): Promise<AppServerClient> {
    const c = new AppServerClient(bin, env);
    await c.ok("initialize", {
      clientInfo: { name: "aiterm-test", version: "0" },
      capabilities: { experimentalApi: true },
    });
    await c.#send({ jsonrpc: "2.0", method: "initialized", params: {} });
    return c;
  }

  async #send(m: Record<string, unknown>): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  }

  async call(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = ++this.#id;
    const reply = new Promise<Record<string, unknown>>((r) => this.#pending.set(id, r));
    await this.#send({ jsonrpc: "2.0", id, method, params });
    return await reply;
  }

  // deno-lint-ignore no-explicit-any
  async ok(method: string, params: Record<string, unknown>): Promise<any> {
    const m = await this.call(method, params);
    assert(!m.error, `${method}: ${JSON.stringify(m.error)}`);
    return m.result;
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    try {
      Deno.kill(-this.#child.pid, "SIGKILL");
    } catch {
      // already gone
    }
    await this.#child.status;
    await this.#pump.catch(() => {});
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

interface Parent extends AsyncDisposable {
  srv: FakeServer;
  vh: VendorHome;
  proj: string;
  threadId: string;
}

/** A throwaway Codex home whose thread has had one finished turn (so it is stored on disk). */
async function parentThread(): Promise<Parent> {
  const srv = startFakeOpenAI();
  const proj = await Deno.realPath(await Deno.makeTempDir({ prefix: "aiterm-cxq-proj-" }));
  const vh = await vendorHome("codex", { apiUrl: srv.url, cwd: proj, trusted: true });
  let threadId = "";
  {
    await using a = await AppServerClient.start(codex!, vh.env);
    const started = await a.ok("thread/start", { cwd: proj, sandbox: "read-only", approvalPolicy: "never" });
    threadId = started.thread.id;
    await a.ok("turn/start", { threadId, input: [{ type: "text", text: "first task", text_elements: [] }] });
    await eventually(
      () => Promise.resolve(a.notifications.some((n) => n.method === "turn/completed")),
      60_000,
      "the first turn to complete",
    );
  }
  const cleanup = async () => {
    await vh.cleanup();
    await srv.close();
    await Deno.remove(proj, { recursive: true }).catch(() => {});
  };
  return { srv, vh, proj, threadId, [Symbol.asyncDispose]: cleanup };
}

function targetOf(p: Parent) {
  return { codexBin: codex!, codexHome: p.vh.configDir, threadId: p.threadId, env: p.vh.env };
}

Deno.test({
  name: `real codex: addToCodexQueue queues the body once under our clientUserMessageId${why(false)}`,
  ignore: !codex,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using p = await parentThread();
    // An MCP server of the parent that leaves a mark when started: queueing must not start it.
    const marker = `${p.vh.home}/mcp-started`;
    await Deno.writeTextFile(
      `${p.vh.configDir}/config.toml`,
      `\n[mcp_servers.marker]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(`echo x >> ${marker}; sleep 30`)}]\n`,
      { append: true },
    );
    assertEquals(processesUsing(p.vh.home), [], "a Codex process outlived thread creation");

    const res = await addToCodexQueue(targetOf(p), BODY, "aiterm-delivery-1");
    assertEquals(res.alreadyQueued, false);
    assert(res.queuedSubmissionId.length > 0, "empty id");
    assertEquals(processesUsing(p.vh.home), [], "addToCodexQueue left a Codex process");
    assertEquals(await Deno.stat(marker).then(() => true, () => false), false, "an MCP server was started");

    // A separate app-server sees exactly one entry, ours, with the body unmodified.
    const list = async () => {
      await using c = await AppServerClient.start(codex!, p.vh.env);
      return (await c.ok("thread/queue/list", { threadId: p.threadId })).data as Record<string, unknown>[];
    };
    assertEquals(await list(), [{
      id: res.queuedSubmissionId,
      input: [{ type: "text", text: BODY, text_elements: [] }],
      clientUserMessageId: "aiterm-delivery-1",
      responsesapiClientMetadata: null,
    }]);

    // Codex itself does not deduplicate clientUserMessageId; our second call must not add.
    const again = await addToCodexQueue(targetOf(p), BODY, "aiterm-delivery-1");
    assertEquals(again, { queuedSubmissionId: res.queuedSubmissionId, alreadyQueued: true });
    assertEquals((await list()).length, 1);

    // A thread this home does not know is refused, and nothing is queued for it.
    const unknown = "01a23700-3650-7b30-a89b-c4f237e42cc3";
    const e = await addToCodexQueue({ ...targetOf(p), threadId: unknown }, BODY, "aiterm-delivery-2").then(
      () => null,
      (err) => err,
    );
    assert(e instanceof CodexDeliveryError, `expected a CodexDeliveryError, got ${e}`);
    assertEquals([e.kind, e.code], ["refused", "CODEX_PARENT_THREAD_NOT_FOUND"]);
    assertStringIncludes(e.message, unknown);
    assertEquals(processesUsing(p.vh.home), []);
  },
});

/** User-role input texts of every request the fake model server received. */
function userTexts(srv: FakeServer): string[] {
  const out: string[] = [];
  for (const r of srv.requests) {
    const input = (r.body as { input?: unknown })?.input;
    if (!Array.isArray(input)) continue;
    for (const item of input) {
      if (item?.role !== "user" || !Array.isArray(item.content)) continue;
      for (const c of item.content) if (typeof c?.text === "string") out.push(c.text);
    }
  }
  return out;
}

Deno.test({
  name: `real codex: an idle TUI on the parent thread runs the queued body by itself${why(true)}`,
  ignore: !codex || !hasTmux,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using p = await parentThread();
    await using tui = await PrivateTmux.start({
      env: p.vh.env,
      cwd: p.proj,
      argv: [codex!, "resume", p.threadId, "--no-alt-screen"],
    });
    // Idle: the resumed conversation is on screen and the composer is waiting.
    await tui.waitFor((s) => s.includes("MOCK_REPLY first task") && s.includes("? for shortcuts"), 60_000, "idle TUI");
    assertEquals(userTexts(p.srv).includes(BODY), false);

    const res = await addToCodexQueue(targetOf(p), BODY, "aiterm-delivery-tui");
    assertEquals(res.alreadyQueued, false);

    // The TUI takes the queue entry and runs it: the model receives the body unmodified.
    await eventually(() => Promise.resolve(userTexts(p.srv).includes(BODY)), 90_000, "the queued body at the model");
    await tui.waitFor("MOCK_REPLY [aiterm] answer of child c1 QBODY-7f3a:", 30_000, "the answer on screen");

    // The thread records it as a user message carrying our clientUserMessageId, and the queue is empty.
    await using c = await AppServerClient.start(codex!, p.vh.env);
    const turns = await c.ok("thread/turns/list", { threadId: p.threadId, itemsView: "full" });
    const users = (turns.data as { items: Record<string, unknown>[] }[]).flatMap((t) => t.items)
      .filter((i) => i.type === "userMessage");
    const ours = users.filter((i) => i.clientId === "aiterm-delivery-tui");
    assertEquals(ours.map((i) => i.content), [[{ type: "text", text: BODY, text_elements: [] }]]);
    assertEquals((await c.ok("thread/queue/list", { threadId: p.threadId })).data, []);
  },
});
