/**
 * The control-mode transport (issue 16) against a real tmux on a private socket: quoting that makes
 * hostile arguments arrive unchanged, replies paired with their callers under concurrency, and the
 * fallback when the client dies or stops answering.
 */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../../tests/helpers/env.ts";
import { AppError } from "../../base/errors.ts";
import type { MuxOutput } from "../_mux_exec.ts";
import { tmuxArg, tmuxFormatArg } from "./tmux_args.ts";
import { createTmux } from "./tmux.ts";
import { processStartIdentity } from "../process.ts";
import {
  CONTROL_OWNER_VAR,
  ControlClient,
  ControlLost,
  ControlTransport,
  reapOrphanedClients,
} from "./tmux_control.ts";
import { controlClientsBySession, controlLine, quoteControlArg, splitCliCommands } from "./control_line.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };

/** A deterministic pseudo-random generator (tests must be reproducible). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const HOSTILE = [
  ..." ;#'\"\\$~{}%=`!&|<>()*?[]^,",
  "\n",
  "\t",
  "\r",
  "\x1b",
  "\x01",
  "\x7f",
  "é",
  "漢",
  "😀",
  "\\;",
  "#{pid}",
  "#(echo x)",
  "$HOME",
  "~root",
  "\\101",
  "\\n",
  "%if",
  "a",
  "Z",
  "0",
  "-",
];

function hostile(next: () => number): string {
  const len = 1 + Math.floor(next() * 24);
  let out = "";
  for (let i = 0; i < len; i++) out += HOSTILE[Math.floor(next() * HOSTILE.length)]!;
  return out;
}

async function serverWithSession(t: TestEnv, name = "x"): Promise<void> {
  await Deno.mkdir(t.stateDir, { recursive: true, mode: 0o700 });
  const r = await t.tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", "bash --norc --noprofile");
  assertEquals(r.code, 0, r.stderr);
}

function clientOptions(t: TestEnv) {
  return { bin: "tmux", socketPath: t.socketPath, env: t.env };
}

/** A CLI stand-in that must not be used. */
function noCli(): Promise<MuxOutput> {
  return Promise.reject(new Error("the CLI fallback was used"));
}

/** The CLI the transport falls back to, with the same prefix as platform/tmux/tmux.ts. */
function cliOf(t: TestEnv, argv: string[]): () => Promise<MuxOutput> {
  return async () => {
    const out = await new Deno.Command("tmux", {
      args: ["-u", "-S", t.socketPath, "-f", "/dev/null", ...argv],
      env: t.env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const d = new TextDecoder();
    return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
  };
}

Deno.test("splitCliCommands follows tmux's argv rules for ';'", () => {
  assertEquals(splitCliCommands(["a", "b", ";", "c"]), [["a", "b"], ["c"]]);
  assertEquals(splitCliCommands(["a", "b;", "c"]), [["a", "b"], ["c"]]);
  assertEquals(splitCliCommands(["a", "b\\;", "c"]), [["a", "b;", "c"]]);
  assertEquals(splitCliCommands(["a", tmuxArg("x;")]), [["a", "x;"]]);
  assertEquals(splitCliCommands(["a", ";", ";"]), [["a"]]);
  assertEquals(splitCliCommands([]), []);
});

Deno.test("quoteControlArg leaves plain words bare and escapes what the parser would read", () => {
  assertEquals(quoteControlArg("-t"), "-t");
  assertEquals(quoteControlArg("=x:"), '"=x:"');
  assertEquals(quoteControlArg('a"b\\c$d~e'), '"a\\"b\\\\c\\$d\\~e"');
  assertEquals(quoteControlArg("a\nb\tc"), '"a\\012b\\011c"');
  assertEquals(quoteControlArg(""), '""');
  assert(!quoteControlArg("x\ny").includes("\n"));
});

Deno.test("controlLine keeps new-session, kill-session and kill-server on the CLI and marks reads", () => {
  assertEquals(controlLine(["new-session", "-d"]), null);
  assertEquals(controlLine(["kill-session", "-t", "=a:"]), null);
  assertEquals(controlLine(["kill-server"]), null);
  assertEquals(controlLine(["display-message", "-p", "a\0b"]), null);
  assertEquals(controlLine(["capture-pane", "-p", "-t", "=a:"])?.readOnly, true);
  // load-buffer of a file waits in tmux's queue: it stays on the CLI (the control paste is set-buffer).
  assertEquals(controlLine(["load-buffer", "-b", "B", "/f", ";", "paste-buffer", "-d", "-b", "B", "-t", "=a:"]), null);
  const paste = controlLine(["set-buffer", "-b", "B", "--", "x;y", ";", "paste-buffer", "-d", "-b", "B", "-t", "=a:"]);
  assertEquals(paste?.commands, 2);
  assertEquals(paste?.readOnly, false);
});

Deno.test("controlClientsBySession counts only control-mode clients", () => {
  const m = controlClientsBySession("1\ta\n0\ta\n1\ta\n1\tb c\n");
  assertEquals([...m], [["a", 2], ["b c", 1]]);
});

Deno.test(
  "quoting: 300 hostile strings arrive unchanged through the control client (set-buffer, display-message)",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await serverWithSession(t);
    const client = await ControlClient.start(clientOptions(t));
    try {
      const next = rng(16);
      for (let i = 0; i < 300; i++) {
        const s = i === 0 ? "a;" : i === 1 ? "\\;" : i === 2 ? "\n" : hostile(next);
        const set = controlLine(["set-buffer", "-b", "q", "--", tmuxArg(s)])!;
        const r = await client.run(set);
        assertEquals(r.code, 0, `set-buffer ${JSON.stringify(s)}: ${r.stderr}`);
        const shown = await t.tmux("show-buffer", "-b", "q");
        assertEquals(shown.stdout, s, `set-buffer round trip of ${JSON.stringify(s)}`);
        // display-message -p: the reply text must equal what the CLI prints for the same argv.
        const argv = ["display-message", "-p", "--", tmuxFormatArg(s)];
        const viaControl = await client.run(controlLine(argv)!);
        const viaCli = await cliOf(t, argv)();
        assertEquals(viaControl, viaCli, `display-message of ${JSON.stringify(s)}`);
      }
    } finally {
      await client.kill();
    }
  },
);

Deno.test("replies keep tabs, UTF-8 and backslashes of a captured screen, the same as the CLI", opts, async () => {
  await using t = await makeTestEnv();
  await serverWithSession(t);
  await t.tmux("send-keys", "-t", "=x:", "-l", "printf 'a\\tb\\\\134 漢字 😀 %%end 1 2 1\\n'");
  await t.tmux("send-keys", "-t", "=x:", "Enter");
  const client = await ControlClient.start(clientOptions(t));
  try {
    for (const extra of [[], ["-e"], ["-S", "-50"]]) {
      const argv = ["capture-pane", "-p", "-J", "-t", "=x:", ...extra];
      let same = false;
      for (let i = 0; i < 50 && !same; i++) {
        const [a, b] = [await client.run(controlLine(argv)!), await cliOf(t, argv)()];
        same = JSON.stringify(a) === JSON.stringify(b) && a.stdout.includes("漢字 😀 %end 1 2 1");
        if (!same) await new Promise((r) => setTimeout(r, 20));
      }
      assert(same, `capture-pane ${extra.join(" ")} differs between control and CLI`);
    }
    const list = ["list-panes", "-a", "-F", "#{session_name}\t#{pane_pid}\t#{pane_current_command}"];
    assertEquals(await client.run(controlLine(list)!), await cliOf(t, list)());
  } finally {
    await client.kill();
  }
});

Deno.test(
  "100 concurrent calls are each answered with their own reply (errors and multi-command lines mixed in)",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await serverWithSession(t);
    const transport = new ControlTransport(clientOptions(t));
    try {
      const calls = Array.from({ length: 100 }, (_, i) => {
        if (i % 5 === 0) {
          return transport.run(["list-panes", "-t", `=nope-${i}:`], noCli).then((r) => {
            assertEquals(r.code, 1);
            assert(r.stderr.includes(`nope-${i}`), r.stderr);
            assertEquals(r.stdout, "");
          });
        }
        if (i % 5 === 1) {
          return transport.run(["display-message", "-p", `a-${i}`, ";", "display-message", "-p", `b-${i}`], noCli)
            .then((r) => assertEquals(r, { code: 0, stdout: `a-${i}\nb-${i}\n`, stderr: "" }));
        }
        return transport.run(["display-message", "-p", `id-${i} \t ;#`], noCli)
          .then((r) => assertEquals(r, { code: 0, stdout: `id-${i} \t ;#\n`, stderr: "" }));
      });
      await Promise.all(calls);
      assert(transport.client !== null);
    } finally {
      await transport.close();
    }
  },
);

async function serverPid(t: TestEnv): Promise<number> {
  return Number((await t.tmux("display-message", "-p", "#{pid}")).stdout.trim());
}

/** How often `token` occurs in the joined screen of session `name`. */
async function occurrences(t: TestEnv, name: string, token: string): Promise<number> {
  const screen = (await t.tmux("capture-pane", "-p", "-J", "-t", `=${name}:`)).stdout;
  return screen.split(token).length - 1;
}

Deno.test(
  "SIGKILL of the control client mid-command: reads get their own answer, writes an answer or TMUX_TRANSPORT_LOST; none runs twice; the next call works",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await serverWithSession(t);
    const transport = new ControlTransport(clientOptions(t));
    try {
      await transport.run(["display-message", "-p", "warm"], noCli);
      const first = transport.client!;
      // A stopped server holds every written line unanswered, so the kill lands mid-command for sure.
      const spid = await serverPid(t);
      Deno.kill(spid, "SIGSTOP");
      const lost: number[] = [];
      const answered: number[] = [];
      const calls: Promise<void>[] = [];
      try {
        for (let i = 0; i < 40; i++) {
          if (i % 2 === 0) {
            const argv = ["display-message", "-p", `read-${i}`];
            calls.push(transport.run(argv, cliOf(t, argv)).then((r) => assertEquals(r.stdout, `read-${i}\n`)));
          } else {
            const argv = ["send-keys", "-t", "=x:", "-l", `<w${i}>`];
            calls.push(
              transport.run(argv, cliOf(t, argv)).then(
                (r) => {
                  assertEquals(r.code, 0);
                  answered.push(i);
                },
                (err) => {
                  assert(err instanceof AppError && err.code === "TMUX_TRANSPORT_LOST", String(err));
                  lost.push(i);
                },
              ),
            );
          }
        }
        await new Promise((r) => setTimeout(r, 50));
        assertEquals(first.inFlight, 40);
        Deno.kill(first.pid, "SIGKILL");
        await new Promise((r) => setTimeout(r, 50));
      } finally {
        Deno.kill(spid, "SIGCONT");
      }
      await Promise.all(calls);
      // tmux holds the client's pipes itself, so after the kill it may still run and answer what it had read
      // (a real answer), or drop the client first (TMUX_TRANSPORT_LOST). Either way nothing is run twice.
      assertEquals(answered.length + lost.length, 20, "every write has an answer or a coded error");
      await eventually(
        async () => {
          for (const i of answered) if ((await occurrences(t, "x", `<w${i}>`)) !== 1) return false;
          return true;
        },
        10_000,
        "every answered write typed once",
      );
      for (const i of lost) assert((await occurrences(t, "x", `<w${i}>`)) <= 1, `w${i} typed twice`);
      const again = await transport.run(["display-message", "-p", "after"], noCli);
      assertEquals(again.stdout, "after\n");
      assert(transport.client !== null && transport.client.pid !== first.pid, "a new client was started");
    } finally {
      await transport.close();
    }
  },
);

Deno.test(
  "a client tmux ends in order: lines it answered keep their replies, lines it never read are not run (sent: false)",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await serverWithSession(t);
    const client = await ControlClient.start(clientOptions(t));
    try {
      const before = client.run(controlLine(["display-message", "-p", "before"])!);
      // An empty line asks tmux to end the client: it runs what it read before, reads nothing after.
      const exit = client.run({ line: "", commands: 1, readOnly: true }).then(() => null, (e) => e);
      const after = client.run(controlLine(["send-keys", "-t", "=x:", "-l", "<after-exit>"])!).then(
        () => null,
        (e) => e,
      );
      assertEquals((await before).stdout, "before\n");
      for (const err of [await exit, await after]) {
        assert(err instanceof ControlLost && err.sent === false, String(err));
      }
      assert(!client.alive);
      await new Promise((r) => setTimeout(r, 200));
      assertEquals(await occurrences(t, "x", "<after-exit>"), 0, "a line tmux never read did not run");
    } finally {
      await client.kill();
    }
  },
);

Deno.test(
  "a person kills the session the control client is attached to while calls stream in: no call is lost",
  opts,
  async () => {
    await using t = await makeTestEnv();
    const out = `${t.root}/typed.bin`;
    await serverWithSession(t, "victim");
    // The client joins the oldest session (by creation time, in whole seconds): the victim.
    const created = (await t.tmux("display-message", "-p", "-t", "=victim:", "#{session_created}")).stdout.trim();
    await eventually(
      () => Promise.resolve(Math.floor(Date.now() / 1000) > Number(created)),
      5_000,
      "the next second",
    );
    await t.tmux("new-session", "-d", "-s", "work", "-x", "80", "-y", "24", `stty raw -echo; exec cat > '${out}'`);
    // A tmux that records each CLI invocation, so the test sees which calls were run again on the CLI.
    const calls = `${t.root}/cli-calls`;
    const bin = `${t.root}/tmux-rec`;
    await Deno.writeTextFile(bin, `#!/bin/sh\necho "$*" >> '${calls}'\nexec tmux "$@"\n`);
    await Deno.chmod(bin, 0o755);
    const mux = createTmux({ bin, socketPath: t.socketPath, scratchDir: t.root, env: t.env, transport: "control" }) as
      & ReturnType<typeof createTmux>
      & { controlTransport: ControlTransport; close(): Promise<void> };
    try {
      assert(await mux.hasSession("work"));
      const first = mux.controlTransport.client!;
      assertEquals(first.session, "victim", "the client moved to the oldest session");
      // Eight callers keep lines in flight (reads, keys and pastes) while a person kills the attached session.
      const typed: string[] = [];
      let stop = false;
      const caller = async (w: number) => {
        for (let j = 0; !stop; j++) {
          const token = `<${w}.${j}>`;
          if (j % 3 === 0) assert(typeof (await mux.capture("work")) === "string");
          else if (j % 3 === 1) await mux.sendKeys("work", ["-l", token]);
          else await mux.pasteText("work", `${token};#{x}`, { exact: true });
          if (j % 3 === 1) typed.push(token);
          if (j % 3 === 2) typed.push(`${token};#{x}`);
        }
      };
      const callers = Array.from({ length: 8 }, (_, w) => caller(w));
      await new Promise((r) => setTimeout(r, 100));
      assertEquals((await t.tmux("kill-session", "-t", "=victim:")).code, 0);
      await eventually(() => Promise.resolve(!first.alive), 5_000, "the attached client to end");
      await new Promise((r) => setTimeout(r, 100));
      stop = true;
      // Any TMUX_TRANSPORT_LOST would have thrown here.
      await Promise.all(callers);
      // Every write arrived exactly once, in one piece.
      const expected = typed.join("").length;
      const got = await eventually(
        async () => {
          const text = await Deno.readTextFile(out);
          return text.length >= expected ? text : null;
        },
        10_000,
        "every write to arrive",
      );
      for (const token of typed) assertEquals(got.split(token).length - 1, 1, `${token} arrived once`);
      assertEquals(got.length, expected);
      const log = await Deno.readTextFile(calls);
      const retried = log.split("\n").filter((l) => / (send-keys|load-buffer) /.test(l)).length;
      assert(typed.length > 30, `only ${typed.length} writes`);
      // deno-lint-ignore no-console
      console.log(`${typed.length} writes, ${retried} run again on the CLI after the exit`);
    } finally {
      await mux.close();
    }
  },
);

Deno.test(
  "a client that stops answering is killed after the bound and the read is answered on the CLI",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await serverWithSession(t);
    const transport = new ControlTransport({ ...clientOptions(t), replyTimeoutMs: 300 });
    try {
      await transport.run(["display-message", "-p", "warm"], noCli);
      const first = transport.client!;
      const spid = await serverPid(t);
      Deno.kill(spid, "SIGSTOP");
      const argv = ["display-message", "-p", "late"];
      const reply = transport.run(argv, cliOf(t, argv));
      const write = transport.run(["send-keys", "-t", "=x:", "-l", "z"], noCli).then(() => "ok", (e) => e.code);
      await new Promise((r) => setTimeout(r, 600));
      assert(!first.alive, "the stuck client was killed");
      Deno.kill(spid, "SIGCONT");
      assertEquals((await reply).stdout, "late\n");
      assertEquals(await write, "TMUX_TRANSPORT_LOST");
    } finally {
      await transport.close();
    }
  },
);

Deno.test(
  "the control client never starts a tmux server: with none running, its start fails and no socket appears",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await Deno.mkdir(t.stateDir, { recursive: true, mode: 0o700 });
    // Without -N, attach-session would start a server with no sessions: one that exits at once, under another
    // aiterm process that is starting the real one ("server exited unexpectedly"), and never recorded by its guard.
    const err = await ControlClient.start(clientOptions(t)).then(() => null, (e) => e);
    assert(err instanceof ControlLost && !err.sent, String(err));
    assertEquals(await Deno.stat(t.socketPath).then(() => true, () => false), false, "a server was started");
    const transport = new ControlTransport(clientOptions(t));
    const argv = ["list-sessions"];
    const r = await transport.run(argv, cliOf(t, argv));
    assert(r.code !== 0 && /no server running|error connecting/.test(r.stderr), r.stderr);
    assertEquals(await Deno.stat(t.socketPath).then(() => true, () => false), false);
    await transport.close();
  },
);

Deno.test(
  "control clients whose aiterm process died are reaped by the next client; live owners' and unmarked ones stay",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await serverWithSession(t);
    const dead = new Deno.Command("true").spawn();
    await dead.status;
    const spawnClient = (owner: string | null) =>
      new Deno.Command("tmux", {
        args: [
          "-u",
          "-S",
          t.socketPath,
          "-f",
          "/dev/null",
          "-N",
          "-C",
          "attach-session",
          "-f",
          "no-output,ignore-size",
        ],
        env: owner === null ? t.env : { ...t.env, [CONTROL_OWNER_VAR]: owner },
        clearEnv: true,
        stdin: "piped",
        stdout: "null",
        stderr: "null",
      }).spawn();
    const orphan = spawnClient(`${dead.pid} linux:1`);
    const live = spawnClient(`${Deno.pid} ${processStartIdentity(Deno.pid)}`);
    const unmarked = spawnClient(null);
    const controlPids = async () =>
      (await t.tmux("list-clients", "-F", "#{client_control_mode} #{client_pid}")).stdout.split("\n")
        .filter((l) => l.startsWith("1 ")).map((l) => Number(l.slice(2))).sort();
    await eventually(async () => (await controlPids()).length === 3, 5_000, "three clients attached");
    const client = await ControlClient.start(clientOptions(t));
    try {
      assertEquals(await reapOrphanedClients(client), Deno.build.os === "linux" ? 1 : 0);
      if (Deno.build.os === "linux") {
        assertEquals((await orphan.status).signal, "SIGKILL");
        await eventually(async () => (await controlPids()).length === 3, 5_000, "the orphan dropped by tmux");
        assertEquals(await controlPids(), [client.pid, live.pid, unmarked.pid].sort());
      }
    } finally {
      await client.kill();
      for (const c of [orphan, live, unmarked]) {
        await c.stdin.close().catch(() => {});
        await c.status;
      }
    }
  },
);

Deno.test("no session to attach to: calls go to the CLI, and a later call starts the client", opts, async () => {
  await using t = await makeTestEnv();
  await serverWithSession(t, "tmp");
  await t.tmux("set-option", "-s", "exit-empty", "off");
  await t.tmux("kill-session", "-t", "=tmp:");
  const transport = new ControlTransport({ ...clientOptions(t), retryAfterMs: 1 });
  try {
    let cli = 0;
    const argv = ["display-message", "-p", "hi"];
    const r = await transport.run(argv, () => (cli++, cliOf(t, argv)()));
    assertEquals([r.stdout, cli, transport.client], ["hi\n", 1, null]);
    await serverWithSession(t, "y");
    transport.sessionCreated();
    const r2 = await transport.run(argv, noCli);
    assertEquals(r2.stdout, "hi\n");
    assert(transport.client !== null);
  } finally {
    await transport.close();
  }
});

Deno.test(
  "Tmux on the control transport: two instances on one socket keep their own client; attached counts exclude them",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await serverWithSession(t, "a");
    await serverWithSession(t, "b");
    const mk = () => createTmux({ socketPath: t.socketPath, scratchDir: t.root, env: t.env, transport: "control" });
    const one = mk() as ReturnType<typeof mk> & { controlTransport: ControlTransport; close(): Promise<void> };
    const two = mk() as typeof one;
    try {
      const [l1, l2] = [await one.listSessions(), await two.listSessions()];
      assertEquals(l1.map((s) => [s.name, s.attachedClients]), [["a", 0], ["b", 0]]);
      assertEquals(l2.map((s) => [s.name, s.attachedClients]), [["a", 0], ["b", 0]]);
      const [c1, c2] = [one.controlTransport.client, two.controlTransport.client];
      assert(c1 && c2 && c1.pid !== c2.pid, "each instance has its own client");
      const clients = await t.tmux("list-clients", "-F", "#{client_pid} #{client_control_mode}");
      const pids = clients.stdout.trim().split("\n").filter((l) => l.endsWith(" 1")).map((l) =>
        Number(l.split(" ")[0])
      );
      assertEquals(pids.sort(), [c1.pid, c2.pid].sort());
      // Killing the session a client is attached to ends that client cleanly; the next call starts another.
      const attached = c1.session!;
      assert(await one.killSession(attached));
      assertEquals((await one.listSessions()).length, 1);
      assert(!(await one.hasSession(attached)));
      assert(one.controlTransport.client !== null && one.controlTransport.client.pid !== c1.pid);
    } finally {
      await one.close();
      await two.close();
    }
  },
);

Deno.test(
  "Tmux on the control transport: a failing command keeps TMUX_COMMAND_FAILED / allowFail semantics; 64 KiB paste arrives",
  opts,
  async () => {
    await using t = await makeTestEnv();
    await serverWithSession(t, "p");
    const mux = createTmux({ socketPath: t.socketPath, scratchDir: t.root, env: t.env, transport: "control" }) as
      & ReturnType<typeof createTmux>
      & { close(): Promise<void> };
    try {
      assertEquals(await mux.hasSession("nope"), false);
      assertEquals(await mux.paneInfo("nope"), null);
      let code = "";
      await mux.sendKeys("nope", ["Enter"]).catch((e) => (code = e.code));
      assertEquals(code, "TMUX_COMMAND_FAILED");
      await t.tmux("send-keys", "-t", "=p:", "-l", `cd ${t.root} && stty -icanon && cat > in.txt`);
      await t.tmux("send-keys", "-t", "=p:", "Enter");
      const text = "x".repeat(65_535) + "\n";
      await new Promise((r) => setTimeout(r, 200));
      await mux.pasteText("p", text, { exact: true });
      let size = 0;
      for (let i = 0; i < 100 && size < text.length; i++) {
        await new Promise((r) => setTimeout(r, 50));
        size = (await Deno.stat(`${t.root}/in.txt`).catch(() => ({ size: 0 }))).size;
      }
      assertEquals(size, text.length);
      const buffers = await t.tmux("list-buffers", "-F", "#{buffer_name}");
      assertEquals(buffers.stdout, "", "the paste buffer was deleted");
    } finally {
      await mux.close();
    }
  },
);
