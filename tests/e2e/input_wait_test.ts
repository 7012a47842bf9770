/**
 * Waiting for terminal input, live: real programs in a real tmux pane classified by
 * foregroundProcess(), then the verdicts a caller sees through MCP for a nested shell (issue 15 item 1).
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv } from "../helpers/env.ts";
import { connect } from "../helpers/mcp.ts";
import { blockedInTerminalRead, foregroundBrief, foregroundProcess } from "../../platform/mod.ts";
import { SCENARIOS } from "../fixtures/input_wait/scenarios.ts";

const linux = Deno.build.os === "linux";
const opts = { ignore: !hasTmux || !linux, sanitizeOps: false, sanitizeResources: false };

function installed(bin: string): boolean {
  return new Deno.Command("sh", { args: ["-c", `command -v ${bin}`], stdout: "null" }).outputSync().success;
}

Deno.test("foregroundProcess() says which real programs wait for the terminal", opts, async () => {
  await using t = await makeTestEnv();
  await Deno.mkdir(t.stateDir, { recursive: true });
  const wrong: string[] = [];
  for (const s of SCENARIOS) {
    if (!installed(s.needs)) continue;
    const session = `s_${s.name}`;
    // exit-empty off: each scenario kills its session, and a server that exits on its last one races the next
    // new-session ("server exited unexpectedly").
    const r = await t.tmux(
      ...["new-session", "-d", "-s", session, "-x", "100", "-y", "30", "--", "bash", "--norc"],
      ...[";", "set-option", "-s", "exit-empty", "off"],
    );
    assertEquals(r.code, 0, r.stderr);
    const panePid = Number((await t.tmux("display", "-p", "-t", session, "#{pane_pid}")).stdout.trim());
    await eventually(
      () => Promise.resolve(foregroundProcess(panePid)?.readingInput === true),
      10_000,
      "outer bash prompt",
    );
    await t.tmux("send-keys", "-t", session, "-l", s.command);
    await t.tmux("send-keys", "-t", session, "Enter");
    // The program is in the foreground once a member of the group is named like it.
    const seen = await eventually(
      () => {
        const fg = foregroundProcess(panePid);
        const names = fg?.inputWait?.processes.filter((p) => (p.pid === panePid) === !!s.atPane).map((p) => p.name);
        return Promise.resolve(fg && names?.includes(s.expectName) && fg.readingInput === s.waiting ? fg : null);
      },
      10_000,
      `${s.name} classified`,
    ).catch(() => null);
    if (!seen) {
      const fg = foregroundProcess(panePid);
      wrong.push(`${s.name}: ${fg?.readingInput} (${JSON.stringify(fg?.inputWait?.processes)}), want ${s.waiting}`);
    } else {
      // The brief look a send takes names the same process, and never misses a plain read of the terminal. The two
      // looks are a moment apart: a pair taken across a change (seen once under a loaded full run: the same pid named
      // python3 by one look and bash by the other) is taken again, up to five times, before it counts as a disagreement.
      let disagreement: string | null = null;
      for (let i = 0; i < 5; i++) {
        const brief = foregroundBrief(panePid);
        const fg = foregroundProcess(panePid);
        const plainRead = blockedInTerminalRead(fg?.inputWait ?? null);
        disagreement = brief?.pid !== fg?.pid || brief?.name !== fg?.name || (plainRead && !brief?.inRead)
          ? `${s.name}: brief ${JSON.stringify(brief)} against ${fg?.pid} ${fg?.name} plain read ${plainRead}`
          : null;
        if (disagreement === null) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      if (disagreement) wrong.push(disagreement);
    }
    await t.tmux("kill-session", "-t", session);
  }
  assertEquals(wrong, []);
});

interface Read {
  is_complete: boolean;
  via: string;
  hint?: string;
}
interface Obs {
  state: string;
  reason: string;
}

Deno.test(
  "a nested bash --norc: pty_read wait ends with via nested (not timeout), pty_observe says nested",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: "bash" });
    await c.ok("pty_send", { wait: false, session_id, text: "bash --norc" });
    const started = performance.now();
    const r = await c.ok<Read>("pty_read", { session_id, wait: true, timeout: 10 });
    const ms = Math.round(performance.now() - started);
    assertEquals([r.is_complete, r.via], [false, "nested"], `after ${ms} ms: ${JSON.stringify(r)}`);
    assert(!/C-c/.test(r.hint ?? ""), `the hint invites C-c: ${r.hint}`);
    const o = await c.ok<Obs>("pty_observe", { session_id });
    assertEquals([o.state, o.reason], ["nested", "foreground_waiting_for_input"]);
    // Busy inside the nested shell: running, not nested.
    await c.ok("pty_send", { wait: false, session_id, text: "sleep 30" });
    const busy = await eventually(async () => {
      const x = await c.ok<Obs>("pty_observe", { session_id });
      return x.state === "running" ? x : null;
    });
    assertEquals(busy.state, "running");
    await c.ok("pty_key", { session_id, key: "C-c" });
    await c.ok("pty_close", { session_id });
  },
);

Deno.test("a nested zsh and dash end a wait with via nested too", opts, async () => {
  await using t = await makeTestEnv();
  await using c = await connect(t.env);
  for (const shell of ["zsh -f", "dash"]) {
    if (!installed(shell.split(" ")[0]!)) continue;
    const { session_id } = await c.ok<{ session_id: string }>("pty_open", { cwd: t.root, shell: "bash" });
    await c.ok("pty_send", { wait: false, session_id, text: shell });
    const r = await c.ok<Read>("pty_read", { session_id, wait: true, timeout: 10 });
    assertEquals([r.is_complete, r.via], [false, "nested"], `${shell}: ${JSON.stringify(r)}`);
    await c.ok("pty_close", { session_id });
  }
});
