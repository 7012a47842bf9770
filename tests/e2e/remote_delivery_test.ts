/**
 * Parent delivery for a child on another host: a Claude Code parent (faked as in
 * parent_delivery_test.ts) launches an agent with `remote`; the answer comes back through the
 * remote waiter and the remote transcript, into this host's hook, once; the records live in the
 * separate `remote-` store and a local session with the same name never shares a claim with it.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, registeredServerCommand, type TestClient } from "../helpers/mcp.ts";
import { hasSshd, startSshd, stopMasters } from "../helpers/sshd.ts";
import { installClaudeParentHooks } from "../../harnesses/clients/mod.ts";

const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const opts = { ignore: !hasTmux || !hasSshd, sanitizeOps: false, sanitizeResources: false };

async function hook(t: TestEnv, name: string, input: unknown): Promise<{ code: number; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "hook", name],
    env: t.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(JSON.stringify(input)));
  await w.close();
  const o = await child.output();
  return { code: o.code, stderr: new TextDecoder().decode(o.stderr) };
}

async function call(c: TestClient, name: string, args: Record<string, unknown>, toolUseId: string) {
  const r = await c.client.callTool(
    { name, arguments: args, _meta: { "claudecode/toolUseId": toolUseId } },
    undefined,
    {
      timeout: 120_000,
    },
  );
  const first = (r.content as { type: string; text?: string }[])[0];
  return {
    sc: r.structuredContent as Record<string, unknown>,
    isError: r.isError === true,
    text: first?.text ?? "",
  };
}

async function pre(t: TestEnv, toolUseId: string, conv: string): Promise<void> {
  const r = await hook(t, "claude-pre-tool-use", {
    session_id: conv,
    tool_use_id: toolUseId,
    hook_event_name: "PreToolUse",
  });
  assertEquals(r.code, 0, r.stderr);
}

Deno.test(
  "remote child: the answer reaches a Claude Code parent through the remote waiter and transcript",
  opts,
  async () => {
    const remoteHome = await Deno.makeTempDir({ dir: "/tmp", prefix: "ait-rh-" });
    await using sshd = await startSshd({ CLAUDE_BIN: `${FIXTURE_BIN}claude`, HOME: remoteHome });
    await using t = await makeTestEnv();
    t.env.CLAUDE_BIN = `${FIXTURE_BIN}claude`;
    await Deno.mkdir(`${t.root}/proj`);
    await Deno.mkdir(`${remoteHome}/proj`);
    await installClaudeParentHooks(registeredServerCommand(), { env: t.env, home: t.home, dryRun: false });
    try {
      await using c = await connect(t.env, "claude-code");
      const remote = sshd.remote();
      await pre(t, "toolu_R1", "conv-r");
      const l = await call(c, "agent_launch", {
        harness: "claude-code",
        cwd: `${remoteHome}/proj`,
        trust_project: true,
        prompt: "remote child task",
        session_name: "same",
        remote,
      }, "toolu_R1");
      assert(!l.isError, l.text);
      const d = l.sc.parent_delivery as { delivery_id: string; parent: string; state: string };
      assertEquals([d.parent, l.sc.wait_process, l.sc.remote_host], ["claude", null, "127.0.0.1"]);
      // A local child with the same name is another child: its own claim, no CHILD_CLAIMED across hosts.
      await pre(t, "toolu_L1", "conv-l");
      const local = await call(c, "agent_launch", {
        harness: "claude-code",
        cwd: `${t.root}/proj`,
        trust_project: true,
        prompt: "SLOW local task",
        session_name: "same",
      }, "toolu_L1");
      assert(!local.isError, local.text);
      const post = await hook(t, "claude-post-tool-use", { session_id: "conv-r", tool_use_id: "toolu_R1" });
      assertEquals(post.code, 2, post.stderr);
      assertStringIncludes(post.stderr, 'child agent session "same" (claude-code), turn 0: done');
      assertStringIncludes(post.stderr, "ANSWER(remote child task)");
      const rec = JSON.parse(
        await Deno.readTextFile(`${t.stateDir}/remote-claude-parent-deliveries/${d.delivery_id}.json`),
      );
      assertEquals(rec.state, "submitted");
      assertEquals(rec.child.remote.host, "127.0.0.1");
      assert(!JSON.stringify(rec).includes('passphrase":"'), "no passphrase in the record");
      // Exactly once.
      assertEquals((await hook(t, "claude-post-tool-use", { session_id: "conv-r", tool_use_id: "toolu_R1" })).code, 0);
      // The local child's own delivery arrives separately, from the local store.
      const localPost = await hook(t, "claude-post-tool-use", { session_id: "conv-l", tool_use_id: "toolu_L1" });
      assertEquals(localPost.code, 2, localPost.stderr);
      assertStringIncludes(localPost.stderr, "ANSWER(");
    } finally {
      await stopMasters(`${t.stateDir}/ssh`);
      await Deno.remove(remoteHome, { recursive: true }).catch(() => {});
    }
  },
);
