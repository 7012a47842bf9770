import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { StateLayout } from "../../state/mod.ts";
import { type Multiplexer, type PipeState, segmentName } from "../../platform/mod.ts";
import { LogSupervisor, readWarnings } from "./log_supervisor.ts";
import { scanLog } from "./files/output_log.ts";
import type { SessionMeta } from "./files/session_meta.ts";

/** A multiplexer that only knows pipes: `piped` per session (absent = no live pane), and the sinks attached. */
function fakeMux(piped: Map<string, boolean>) {
  const attached: { name: string; sink: string }[] = [];
  const mux = {
    pipeActive: (name: string) => Promise.resolve(piped.has(name) ? piped.get(name)! : null),
    pipeStates: () => Promise.resolve([...piped].map(([name, p]): PipeState => ({ name, piped: p }))),
    attachOutputSink: (name: string, sink: string) => {
      attached.push({ name, sink });
      piped.set(name, true);
      return Promise.resolve();
    },
  } as unknown as Multiplexer;
  return { mux, attached };
}

function metaOf(id: string, keep = 8): SessionMeta {
  return {
    schema: "aiterm.session.v1",
    id,
    generation: "0123456789ab",
    created_at: new Date().toISOString(),
    shell: "bash",
    shell_path: "/bin/bash",
    dialect: "posix",
    cwd: "/",
    env_names: [],
    integration: null,
    segment_bytes: 10,
    keep_segments: keep,
  };
}

async function withLayout(fn: (layout: StateLayout) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir();
  try {
    const layout = new StateLayout(root);
    await Deno.mkdir(layout.sessionLogDir("t1"), { recursive: true });
    await fn(layout);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("check(): a stopped writer is restarted past every segment, once, and counted", async () => {
  await withLayout(async (layout) => {
    const dir = layout.sessionLogDir("t1");
    await Deno.writeFile(`${dir}/${segmentName(0)}`, new TextEncoder().encode("0123456789"));
    await Deno.writeFile(`${dir}/${segmentName(1)}`, new TextEncoder().encode("ab"));
    const piped = new Map([["t1", false]]);
    const { mux, attached } = fakeMux(piped);
    await Deno.writeTextFile(layout.sessionMeta("t1"), JSON.stringify(metaOf("t1")));
    const logs = new LogSupervisor({ mux, layout });
    let counted = 0;
    logs.onRestart = () => counted++;
    assertEquals(await logs.writersDown(), 1);
    const e = await logs.check(metaOf("t1"));
    assertEquals(e, { code: "LOG_WRITER_RESTARTED", reason: "writer_stopped", from: 12, to: 20 });
    assertEquals(attached.length, 1);
    assert(attached[0]!.sink.includes("/seg.aaaaac.'"), attached[0]!.sink);
    assertEquals((await scanLog(dir, 10)).end, 20);
    // Running again: nothing to do.
    assertEquals(await logs.check(metaOf("t1")), null);
    assertEquals([counted, logs.restarts, await logs.writersDown()], [1, 1, 0]);
  });
});

Deno.test("check(): a writer another process attached meanwhile is kept; no live pane means nothing to do", async () => {
  await withLayout(async (layout) => {
    const dir = layout.sessionLogDir("t1");
    let asked = 0;
    const attached: string[] = [];
    // Stopped when first asked, attached (by another process) when asked again after our claim.
    const mux = {
      pipeActive: () => Promise.resolve(asked++ > 0),
      attachOutputSink: (_n: string, sink: string) => Promise.resolve(void attached.push(sink)),
    } as unknown as Multiplexer;
    const logs = new LogSupervisor({ mux, layout });
    assertEquals(await logs.check(metaOf("t1")), null);
    assertEquals(attached, []);
    assertEquals((await scanLog(dir, 10)).markers, [], "our claim was not released");
    const gone = new LogSupervisor({ mux: fakeMux(new Map()).mux, layout });
    assertEquals(await gone.check(metaOf("t1")), null);
  });
});

Deno.test("check(): the log's end below a cursor handed out earlier means its newest file was deleted", async () => {
  await withLayout(async (layout) => {
    const { mux, attached } = fakeMux(new Map([["t1", true]]));
    const logs = new LogSupervisor({ mux, layout });
    // Nothing on disk, the writer is attached, but a reader was already at byte 35.
    const e = await logs.check(metaOf("t1"), { floor: 35 });
    assertEquals(e, { code: "LOG_WRITER_RESTARTED", reason: "segment_deleted", from: 0, to: 40 });
    assertEquals(attached.length, 1);
    assertEquals((await scanLog(layout.sessionLogDir("t1"), 10)).end, 40);
  });
});

Deno.test("check(): automatic checks back off after a restart whose writer died again; a caller's check does not", async () => {
  await withLayout(async (layout) => {
    const piped = new Map([["t1", false]]);
    const { mux, attached } = fakeMux(piped);
    const logs = new LogSupervisor({ mux, layout });
    assertEquals((await logs.check(metaOf("t1"), { backoff: true }))?.code, "LOG_WRITER_RESTARTED");
    piped.set("t1", false); // the new writer died at once (disk still full)
    assertEquals((await logs.check(metaOf("t1"), { backoff: true }))?.code, "LOG_WRITER_DOWN");
    assertEquals(attached.length, 1);
    assertEquals((await logs.check(metaOf("t1")))?.code, "LOG_WRITER_RESTARTED");
    assertEquals(attached.length, 2);
  });
});

Deno.test("the sweep prunes unread logs to their cap and restarts stopped writers; stop() ends it", async () => {
  await withLayout(async (layout) => {
    const dir = layout.sessionLogDir("t1");
    await Deno.writeTextFile(layout.sessionMeta("t1"), JSON.stringify(metaOf("t1", 2)));
    for (let i = 0; i < 6; i++) await Deno.writeFile(`${dir}/${segmentName(i)}`, new Uint8Array(10));
    const { mux, attached } = fakeMux(new Map([["t1", false]]));
    const logs = new LogSupervisor({ mux, layout });
    logs.start(20);
    try {
      const deadline = Date.now() + 10_000;
      while ((await scanLog(dir, 10)).segments.length > 2 || attached.length === 0) {
        assert(Date.now() < deadline, "the sweep did not prune or restart");
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      await logs.stop();
    }
    assertEquals((await scanLog(dir, 10)).segments, [4, 5]);
    // The restarted writer (base 6) writes on; nobody prunes any more.
    for (let i = 6; i < 9; i++) await Deno.writeFile(`${dir}/${segmentName(i, 6)}`, new Uint8Array(10));
    await new Promise((r) => setTimeout(r, 100));
    assertEquals((await scanLog(dir, 10)).segments.length, 5, "a stopped sweep still pruned");
  });
});

Deno.test("readWarnings(): one line per code; a writer that is running again is not reported down", () => {
  const w = readWarnings([
    { code: "LOG_WRITER_DOWN", reason: "writer_stopped", from: 5, to: null },
    { code: "LOG_WRITER_RESTARTED", reason: "writer_stopped", from: 5, to: 10 },
  ], [{ from: 5, to: 10, code: "LOG_WRITER_RESTARTED" }, { from: 30, to: 40, code: "LOG_SEGMENT_MISSING" }]);
  assertEquals(w.map((l) => l.split(":")[0]), ["LOG_WRITER_RESTARTED", "LOG_SEGMENT_MISSING"]);
  assert(w[0]!.includes("between byte 5 and 10"), w[0]);
});
