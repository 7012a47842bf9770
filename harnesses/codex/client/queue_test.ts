/**
 * addToCodexQueue() against tests/fixtures/bin/fake_codex_app_server.mjs, a fake `codex app-server`
 * that speaks the real 0.169.0 shapes and logs every message it receives, so the exact requests and
 * the handling of each failure (missing thread, refusal, crash or hang after the add, slow start,
 * missing binary) are asserted, and that no app-server process (or helper of it) is left behind.
 */
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertStringIncludes } from "../../../tests/helpers/assert.ts";
import { addToCodexQueue, CodexDeliveryError, type CodexQueueTarget } from "./queue.ts";

const FAKE = fileURLToPath(new URL("../../../tests/fixtures/bin/fake_codex_app_server.mjs", import.meta.url));
const THREAD = "01a23700-3650-7b30-a89b-c4f237e42cc3";
/** Unicode, newlines (LF and CRLF), tabs, quotes, backslashes, JSON line separators and an emoji. */
const BODY = '[aiterm] answer from child "c1":\nline 2\r\n\tタブ付き 日本語 ✓ 😀\\n not a newline\u2028end\n';

interface Fake {
  target: CodexQueueTarget;
  dir: string;
  logPath: string;
  queuePath: string;
  /** Every message the fake received, in order. */
  requests(): Promise<Record<string, unknown>[]>;
  /** PIDs of the app-server processes and helpers the fake started. */
  pids(): Promise<number[]>;
  /** The queue the fake holds for THREAD. */
  queue(): Promise<Record<string, unknown>[]>;
  cleanup(): Promise<void>;
}

async function fake(mode: string, extra: Record<string, string> = {}): Promise<Fake> {
  const dir = await Deno.makeTempDir({ prefix: "aiterm-cxq-" });
  const home = `${dir}/codex-home`;
  await Deno.mkdir(home);
  const logPath = `${dir}/requests.jsonl`;
  const queuePath = `${dir}/queue.json`;
  const lines = async () =>
    (await Deno.readTextFile(logPath).catch(() => "")).split("\n").filter((l) => l).map((l) => JSON.parse(l));
  return {
    dir,
    logPath,
    queuePath,
    target: {
      codexBin: FAKE,
      codexHome: home,
      threadId: THREAD,
      // A stale CODEX_HOME in the caller's environment must not win over the target's.
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        CODEX_HOME: "/nonexistent/wrong-home",
        FAKE_CODEX_APPSERVER_MODE: mode,
        FAKE_CODEX_APPSERVER_LOG: logPath,
        FAKE_CODEX_APPSERVER_QUEUE: queuePath,
        ...extra,
      },
    },
    requests: async () => (await lines()).filter((e) => e.at === "request").map((e) => e.msg),
    pids: async () => (await lines()).filter((e) => e.at === "start" || e.at === "helper").map((e) => e.pid),
    queue: async () => {
      const text = await Deno.readTextFile(queuePath).catch(() => "{}");
      return JSON.parse(text)[THREAD] ?? [];
    },
    cleanup: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

/** Alive and not a zombie (Linux /proc; elsewhere `kill -0`). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    return new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" }).outputSync().success;
  }
}

/** Fails when any process the fake started is still running (a killed orphan may need a moment to be reaped). */
async function assertAllGone(f: Fake, expected: number): Promise<void> {
  const pids = await f.pids();
  assertEquals(pids.length, expected, `pids logged: ${pids}`);
  for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 20));
  assertEquals(pids.filter(alive), [], "left running");
}

async function failure(p: Promise<unknown>): Promise<CodexDeliveryError> {
  try {
    await p;
  } catch (err) {
    assert(err instanceof CodexDeliveryError, `not a CodexDeliveryError: ${err}`);
    return err;
  }
  throw new Error("expected a CodexDeliveryError");
}

function methods(reqs: Record<string, unknown>[]): unknown[] {
  return reqs.map((r) => r.method);
}

const opts = { sanitizeOps: true, sanitizeResources: true };

Deno.test({
  name: "addToCodexQueue() initializes, reads the thread, lists the queue and adds the body byte-exact",
  ...opts,
  async fn() {
    const f = await fake("ok");
    try {
      const res = await addToCodexQueue(f.target, BODY, "delivery-1");
      const reqs = await f.requests();
      assertEquals(methods(reqs), [
        "initialize",
        "initialized",
        "thread/read",
        "thread/queue/list",
        "thread/queue/add",
      ]);
      const init = reqs[0]!.params as Record<string, Record<string, unknown>>;
      assertEquals(init.clientInfo?.name, "aiterm-parent-delivery");
      assertEquals(init.capabilities, { experimentalApi: true });
      assertEquals(reqs[2]!.params, { threadId: THREAD, includeTurns: false });
      assertEquals(reqs[3]!.params, { threadId: THREAD });
      assertEquals(reqs[4]!.params, {
        threadId: THREAD,
        clientUserMessageId: "delivery-1",
        input: [{ type: "text", text: BODY, text_elements: [] }],
      });
      // The raw bytes on the wire decode to the exact body.
      const rawAdd = (await Deno.readTextFile(f.logPath)).split("\n").find((l) => l.includes("thread/queue/add"))!;
      assertEquals(JSON.parse(rawAdd).msg.params.input[0].text, BODY);
      const queue = await f.queue();
      assertEquals(queue.length, 1);
      assertEquals(res, { queuedSubmissionId: queue[0]!.id as string, alreadyQueued: false });
      // The app-server ran with the target's CODEX_HOME, not the one in env.
      const start = (await Deno.readTextFile(f.logPath)).split("\n").map((l) => l && JSON.parse(l)).find((e) =>
        e.at === "start"
      );
      assertEquals([start.codexHome, start.argv], [f.target.codexHome, ["app-server"]]);
      await assertAllGone(f, 1);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "addToCodexQueue() is idempotent: a second delivery with the same id finds the entry and adds nothing",
  ...opts,
  async fn() {
    const f = await fake("ok");
    try {
      const first = await addToCodexQueue(f.target, BODY, "delivery-2");
      const second = await addToCodexQueue(f.target, BODY, "delivery-2");
      assertEquals(second, { queuedSubmissionId: first.queuedSubmissionId, alreadyQueued: true });
      assertEquals((await f.queue()).length, 1);
      const adds = (await f.requests()).filter((r) => r.method === "thread/queue/add");
      assertEquals(adds.length, 1);
      await assertAllGone(f, 2);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "addToCodexQueue() reads every queue page before deciding, and finds its entry on the last one",
  ...opts,
  async fn() {
    const f = await fake("ok", { FAKE_CODEX_APPSERVER_PAGE: "2" });
    try {
      const entry = (id: string, cid: string) => ({
        id,
        input: [{ type: "text", text: `body ${cid}`, text_elements: [] }],
        clientUserMessageId: cid,
        responsesapiClientMetadata: null,
      });
      const seeded = ["a", "b", "c", "d"].map((c, i) => entry(`q-${i}`, `other-${c}`));
      seeded.push(entry("q-mine", "delivery-3"));
      await Deno.writeTextFile(f.queuePath, JSON.stringify({ [THREAD]: seeded }));
      const res = await addToCodexQueue(f.target, BODY, "delivery-3");
      assertEquals(res, { queuedSubmissionId: "q-mine", alreadyQueued: true });
      const lists = (await f.requests()).filter((r) => r.method === "thread/queue/list").map((r) => r.params);
      assertEquals(lists, [{ threadId: THREAD }, { threadId: THREAD, cursor: "2" }, { threadId: THREAD, cursor: "4" }]);
      assertEquals(methods(await f.requests()).includes("thread/queue/add"), false);
      // A different id on the same queue is added after the last page.
      const other = await addToCodexQueue(f.target, BODY, "delivery-4");
      assertEquals(other.alreadyQueued, false);
      assertEquals((await f.queue()).length, 6);
      await assertAllGone(f, 2);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "addToCodexQueue() refuses with CODEX_PARENT_THREAD_NOT_FOUND when the thread is unknown, adding nothing",
  ...opts,
  async fn() {
    const f = await fake("no_thread");
    try {
      const e = await failure(addToCodexQueue(f.target, BODY, "delivery-5"));
      assertEquals([e.kind, e.code], ["refused", "CODEX_PARENT_THREAD_NOT_FOUND"]);
      assertStringIncludes(e.message, `thread not loaded: ${THREAD}`);
      assertEquals(methods(await f.requests()), ["initialize", "initialized", "thread/read"]);
      await assertAllGone(f, 1);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "addToCodexQueue() reports a JSON-RPC error to thread/queue/add as refused CODEX_QUEUE_REFUSED",
  ...opts,
  async fn() {
    const f = await fake("reject_add");
    try {
      const e = await failure(addToCodexQueue(f.target, BODY, "delivery-6"));
      assertEquals([e.kind, e.code], ["refused", "CODEX_QUEUE_REFUSED"]);
      assertStringIncludes(e.message, "fake refusal: the queue of this thread is closed");
      assertEquals(e.data?.rpc_code, -32600);
      assertEquals((await f.queue()).length, 0);
      await assertAllGone(f, 1);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "addToCodexQueue() reports an app-server exit after the add was written as interrupted CODEX_QUEUE_UNCONFIRMED",
  ...opts,
  async fn() {
    const f = await fake("exit_after_add");
    try {
      const e = await failure(addToCodexQueue(f.target, BODY, "delivery-7"));
      assertEquals([e.kind, e.code], ["interrupted", "CODEX_QUEUE_UNCONFIRMED"]);
      assertStringIncludes(e.message, "ended before answering thread/queue/add (exited with code 3)");
      assertStringIncludes(e.message, "fake: crashed while adding");
      assertEquals(methods(await f.requests()).at(-1), "thread/queue/add");
      await assertAllGone(f, 1);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "addToCodexQueue() times out a hung add as interrupted and kills the app-server's whole process group",
  ...opts,
  async fn() {
    const f = await fake("hang_after_add");
    try {
      const e = await failure(addToCodexQueue(f.target, BODY, "delivery-8", { timeoutMs: 3000 }));
      assertEquals([e.kind, e.code], ["interrupted", "CODEX_QUEUE_UNCONFIRMED"]);
      assertStringIncludes(e.message, "gave no answer to thread/queue/add in time");
      // The fake ignores SIGTERM and started a helper: both must be gone (app-server + helper).
      await assertAllGone(f, 2);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "addToCodexQueue() times out a slow initialize as unavailable, having sent nothing else",
  ...opts,
  async fn() {
    const f = await fake("slow_init");
    try {
      const e = await failure(addToCodexQueue(f.target, BODY, "delivery-9", { timeoutMs: 1500 }));
      assertEquals([e.kind, e.code], ["unavailable", "CODEX_APP_SERVER_UNAVAILABLE"]);
      assertStringIncludes(e.message, "gave no answer to initialize in time");
      // The stderr tail is in the message, without colour codes.
      assertStringIncludes(e.message, "stderr: ERROR fake: bubblewrap not found on PATH");
      assertEquals(methods(await f.requests()), ["initialize"]);
      await assertAllGone(f, 1);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "addToCodexQueue() reports a missing codex binary as unavailable CODEX_APP_SERVER_UNAVAILABLE",
  ...opts,
  async fn() {
    const f = await fake("ok");
    try {
      const target = { ...f.target, codexBin: `${f.dir}/no-such-codex` };
      const e = await failure(addToCodexQueue(target, BODY, "delivery-10"));
      assertEquals([e.kind, e.code], ["unavailable", "CODEX_APP_SERVER_UNAVAILABLE"]);
      assertStringIncludes(e.message, `"${f.dir}/no-such-codex app-server" could not be started`);
      assertEquals(e.toText().startsWith("CODEX_APP_SERVER_UNAVAILABLE: Cannot queue the answer"), true);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "addToCodexQueue() reports a CODEX_HOME that is not a directory as unavailable without starting anything",
  ...opts,
  async fn() {
    const f = await fake("ok");
    try {
      const target = { ...f.target, codexHome: `${f.dir}/missing-home` };
      const e = await failure(addToCodexQueue(target, BODY, "delivery-11"));
      assertEquals([e.kind, e.code], ["unavailable", "CODEX_APP_SERVER_UNAVAILABLE"]);
      assertStringIncludes(e.message, `CODEX_HOME "${f.dir}/missing-home" is not a directory`);
      assertEquals(await f.pids(), []);
    } finally {
      await f.cleanup();
    }
  },
});
