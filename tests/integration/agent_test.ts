/**
 * Integration tier for the agent layer (lib/agent/launch.ts, dispatch.ts, waiter.ts, answer.ts) with the
 * fake harness CLIs, built in-process over the terminal service (tests/integration/kit.ts): no MCP server.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hasTmux } from "../../devkit/env.ts";
import { type AgentDeps, dispatchTurn, launchAgent, readAnswer, waitForTurn } from "../../lib/agent/mod.ts";
import { AppError } from "../../base/errors.ts";
import { type Service, service } from "./kit.ts";
import { makeTestEnv } from "../../devkit/env.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };
const FIXTURE_BIN = new URL("../fixtures/bin/", import.meta.url).pathname;

for (const harness of ["claude-code", "codex-cli"] as const) {
  Deno.test(
    `agent (${harness}): launch with a prompt, wait, answer; a second turn gets the next cursor`,
    opts,
    async () => {
      await using t = await makeTestEnv();
      const env = {
        CLAUDE_BIN: `${FIXTURE_BIN}claude`,
        CODEX_BIN: `${FIXTURE_BIN}codex`,
        CODEX_HOME: `${t.home}/.codex`,
      };
      Object.assign(t.env, env);
      await Deno.mkdir(`${t.root}/proj`);
      await using svc: Service = service(t);
      const deps: AgentDeps = { terminal: svc.terminal, env: t.env, defaultCwd: t.root };
      const l = await launchAgent({ harness, cwd: `${t.root}/proj`, trust_project: true, prompt: "first task" }, deps);
      assertEquals([l.startup.status, l.initial_prompt.status, l.event_cursor], ["ready", "started", 0]);

      const w = await waitForTurn(svc.terminal, l.session_id, 0, { timeoutMs: 30_000, env: t.env });
      assertEquals(w.outcome, "done");
      assertStringIncludes((await readAnswer(deps, l.session_id, 0)).text, "ANSWER(first task)");

      const d = await dispatchTurn(deps, l.session_id, "second task");
      assertEquals([d.mode, d.event_cursor], ["agent_dispatch", 1]);
      assertEquals(
        (await waitForTurn(svc.terminal, l.session_id, 1, { timeoutMs: 30_000, env: t.env })).outcome,
        "done",
      );
      const second = await readAnswer(deps, l.session_id, 1);
      assertStringIncludes(second.text, "ANSWER(second task");
      assertEquals(second.cursor, 1);

      // A wait on a cursor no turn has is refused, not waited out.
      let code = "none";
      try {
        await waitForTurn(svc.terminal, l.session_id, 7, { timeoutMs: 2_000, env: t.env, reportNow: true }).then((o) =>
          code = o.outcome
        );
      } catch (err) {
        code = err instanceof AppError ? err.code : String(err);
      }
      assert(code !== "done", `a cursor without a turn is never done (got ${code})`);
      await svc.terminal.close(l.session_id);
    },
  );
}
