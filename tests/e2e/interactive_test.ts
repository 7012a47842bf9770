/**
 * Issue 15's scenario suite: real programs (python3, node, vim, less, top, git, bash, zsh, dash) driven
 * through the MCP client in real tmux; each verdict must be the right one and must come well under the
 * timeout (tests/helpers/interactive.ts has the scenarios; bench/interactive.ts times them).
 */
import { assertEquals } from "../helpers/assert.ts";
import { hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import { callerOf, runScenario, SCENARIOS } from "../helpers/interactive.ts";

const linux = Deno.build.os === "linux";
const opts = { ignore: !hasTmux || !linux, sanitizeOps: false, sanitizeResources: false };

Deno.test("interactive scenarios: each program gets its verdict well under the timeout", opts, async (t) => {
  await using env = await makeTestEnv();
  await using c = await connect(env.env);
  const call = callerOf(c);
  for (const s of SCENARIOS) {
    await t.step(`${s.item}. ${s.name}`, async () => {
      const run = await runScenario(call, s, env.root);
      if (run.skipped) {
        // Visible: .ci/run installs every program, so a skip here means a machine without it.
        // deno-lint-ignore no-console
        console.warn(`skipped ${s.name}: ${run.skipped}`);
        return;
      }
      assertEquals(run.problems, [], `${s.name}: via ${run.via} in ${run.waitedMs} ms`);
    });
  }
});

Deno.test(
  "a session a person made on aiterm's socket: screen:true reads it, the verdict suffix has no dangling ;",
  opts,
  async () => {
    await using env = await makeTestEnv();
    await using c = await connect(env.env);
    // pty_open starts aiterm's server; the person then makes a session on the same socket.
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: env.root, shell: "bash" });
    const made = await env.tmux(
      "new-session",
      "-d",
      "-s",
      "by-hand",
      "-x",
      "80",
      "-y",
      "20",
      "--",
      "sh",
      "-c",
      "echo typed-by-a-person; exec sleep 60",
    );
    assertEquals(made.code, 0, made.stderr);
    const shot = await c.call("pty_read", { session_id: "by-hand", screen: true });
    const first = shot.content[0];
    const text = first && first.type === "text" ? first.text : "";
    assertEquals([shot.isError === true, /typed-by-a-person/.test(text)], [false, true], text);
    await c.ok("pty_send", { wait: false, session_id, text: "true" });
    const r = await c.call("pty_read", { session_id, wait: true, timeout: 10, screen: true });
    const line = (r.content[0] as { text: string }).text.split("\n").find((l) => l.startsWith("[is_complete="));
    assertEquals(line !== undefined && !/;\s*\]/.test(line), true, String(line));
  },
);
