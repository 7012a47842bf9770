// deno-lint-ignore-file no-console
/**
 * What typical terminal tasks cost a model, per calling client, against the way they were done before the one-call
 * send (issue 28): tool calls, characters the model receives, wall time. One table.
 *
 *   deno run -A bench/tasks.ts [--base <commit>] [--test-s 30] [--build-s 150]
 *
 * Each task is scripted the way a model calls the tools:
 * - now (per client: the clientInfo name Claude Code, Codex and any other client send): `pty_send`, then, while the
 *   result is still running, exactly the `next_call` it names; a REPL, a prompt or a full-screen program's verdict
 *   ends the step.
 * - before: the same server at `--base` (the commit before issue 28, extracted with `git archive`): `pty_send`, then
 *   `pty_read {wait:true}` with its 10 s default until the verdict is not `timeout`.
 * Characters are the JSON of structuredContent, which is what Claude Code hands its model (Codex adds a ~40-character
 * header): ../shared/reference/client-view.md. The four runs go side by side, each with its own server and session.
 */
import { parseArgs } from "node:util";
import { Client, StdioClientTransport } from "../lib/mcp/sdk.ts";
import type { CallToolResult } from "../lib/mcp/sdk.ts";
import { baselineTree, makeTestEnv, printTable, runMain } from "./_common.ts";

/** The last commit before issue 28 (one call per command). */
const DEFAULT_BASE = "9e7f0a7";
const REPO = new URL("../", import.meta.url).pathname;

const { values } = parseArgs({
  args: Deno.args,
  options: { base: { type: "string" }, "test-s": { type: "string" }, "build-s": { type: "string" } },
  strict: true,
});
const base = values.base ?? DEFAULT_BASE;
const testS = Number(values["test-s"] ?? 30);
const buildS = Number(values["build-s"] ?? 150);

/** One step of a task: text typed as a command (or an answer), as a model would. */
interface Task {
  name: string;
  steps: string[];
}

const TASKS: Task[] = [
  { name: "quick command", steps: ["ls -la /usr/bin | head -40"] },
  {
    name: `test run (${testS} s)`,
    steps: [`for i in $(seq 1 ${testS}); do echo "test $i ... ok"; sleep 1; done; echo "${testS} passed, 0 failed"`],
  },
  {
    name: `long build (${buildS} s)`,
    steps: [
      `for i in $(seq 1 ${buildS}); do echo "[$i/${buildS}] Compiling unit_$i.o"; sleep 1; done; echo "build finished"`,
    ],
  },
  { name: "REPL session", steps: ["python3 -q", "x = 6 * 7", "print(x, x * 2)", "exit()"] },
  { name: "a prompt", steps: ['read -p "Proceed with install? [y/N] " a; echo "answer=$a"', "y"] },
  { name: "huge output", steps: ["seq 1 200000"] },
];

/** What one task cost. */
interface Cost {
  calls: number;
  chars: number;
  ms: number;
}

type Out = Record<string, unknown>;

/** A server started with a clientInfo name; `now` says whether it is this checkout (one-call sends). */
async function runAll(main: string, env: Record<string, string>, client: string, now: boolean, cwd: string) {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", main],
    env,
    stderr: "pipe",
  });
  const c = new Client({ name: client, version: "0.0.0" });
  await c.connect(transport);
  const costs: Cost[] = [];
  try {
    let calls = 0;
    let chars = 0;
    const call = async (name: string, args: Out): Promise<Out> => {
      const r = (await c.callTool({ name, arguments: args }, undefined, { timeout: 900_000 })) as CallToolResult;
      if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
      calls++;
      chars += JSON.stringify(r.structuredContent ?? {}).length;
      return (r.structuredContent ?? {}) as Out;
    };
    for (const task of TASKS) {
      const opened = (await c.callTool({ name: "pty_open", arguments: { cwd } })) as CallToolResult;
      const id = (opened.structuredContent as { session_id: string }).session_id;
      calls = 0;
      chars = 0;
      const started = performance.now();
      for (const text of task.steps) {
        if (now) {
          let r = await call("pty_send", { session_id: id, text });
          while (r.is_complete === false && r.next_call) {
            const next = r.next_call as { tool: string; arguments: Out };
            r = await call(next.tool, next.arguments);
          }
        } else {
          await call("pty_send", { session_id: id, text });
          let r = await call("pty_read", { session_id: id, wait: true });
          while (r.is_complete === false && r.via === "timeout") {
            r = await call("pty_read", { session_id: id, wait: true });
          }
        }
      }
      costs.push({ calls, chars, ms: performance.now() - started });
      await c.callTool({ name: "pty_close", arguments: { session_id: id } });
    }
  } finally {
    await c.close().catch(() => {});
    // Each run has its own state root and so its own tmux server: end it by its socket.
    await new Deno.Command("tmux", {
      args: ["-S", `${env.AITERM_STATE_DIR}/tmux.sock`, "kill-server"],
      stdout: "null",
      stderr: "null",
    }).output().catch(() => {});
  }
  return costs;
}

await runMain("bench/tasks", async () => {
  await using t = await makeTestEnv();
  const baseMain = await baselineTree(base, t.root);
  const profiles: { label: string; main: string | null; client: string; now: boolean }[] = [
    { label: `before (${base})`, main: baseMain, client: "bench-tasks", now: false },
    { label: "Claude Code", main: `${REPO}main.ts`, client: "claude-code", now: true },
    { label: "Codex", main: `${REPO}main.ts`, client: "codex-mcp-client", now: true },
    { label: "other client", main: `${REPO}main.ts`, client: "bench-tasks", now: true },
  ];
  // Each profile has its own state root (its own tmux server): the runs share nothing but the machine.
  const runs = await Promise.all(profiles.map(async (p, i) => {
    if (!p.main) return null;
    const state = `${t.root}/state-${i}`;
    return await runAll(p.main, { ...t.env, AITERM_STATE_DIR: state }, p.client, p.now, t.root);
  }));
  const rows: string[][] = [];
  TASKS.forEach((task, ti) => {
    profiles.forEach((p, pi) => {
      const cost = runs[pi]?.[ti];
      const before = runs[0]?.[ti];
      if (!cost) return rows.push([task.name, p.label, "n/a", "n/a", "n/a", ""]);
      const ratio = pi > 0 && before
        ? `${(cost.calls / before.calls).toFixed(2)}× calls, ${(cost.chars / before.chars).toFixed(2)}× chars`
        : "baseline";
      rows.push([
        task.name,
        p.label,
        String(cost.calls),
        String(cost.chars),
        `${(cost.ms / 1000).toFixed(1)} s`,
        ratio,
      ]);
    });
  });
  const total = (pi: number, k: "calls" | "chars") => (runs[pi] ?? []).reduce((a, x) => a + x[k], 0);
  profiles.forEach((p, pi) => {
    rows.push([
      "ALL TASKS",
      p.label,
      String(total(pi, "calls")),
      String(total(pi, "chars")),
      `${((runs[pi] ?? []).reduce((a, x) => a + x.ms, 0) / 1000).toFixed(1)} s`,
      pi > 0 && runs[0]
        ? `${(total(pi, "calls") / total(0, "calls")).toFixed(2)}× calls, ${
          (total(pi, "chars") / total(0, "chars")).toFixed(2)
        }× chars`
        : "baseline",
    ]);
  });
  console.log(`tasks scripted as a model calls the tools; baseline = ${baseMain ? base : "unavailable (git)"}`);
  printTable(["task", "client", "tool calls", "chars to model", "wall", "vs before"], rows);
  return 0;
});
