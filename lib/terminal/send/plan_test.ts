/** planSend(): the decisions of a send from recorded pane facts (no pane, no tmux, no /proc). */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { AppError } from "../../../base/errors.ts";
import { dialectById } from "../../../platform/mod.ts";
import type { MuxSession } from "../../../platform/mod.ts";
import type { SessionMeta } from "../files/session_meta.ts";
import { type PaneFacts, type PlanOptions, planSend, type SendPlan } from "./plan.ts";

const PANE = 4242;

function meta(fields: Partial<SessionMeta> = {}): SessionMeta {
  return {
    schema: "aiterm.session.v1",
    id: "t1",
    generation: "g1",
    created_at: "2025-01-01T00:00:00.000Z",
    shell: "bash",
    shell_path: "/bin/bash",
    dialect: "posix",
    cwd: "/",
    env_names: [],
    integration: "osc133",
    kind: "shell",
    segment_bytes: 1 << 20,
    keep_segments: 4,
    ...fields,
  };
}

function facts(over: Partial<PaneFacts> & { currentCommand?: string } = {}): PaneFacts {
  const { currentCommand = "bash", ...rest } = over;
  return {
    meta: meta(),
    live: { panePid: PANE, currentCommand } as MuxSession,
    foreground: { pid: PANE, name: "bash" },
    remembered: false,
    ...rest,
  };
}

const opts = (over: Partial<PlanOptions> = {}): PlanOptions => ({
  text: "echo hi",
  raw: false,
  enter: true,
  mark: false,
  nonce: "n0nce",
  ...over,
});

function plan(f: PaneFacts, o: PlanOptions): SendPlan {
  const out = planSend(f, o);
  assert(out.kind === "plan", `outcome: ${out.kind}`);
  return out.plan;
}

function code(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
}

Deno.test("planSend(): one line at the session's own shell is typed as is, without a trailing newline", () => {
  const p = plan(facts(), opts({ text: "echo hi\n\n" }));
  assertEquals([p.mode, p.payload, p.body, p.atOwnShell, p.nonce], ["typed", "echo hi", "echo hi", true, null]);
  // enter:false keeps the text exactly (nothing submits it).
  assertEquals(plan(facts(), opts({ text: "echo hi\n", enter: false })).payload, "echo hi\n");
});

Deno.test("planSend(): multi-line text at the session's own shell runs as one script", () => {
  const p = plan(facts(), opts({ text: "a\nb\n" }));
  assertEquals([p.mode, p.payload, p.body], ["script", dialectById("posix").scriptLine("a\nb"), "a\nb"]);
  // raw is never wrapped.
  const raw = plan(facts(), opts({ text: "a\nb\n", raw: true, enter: false }));
  assertEquals([raw.mode, raw.payload], ["raw", "a\nb\n"]);
});

Deno.test("planSend(): text for another program (a REPL, a nested shell) arrives exactly as given", () => {
  const python = facts({ foreground: { pid: 99, name: "python3" } });
  const p = plan(python, opts({ text: "x = 1\n\nprint(x)\n" }));
  assertEquals([p.mode, p.payload, p.atOwnShell], ["typed", "x = 1\n\nprint(x)\n", false]);
  // A session a person made (no record): never the session's own shell.
  const human = plan(facts({ meta: null }), opts({ text: "a\nb" }));
  assertEquals([human.mode, human.payload, human.atOwnShell], ["typed", "a\nb", false]);
});

Deno.test("planSend(): without the kernel's answer the multiplexer's current command tells the shell", () => {
  const noKernel = facts({ foreground: null });
  assertEquals(plan(noKernel, opts({ text: "a\nb" })).mode, "script");
  const inVim = facts({ foreground: null, currentCommand: "vim" });
  assertEquals(plan(inVim, opts({ text: "a\nb" })).atOwnShell, false);
  // Remembered facts carry an old current command: without the kernel's answer, ask the multiplexer.
  assertEquals(planSend(facts({ foreground: null, remembered: true }), opts()), { kind: "ask_again" });
});

Deno.test("planSend(): a mark at the session's own shell appends the sentinel with the nonce, for the pane process", () => {
  const p = plan(facts(), opts({ mark: true }));
  const suffix = dialectById("posix").sentinelSuffix("n0nce");
  assertEquals([p.nonce, p.markDialect, p.suffix, p.payload, p.markPid], [
    "n0nce",
    "posix",
    suffix,
    `echo hi${suffix}`,
    PANE,
  ]);
  const script = plan(facts(), opts({ text: "a\nb", mark: "posix" }));
  assertEquals([script.mode, script.payload], ["script", dialectById("posix").scriptLine("a\nb") + suffix]);
  // A dialect that is not the shell's is refused (nothing typed).
  assertEquals(code(() => planSend(facts(), opts({ mark: "pwsh" }))), "MARK_UNAVAILABLE");
});

Deno.test("planSend(): a mark into a program is decided by what reads the line", () => {
  // A nested shell by name: its dialect, typed into that process.
  const nested = plan(facts({ foreground: { pid: 77, name: "zsh" } }), opts({ mark: true }));
  assertEquals([nested.markDialect, nested.markPid, nested.atOwnShell], ["posix", 77, false]);
  // Never into a REPL or an editor, whatever the caller names.
  for (const mark of [true, "posix"] as const) {
    assertEquals(
      code(() => planSend(facts({ foreground: { pid: 5, name: "python3" } }), opts({ mark }))),
      "MARK_UNAVAILABLE",
    );
  }
  // A prompt host: the caller's dialect, or the screen's prompt (read only when needed).
  const ssh = facts({ foreground: { pid: 8, name: "ssh" } });
  assertEquals(plan(ssh, opts({ mark: "pwsh" })).markDialect, "pwsh");
  assertEquals(planSend(ssh, opts({ mark: true })), { kind: "needs_screen" });
  assertEquals(plan({ ...ssh, screen: "Last login\nme@box:~$ " }, opts({ mark: true })).markDialect, "posix");
  assertEquals(code(() => planSend({ ...ssh, screen: "Password: " }, opts({ mark: true }))), "MARK_UNAVAILABLE");
});

Deno.test("planSend(): a send only for pty_open's shells plans nothing for another kind of session", () => {
  assertEquals(planSend(facts({ meta: meta({ kind: "program", dialect: null }) }), opts({ shellOnly: true })), {
    kind: "not_shell",
  });
  assertEquals(planSend(facts({ meta: null }), opts({ shellOnly: true, mark: true })), { kind: "not_shell" });
  assertEquals(planSend(facts(), opts({ shellOnly: true })).kind, "plan");
  // The same program session without shellOnly: typed as given.
  const program = plan(facts({ meta: meta({ kind: "program", dialect: null }) }), opts({ text: "a\nb" }));
  assertEquals([program.mode, program.payload], ["typed", "a\nb"]);
});

Deno.test("planSend(): hostile text is carried, never interpreted", () => {
  const text = "echo '#{x}' ; $(rm -rf /) [ ] \\ \"\n`id`";
  const direct = plan(facts({ foreground: { pid: 3, name: "cat" } }), opts({ text }));
  assertEquals(direct.payload, text);
  const script = plan(facts(), opts({ text }));
  assertEquals(script.payload, dialectById("posix").scriptLine(text));
});
