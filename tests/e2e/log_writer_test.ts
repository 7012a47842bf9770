/**
 * The durable output log under faults, through MCP on real tmux: a log writer killed or starved by a full disk is
 * restarted and the gap is reported; a deleted segment never resets a cursor; and retention keeps an unread noisy
 * session within its cap while the server runs (two servers at once).
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { eventually, hasTmux, makeTestEnv, type TestEnv } from "../helpers/env.ts";
import { connect, type TestClient } from "../helpers/mcp.ts";

const opts = { ignore: !hasTmux, sanitizeOps: false, sanitizeResources: false };

interface Read {
  text: string;
  is_complete: boolean | null;
  cursor: number | null;
  next_cursor: number;
  end: number;
  has_more: boolean;
  truncated: boolean;
  warnings?: string[];
}

interface Diagnostics {
  overall: string;
  output_log: { writers_down: number | null; writer_restarts: number | null };
}

async function open(c: TestClient, t: TestEnv): Promise<string> {
  const id = (await c.ok<{ session_id: string }>("pty_open", { cwd: t.root })).session_id;
  await c.ok("pty_read", { session_id: id });
  return id;
}

/** Reads on from the default cursor until nothing more is there; every page's text, warnings and truncation. */
async function readAll(
  c: TestClient,
  id: string,
  first?: Read,
): Promise<{ text: string; warnings: string[]; truncated: boolean; pages: Read[] }> {
  const pages: Read[] = first ? [first] : [];
  for (let r = first; !r || r.has_more;) {
    r = await c.ok<Read>("pty_read", { session_id: id, raw: true });
    pages.push(r);
  }
  return {
    text: pages.map((p) => p.text).join(""),
    warnings: pages.flatMap((p) => p.warnings ?? []),
    truncated: pages.some((p) => p.truncated),
    pages,
  };
}

/** Whether tmux still pipes the session's pane (its log writer is attached). */
async function piped(t: TestEnv, id: string): Promise<boolean> {
  const out = await t.tmux("list-panes", "-t", `=${id}:`, "-F", "#{pane_pipe}");
  return out.stdout.trim() === "1";
}

/** The pids of `split` processes writing under `dir` (the log writer; matched by program name, not by argv text). */
async function splitPids(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const comm = (await Deno.readTextFile(`/proc/${e.name}/comm`)).trim();
      if (comm !== "split") continue;
      const argv = (await Deno.readTextFile(`/proc/${e.name}/cmdline`)).split("\0");
      if (argv.some((a) => a.startsWith(`${dir}/seg.`))) pids.push(Number(e.name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function logFiles(dir: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) if (e.name.startsWith(prefix)) out.push(e.name);
  return out.sort();
}

function hasWarning(warnings: string[], code: string): boolean {
  return warnings.some((w) => w.startsWith(`${code}: `));
}

Deno.test(
  "a SIGKILLed log writer is restarted: the next read says truncated and LOG_WRITER_RESTARTED, waits see new output",
  { ...opts, ignore: opts.ignore || Deno.build.os !== "linux" },
  async () => {
    await using t = await makeTestEnv();
    await using c = await connect(t.env);
    const id = await open(c, t);
    const logDir = `${t.stateDir}/sessions/${id}/log`;
    const [pid] = await splitPids(logDir);
    assert(pid, "no split process found for the session's log");
    Deno.kill(pid, "SIGKILL");
    await eventually(async () => (await splitPids(logDir)).every((p) => p !== pid), 10_000, "split to die");
    // Output written while no writer runs is lost; tmux notices the dead pipe when it writes to it.
    await c.ok("pty_send", { wait: false, session_id: id, text: "echo lost-while-dead" });
    await eventually(
      async () => !(await piped(t, id)) || (await logFiles(logDir, "gap.")).length > 0,
      10_000,
      "tmux to close the dead pipe (or the sweep to restart it)",
    );
    const r = await c.ok<Read>("pty_read", { session_id: id, raw: true });
    assert(r.truncated, `expected truncated: ${JSON.stringify(r)}`);
    assert(hasWarning(r.warnings ?? [], "LOG_WRITER_RESTARTED"), `warnings: ${JSON.stringify(r.warnings)}`);
    assert(await piped(t, id), "the writer was not attached again");
    await eventually(async () => (await splitPids(logDir)).length === 1, 10_000, "exactly one writer");
    await c.ok("pty_send", { wait: false, session_id: id, text: "echo after-kill-$((6000+1))" });
    const done = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: 30, raw: true });
    assertEquals(done.is_complete, true);
    assertStringIncludes((await readAll(c, id, done)).text, "after-kill-6001");
    const d = await eventually(
      async () => {
        const d = await c.ok<Diagnostics>("diagnostics");
        return (d.output_log.writer_restarts ?? 0) >= 1 ? d : null;
      },
      10_000,
      "the restart to be counted",
    );
    assertEquals([d.overall, d.output_log.writers_down], ["ready", 0]);
  },
);

Deno.test(
  "the segment being written is deleted: the read says truncated, the cursor never goes back, new output is read",
  opts,
  async () => {
    await using t = await makeTestEnv();
    const logDir = `${t.stateDir}/sessions`;
    let id: string;
    let before: Read;
    {
      await using c = await connect(t.env);
      id = await open(c, t);
      await c.ok("pty_send", { wait: false, session_id: id, text: "echo before-delete" });
      before = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: 30 });
      assertStringIncludes(before.text, "before-delete");
      assert(before.next_cursor > 0);
    }
    // Deleted while no server runs: the next server knows the log's end only from the saved cursor.
    for (const name of await logFiles(`${logDir}/${id}/log`, "seg.")) await Deno.remove(`${logDir}/${id}/log/${name}`);
    await using c = await connect(t.env);
    await c.ok("pty_send", { wait: false, session_id: id, text: "echo after-delete-$((40+2))" });
    const r = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: 30, raw: true });
    assertEquals(r.is_complete, true);
    const all = await readAll(c, id, r);
    assert(all.truncated, `expected truncated: ${JSON.stringify(all.pages)}`);
    assert(hasWarning(all.warnings, "LOG_WRITER_RESTARTED"), `warnings: ${JSON.stringify(all.warnings)}`);
    assertStringIncludes(all.text, "after-delete-42");
    for (const p of all.pages) {
      // cursor is there only where a page starts after a gap (truncated).
      assert(
        (p.cursor ?? before.next_cursor) >= before.next_cursor,
        `cursor went back: ${p.cursor} < ${before.next_cursor}`,
      );
      assert(p.next_cursor >= before.next_cursor, `next_cursor went back: ${p.next_cursor}`);
    }
  },
);

/** True when this process may mount a tmpfs (root, and mount permitted in this container). */
const canMount: boolean = (() => {
  if (Deno.build.os !== "linux") return false;
  try {
    const dir = Deno.makeTempDirSync({ prefix: "ait-mnt-" });
    try {
      const m = new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], stderr: "null" })
        .outputSync();
      if (!m.success) return false;
      new Deno.Command("umount", { args: [dir] }).outputSync();
      return true;
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  } catch {
    return false;
  }
})();

Deno.test(
  "disk full: the writer dies; after space returns the next wait completes on new output and reports the gap",
  // Needs root and a container that permits mount(2): ignored (visibly) otherwise.
  { ...opts, ignore: opts.ignore || !canMount },
  async () => {
    await using t = await makeTestEnv({ AITERM_LOG_SEGMENT_BYTES: "65536", AITERM_LOG_KEEP_SEGMENTS: "1000" });
    const sessions = `${t.stateDir}/sessions`;
    await Deno.mkdir(sessions, { recursive: true, mode: 0o700 });
    await Deno.chmod(t.stateDir, 0o700);
    const mount = await new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", sessions],
    }).output();
    assert(mount.success, "mount failed");
    try {
      await using c = await connect(t.env);
      const id = await open(c, t);
      const logDir = `${sessions}/${id}/log`;
      // The producer waits for the disk to be full, then prints more than is left.
      await c.ok("pty_send", {
        wait: false,
        session_id: id,
        text: `while [ ! -e ${t.root}/go ]; do sleep 0.05; done; seq 1 400000; touch ${t.root}/done`,
      });
      await new Deno.Command("sh", { args: ["-c", `dd if=/dev/zero of=${sessions}/filler bs=4096 2>/dev/null; true`] })
        .output();
      await Deno.writeTextFile(`${t.root}/go`, "");
      await eventually(() => Deno.stat(`${t.root}/done`).then(() => true, () => false), 60_000, "the producer");
      // The writer died on ENOSPC (any restart the sweep tried meanwhile died too, or waits for output).
      const names = await logFiles(logDir, "");
      assert(names.some((n) => n.startsWith("seg.")), `no segments: ${names}`);
      // Space returns.
      await Deno.remove(`${sessions}/filler`);
      await c.ok("pty_send", { wait: false, session_id: id, text: "echo after-disk-full-$((100+23))" });
      const r = await c.ok<Read>("pty_read", { session_id: id, wait: true, timeout: 60, raw: true });
      assertEquals(r.is_complete, true, JSON.stringify({ ...r, text: r.text.slice(-200) }));
      const all = await readAll(c, id, r);
      assert(all.truncated, "expected truncated");
      assert(hasWarning(all.warnings, "LOG_WRITER_RESTARTED"), `warnings: ${JSON.stringify(all.warnings)}`);
      assertStringIncludes(all.text, "after-disk-full-123");
      assert(!all.text.includes("400000\n"), "the whole seq output fitted: the disk was not full");
      const d = await eventually(
        async () => {
          const d = await c.ok<Diagnostics>("diagnostics");
          return (d.output_log.writer_restarts ?? 0) >= 1 && d.output_log.writers_down === 0 ? d : null;
        },
        10_000,
        "diagnostics to show the restart",
      );
      assertEquals(d.overall, "ready");
    } finally {
      await t.tmux("kill-server");
      await new Deno.Command("umount", { args: ["-l", sessions] }).output();
    }
  },
);

Deno.test(
  "an unread noisy session stays within its cap while servers run (two at once), and its log stays readable",
  opts,
  async () => {
    const keep = 4;
    await using t = await makeTestEnv({ AITERM_LOG_SEGMENT_BYTES: "65536", AITERM_LOG_KEEP_SEGMENTS: String(keep) });
    await using c = await connect(t.env);
    await using c2 = await connect(t.env, "second-server");
    const id = await open(c, t);
    await c2.ok("pty_list");
    const logDir = `${t.stateDir}/sessions/${id}/log`;
    const segments = 40;
    // About one segment per 0.1 s, then a marker file outside the log; nobody reads meanwhile.
    await c.ok("pty_send", {
      wait: false,
      session_id: id,
      text: `for i in $(seq 1 ${segments}); do head -c 65536 /dev/zero | tr '\\0' a; sleep 0.1; done; echo; ` +
        `touch ${t.root}/done`,
    });
    let most = 0;
    let samples = 0;
    for (;;) {
      const finished = await Deno.stat(`${t.root}/done`).then(() => true, () => false);
      const count = (await logFiles(logDir, "seg.")).length;
      most = Math.max(most, count);
      samples++;
      if (finished) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const files = await logFiles(logDir, "seg.");
    const lastIndex = files.at(-1)!;
    // The writer produced far more than the cap (the newest segment's index), yet the directory never held more.
    assert(lastIndex >= "seg.aaaabe", `only wrote up to ${lastIndex}`);
    assert(most <= keep + 1, `held ${most} segments (cap ${keep} + the one being written), ${samples} samples`);
    await eventually(async () => (await logFiles(logDir, "seg.")).length <= keep, 10_000, "the cap");
    const r = await c2.ok<Read>("pty_read", { session_id: id, cursor: 0, raw: true });
    assert(r.truncated && (r.cursor ?? 0) > 0, "a read from 0 should start after the rotated part");
  },
);
