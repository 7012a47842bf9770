/**
 * codexSteerHook() against tests/fixtures/bin/fake_codex_app_server.mjs, which keeps the queue in a
 * file shared by every fake process and deletes under a lock (one `deleted: true` per entry, as the
 * real server). The fake logs every request, so each test asserts what reached Codex (which
 * entries were deleted, and that every page was read first) as well as what the hook printed and
 * what the delivery and ownership records say afterwards.
 */
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { type CodexSteerDeps, codexSteerHook } from "./steer_hook.ts";
import { codexHookStateDir, type HookOwnership, sha256, threadDir, writeSelection } from "./steer_state.ts";
import { type DeliveryRecord, DeliveryStore, envelope } from "../../../state/mod.ts";
import type { HookContext } from "../../common/client/mod.ts";
import { PARENT_DIRS } from "../../common/client/parent_test_kit.ts";

type WriteFn = HookContext["write"];

const FAKE = fileURLToPath(new URL("../../../tests/fixtures/bin/fake_codex_app_server.mjs", import.meta.url));
const MAIN = fileURLToPath(new URL("../../../main.ts", import.meta.url));
const THREAD = "01a23700-3650-7b30-a89b-c4f237e42cc3";
const BODY = 'child answer "c1":\nline 2\r\n\tタブ 日本語 ✓ \\n not a newline\u2028end';

interface Fx {
  dir: string;
  codexHome: string;
  hookDir: string;
  store: DeliveryStore;
  env: Record<string, string>;
  queuePath: string;
  logPath: string;
  deps(write: WriteFn, extra?: Partial<CodexSteerDeps>): CodexSteerDeps;
  /** A delivery that codex_queue.ts queued (record, body, and its entry at the end of the queue). */
  queued(body: string, opts?: { entry?: boolean }): Promise<DeliveryRecord>;
  /** Appends an entry that is not aiterm's. */
  foreign(id: string, text: string, clientUserMessageId: string | null): Promise<void>;
  queue(): Promise<Record<string, unknown>[]>;
  requests(): Promise<Record<string, unknown>[]>;
  starts(): Promise<number>;
  ownership(rec: DeliveryRecord): Promise<HookOwnership | null>;
  cleanup(): Promise<void>;
}

async function fixture(mode = "ok", extra: Record<string, string> = {}): Promise<Fx> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "aiterm-steer-" }));
  const codexHome = `${dir}/codex-home`;
  await Deno.mkdir(codexHome);
  await Deno.mkdir(`${dir}/home`);
  const queuePath = `${dir}/queue.json`;
  const logPath = `${dir}/requests.jsonl`;
  const store = new DeliveryStore(`${dir}/state`, PARENT_DIRS);
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: `${dir}/home`,
    FAKE_CODEX_APPSERVER_MODE: mode,
    FAKE_CODEX_APPSERVER_LOG: logPath,
    FAKE_CODEX_APPSERVER_QUEUE: queuePath,
    FAKE_CODEX_APPSERVER_PAGE: "2",
    ...extra,
  };
  const lines = async () =>
    (await Deno.readTextFile(logPath).catch(() => "")).split("\n").filter((l) => l).map((l) => JSON.parse(l));
  const readQueue = async (): Promise<Record<string, Record<string, unknown>[]>> =>
    JSON.parse(await Deno.readTextFile(queuePath).catch(() => "{}"));
  const push = async (entry: Record<string, unknown>) => {
    const q = await readQueue();
    (q[THREAD] ??= []).push(entry);
    await Deno.writeTextFile(queuePath, JSON.stringify(q));
  };
  let n = 0;
  const fx: Fx = {
    dir,
    codexHome,
    hookDir: codexHookStateDir(env),
    store,
    env,
    queuePath,
    logPath,
    deps: (write, more = {}) => ({
      store,
      hookStateDir: codexHookStateDir(env),
      codexHome,
      codexBin: FAKE,
      env,
      write,
      requireSelection: false,
      ...more,
    }),
    async queued(body, opts = {}) {
      n++;
      const now = Date.now();
      const rec: DeliveryRecord = {
        schema: "aiterm.parent-delivery.v1",
        delivery_id: crypto.randomUUID(),
        parent: "codex",
        destination: { thread_id: THREAD, codex_home: codexHome },
        child: { session_id: `c${n}`, launch_id: `l${n}`, harness: "codex-cli", cursor: n, generation: null },
        state: "submitted",
        child_outcome: "done",
        child_turn_id: `t${n}`,
        child_error: null,
        queued_submission_id: `q-aiterm-${n}`,
        error_code: null,
        owner: null,
        sender: null,
        received_by: "codex_queue",
        created_at_ms: now,
        ready_at_ms: now,
        updated_at_ms: now,
      };
      await store.create(rec);
      await store.saveBody("codex", rec.delivery_id, body);
      if (opts.entry !== false) {
        await push({
          id: rec.queued_submission_id,
          input: [{ type: "text", text: envelope(rec, body), text_elements: [] }],
          clientUserMessageId: rec.delivery_id,
          responsesapiClientMetadata: null,
        });
      }
      return rec;
    },
    foreign: (id, text, cid) =>
      push({
        id,
        input: [{ type: "text", text, text_elements: [] }],
        clientUserMessageId: cid,
        responsesapiClientMetadata: null,
      }),
    queue: async () => (await readQueue())[THREAD] ?? [],
    requests: async () => (await lines()).filter((e) => e.at === "request").map((e) => e.msg),
    starts: async () => (await lines()).filter((e) => e.at === "start").length,
    async ownership(rec) {
      const body = await store.readBody("codex", rec.delivery_id);
      const sha = sha256(envelope(rec, body ?? ""));
      const path = `${threadDir(fx.hookDir, codexHome, THREAD)}/${rec.delivery_id}-${sha.slice(0, 16)}.json`;
      return JSON.parse(await Deno.readTextFile(path).catch(() => "null"));
    },
    cleanup: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
  return fx;
}

/** Captures what the hook writes. */
function capture(): { write: WriteFn; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    write: (stream, text) => {
      (stream === "stdout" ? out : err).push(text);
      return Promise.resolve();
    },
  };
}

const postInput = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: THREAD,
    turn_id: "turn-1",
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_use_id: "call_1",
    ...extra,
  });
const stopInput = JSON.stringify({
  session_id: THREAD,
  turn_id: "turn-1",
  hook_event_name: "Stop",
  stop_hook_active: false,
  last_assistant_message: "done",
});

function methods(reqs: Record<string, unknown>[]): unknown[] {
  return reqs.map((r) => r.method);
}

const opts = { sanitizeOps: true, sanitizeResources: true };

Deno.test({
  name: "PostToolUse reads every queue page, deletes only aiterm's entry and returns it as additionalContext",
  ...opts,
  async fn() {
    const f = await fixture();
    try {
      await f.foreign("q-user-1", "a message the user queued", null);
      await f.foreign("q-user-2", "another client's input", "someone-else-7");
      const rec = await f.queued(BODY);
      // Same id as our delivery but not its body: not ours, never touched.
      await f.foreign("q-spoof", "not the body aiterm saved", rec.delivery_id);
      await f.foreign("q-user-3", "queued after ours", null);
      const c = capture();
      assertEquals(await codexSteerHook("post_tool_use", postInput(), f.deps(c.write)), 0);

      const out = JSON.parse(c.out.join(""));
      assertEquals(out, {
        hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: envelope(rec, BODY) },
      });
      const reqs = await f.requests();
      assertEquals(methods(reqs), [
        "initialize",
        "initialized",
        "thread/queue/list",
        "thread/queue/list",
        "thread/queue/list",
        "thread/queue/delete",
      ]);
      assertEquals(reqs.at(-1)!.params, { threadId: THREAD, queuedSubmissionId: rec.queued_submission_id });
      assertEquals((await f.queue()).map((e) => e.id), ["q-user-1", "q-user-2", "q-spoof", "q-user-3"]);
      const after = await f.store.read("codex", rec.delivery_id);
      assertEquals(
        [after?.state, after?.received_by, after?.error_code, after?.queued_submission_id],
        ["submitted", "codex_post_tool_use", null, rec.queued_submission_id],
      );
      const own = await f.ownership(rec);
      assertEquals([own?.state, own?.hook, own?.turn_id, own?.tool_use_id], [
        "emitted",
        "post_tool_use",
        "turn-1",
        "call_1",
      ]);
      assertEquals(own?.body_sha256, sha256(envelope(rec, BODY)));
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "Stop returns every waiting answer, in queue order, as decision block with the answers as reason",
  ...opts,
  async fn() {
    const f = await fixture();
    try {
      const a = await f.queued("first answer");
      await f.foreign("q-user", "user text between", null);
      const b = await f.queued("second answer");
      const c = capture();
      assertEquals(await codexSteerHook("stop", stopInput, f.deps(c.write)), 0);
      assertEquals(JSON.parse(c.out.join("")), {
        decision: "block",
        reason: `${envelope(a, "first answer")}\n\n${envelope(b, "second answer")}`,
      });
      assertEquals((await f.queue()).map((e) => e.id), ["q-user"]);
      assertEquals((await f.store.read("codex", b.delivery_id))?.received_by, "codex_stop");
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "a delete that answers false outputs nothing and remembers the entry left the queue",
  ...opts,
  async fn() {
    const f = await fixture("delete_false");
    try {
      const rec = await f.queued(BODY);
      const c = capture();
      assertEquals(await codexSteerHook("post_tool_use", postInput(), f.deps(c.write)), 0);
      assertEquals(c.out, []);
      assertEquals(methods(await f.requests()).filter((m) => m === "thread/queue/delete").length, 1);
      assertEquals((await f.ownership(rec))?.state, "left_queue");
      // The delivery keeps what the queue said: it went out as a normal queued message.
      const after = await f.store.read("codex", rec.delivery_id);
      assertEquals([after?.state, after?.received_by], ["submitted", "codex_queue"]);
      // The next hook decides without starting an app-server.
      const starts = await f.starts();
      assertEquals(await codexSteerHook("post_tool_use", postInput(), f.deps(capture().write)), 0);
      assertEquals(await f.starts(), starts);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "an output that fails after the delete leaves the delivery unknown, keeps the body and never resends",
  ...opts,
  async fn() {
    const f = await fixture();
    try {
      const rec = await f.queued(BODY);
      const failing: WriteFn = (stream) =>
        stream === "stdout" ? Promise.reject(new Error("EPIPE: Codex closed the pipe")) : Promise.resolve();
      assertEquals(await codexSteerHook("post_tool_use", postInput(), f.deps(failing)), 1);
      const after = await f.store.read("codex", rec.delivery_id);
      assertEquals([after?.state, after?.error_code], ["unknown", "CODEX_HOOK_DELIVERY_UNCONFIRMED"]);
      assertEquals(await f.store.readBody("codex", rec.delivery_id), BODY);
      assertEquals((await f.ownership(rec))?.state, "unknown");
      assertEquals(await f.queue(), []);
      // Nothing is sent again, and no app-server is started for it.
      const starts = await f.starts();
      const c = capture();
      assertEquals(await codexSteerHook("stop", stopInput, f.deps(c.write)), 0);
      assertEquals([c.out, await f.starts()], [[], starts]);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "an app-server that dies after the delete leaves the delivery unknown and outputs nothing",
  ...opts,
  async fn() {
    const f = await fixture("exit_after_delete");
    try {
      const rec = await f.queued(BODY);
      const c = capture();
      assertEquals(await codexSteerHook("post_tool_use", postInput(), f.deps(c.write)), 0);
      assertEquals(c.out, []);
      const after = await f.store.read("codex", rec.delivery_id);
      assertEquals([after?.state, after?.error_code], ["unknown", "CODEX_HOOK_DELIVERY_UNCONFIRMED"]);
      assertEquals(await f.store.readBody("codex", rec.delivery_id), BODY);
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "a refused delete outputs nothing and releases the entry, which stays queued for the next hook",
  ...opts,
  async fn() {
    const f = await fixture("delete_error");
    try {
      const rec = await f.queued(BODY);
      const c = capture();
      assertEquals(await codexSteerHook("post_tool_use", postInput(), f.deps(c.write)), 0);
      assertEquals(c.out, []);
      assertEquals((await f.queue()).map((e) => e.id), [rec.queued_submission_id]);
      assertEquals(await f.ownership(rec), null);
      assertEquals((await f.store.read("codex", rec.delivery_id))?.state, "submitted");
      // The next hook (Codex healthy again) takes it.
      f.env.FAKE_CODEX_APPSERVER_MODE = "ok";
      const again = capture();
      assertEquals(await codexSteerHook("post_tool_use", postInput(), f.deps(again.write)), 0);
      assertEquals(JSON.parse(again.out.join("")).hookSpecificOutput.additionalContext, envelope(rec, BODY));
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "two concurrent hook processes on one answer: exactly one takes and prints it",
  ...opts,
  async fn() {
    const f = await fixture("ok", { FAKE_CODEX_APPSERVER_DELETE_DELAY_MS: "300" });
    try {
      const rec = await f.queued(BODY);
      await f.foreign("q-user", "user text", null);
      const env = { ...f.env, AITERM_STATE_DIR: f.store.root, CODEX_HOME: f.codexHome, CODEX_BIN: FAKE };
      await writeSelection(f.hookDir, {
        schema: "aiterm.codex-steer-selection.v1",
        codex_home: f.codexHome,
        state: "enabled",
        hooks_json: `${f.codexHome}/hooks.json`,
        hooks: [],
        pre_existing: [],
        updated_at_ms: Date.now(),
      });
      const run = async (name: string, input: string) => {
        const child = new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", MAIN, "hook", name],
          env,
          clearEnv: true,
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        const w = child.stdin.getWriter();
        await w.write(new TextEncoder().encode(input));
        await w.close();
        const o = await child.output();
        return { code: o.code, stdout: new TextDecoder().decode(o.stdout) };
      };
      const results = await Promise.all([
        run("codex-post-tool-use", postInput()),
        run("codex-post-tool-use", postInput({ tool_use_id: "call_2" })),
        run("codex-stop", stopInput),
      ]);
      assertEquals(results.map((r) => r.code), [0, 0, 0]);
      const printed = results.filter((r) => r.stdout.trim() !== "");
      assertEquals(printed.length, 1, JSON.stringify(results));
      assert(printed[0]!.stdout.includes(JSON.stringify(envelope(rec, BODY)).slice(1, -1)), printed[0]!.stdout);
      const deletes = (await f.requests()).filter((r) => r.method === "thread/queue/delete");
      assertEquals(deletes.length, 1);
      assertEquals((await f.queue()).map((e) => e.id), ["q-user"]);
      assertEquals((await f.ownership(rec))?.state, "emitted");
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "the next hook settles records of dead owners: a claim is released and taken, a deleted body becomes unknown",
  ...opts,
  async fn() {
    const f = await fixture();
    try {
      const claimed = await f.queued("claimed by a hook that died before deleting");
      const deleted = await f.queued("deleted by a hook that died before printing", { entry: false });
      const dir = threadDir(f.hookDir, f.codexHome, THREAD);
      await Deno.mkdir(dir, { recursive: true });
      const dead = { pid: 2 ** 22 + 17, start: "never" };
      for (const [rec, state] of [[claimed, "claimed"], [deleted, "deleted"]] as const) {
        const body = (await f.store.readBody("codex", rec.delivery_id))!;
        const sha = sha256(envelope(rec, body));
        await Deno.writeTextFile(
          `${dir}/${rec.delivery_id}-${sha.slice(0, 16)}.json`,
          JSON.stringify({
            schema: "aiterm.codex-hook-ownership.v1",
            codex_home: f.codexHome,
            thread_id: THREAD,
            delivery_id: rec.delivery_id,
            queued_submission_id: rec.queued_submission_id,
            body_sha256: sha,
            state,
            hook: "post_tool_use",
            turn_id: "turn-0",
            tool_use_id: "call_0",
            owner: dead,
            at_ms: 1,
          }),
        );
      }
      const c = capture();
      assertEquals(await codexSteerHook("post_tool_use", postInput(), f.deps(c.write)), 0);
      assertEquals(
        JSON.parse(c.out.join("")).hookSpecificOutput.additionalContext,
        envelope(claimed, "claimed by a hook that died before deleting"),
      );
      const d = await f.store.read("codex", deleted.delivery_id);
      assertEquals([d?.state, d?.error_code], ["unknown", "CODEX_HOOK_DELIVERY_UNCONFIRMED"]);
      assertEquals((await f.ownership(deleted))?.state, "unknown");
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "nothing to take starts no app-server: no delivery, other homes and threads, sub-agents, steer not enabled",
  ...opts,
  async fn() {
    const f = await fixture();
    try {
      const c = capture();
      assertEquals(await codexSteerHook("post_tool_use", postInput(), f.deps(c.write)), 0);
      // A delivery of another Codex home, and one of another thread.
      const other = await f.queued(BODY);
      await f.store.update("codex", other.delivery_id, (r) => ({
        ...r,
        destination: { thread_id: THREAD, codex_home: `${f.dir}/another-home` },
      }));
      const elsewhere = await f.queued(BODY);
      await f.store.update("codex", elsewhere.delivery_id, (r) => ({
        ...r,
        destination: { thread_id: "01a23700-0000-7000-8000-000000000000", codex_home: f.codexHome },
      }));
      assertEquals(await codexSteerHook("post_tool_use", postInput(), f.deps(c.write)), 0);
      // Ours now, but asked from a native sub-agent, or with steer not enabled for this home.
      await f.queued(BODY);
      assertEquals(await codexSteerHook("post_tool_use", postInput({ agent_id: "sub-1" }), f.deps(c.write)), 0);
      assertEquals(await codexSteerHook("stop", stopInput, f.deps(c.write, { requireSelection: true })), 0);
      assertEquals(await codexSteerHook("stop", "not json", f.deps(c.write)), 0);
      assertEquals([c.out, await f.starts()], [[], 0]);
      assertEquals((await f.queue()).length, 3);
    } finally {
      await f.cleanup();
    }
  },
});
