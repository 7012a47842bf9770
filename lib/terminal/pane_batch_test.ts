/** PaneBatch: concurrent pane questions share one listing; a lone question is asked as before. */
import { assertEquals } from "../../tests/helpers/assert.ts";
import type { Multiplexer, MuxSession } from "../../platform/mod.ts";
import { PaneBatch } from "./pane_batch.ts";

function pane(name: string, extra: Partial<MuxSession> = {}): MuxSession {
  return {
    name,
    panePid: 100,
    currentCommand: "bash",
    attachedClients: 0,
    width: 80,
    height: 24,
    createdAt: 0,
    paneDead: false,
    tty: "/dev/pts/1",
    piped: true,
    ...extra,
  };
}

/** A multiplexer whose answers are released by hand, counting what was asked. */
function fakeMux(panes: MuxSession[], options: { listFails?: boolean } = {}) {
  const calls: string[] = [];
  const gates: Array<() => void> = [];
  const gate = () => new Promise<void>((r) => gates.push(r));
  const mux = {
    async paneInfo(name: string) {
      calls.push(`paneInfo ${name}`);
      await gate();
      return panes.find((p) => p.name === name) ?? null;
    },
    async pipeActive(name: string) {
      calls.push(`pipeActive ${name}`);
      await gate();
      const p = panes.find((p) => p.name === name);
      return p && !p.paneDead ? p.piped !== false : null;
    },
    async listSessions() {
      calls.push("listSessions");
      const taken = panes.map((p) => ({ ...p })); // the state when the listing was asked for
      await gate();
      if (options.listFails) throw new Error("TMUX_COMMAND_FAILED: no");
      return taken;
    },
  } as unknown as Multiplexer;
  /** Releases every query waiting now; resolves after their callers have run. */
  const release = async () => {
    for (let g = gates.shift(); g; g = gates.shift()) g();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { mux, calls, release };
}

Deno.test("PaneBatch: a lone question is the multiplexer's own query", async () => {
  const f = fakeMux([pane("a")]);
  const b = new PaneBatch(f.mux);
  const p = b.paneInfo("a");
  await f.release();
  assertEquals((await p)?.name, "a");
  const q = b.pipeActive("a");
  await f.release();
  assertEquals(await q, true);
  assertEquals(f.calls, ["paneInfo a", "pipeActive a"]);
  assertEquals(b.listings, 0);
});

Deno.test("PaneBatch: questions asked while one is in flight share the next listing", async () => {
  const f = fakeMux([pane("a"), pane("b", { piped: false }), pane("c", { paneDead: true })]);
  const b = new PaneBatch(f.mux);
  const first = b.paneInfo("a");
  const asked = [b.paneInfo("b"), b.pipeActive("b"), b.pipeActive("c"), b.paneInfo("zz"), b.pipeActive("a")] as const;
  assertEquals(f.calls, ["paneInfo a"], "nothing else is asked while the first query runs");
  await f.release();
  assertEquals((await first)?.name, "a");
  assertEquals(f.calls, ["paneInfo a", "listSessions"]);
  await f.release();
  const [pb, pipeB, pipeC, missing, pipeA] = await Promise.all(asked);
  assertEquals([pb?.name, pipeB, pipeC, missing, pipeA], ["b", false, null, null, true]);
  assertEquals(b.listings, 1);
});

Deno.test("PaneBatch: a question asked during a listing is answered by a later one", async () => {
  const panes = [pane("a"), pane("b")];
  const f = fakeMux(panes);
  const b = new PaneBatch(f.mux);
  const first = b.paneInfo("a");
  const early = [b.paneInfo("a"), b.paneInfo("b")];
  await f.release(); // the first query answers; the listing for `early` starts
  const late = [b.paneInfo("b"), b.paneInfo("a")];
  panes[1]!.paneDead = true; // changes after the running listing was taken
  await f.release(); // that listing answers `early`; `late` goes to the next listing
  assertEquals((await Promise.all(early)).map((p) => p?.paneDead), [false, false]);
  await f.release();
  assertEquals((await Promise.all(late)).map((p) => p?.paneDead), [true, false]);
  await first;
  assertEquals(f.calls, ["paneInfo a", "listSessions", "listSessions"]);
});

Deno.test("PaneBatch: when the listing fails, every question gets its own query", async () => {
  const f = fakeMux([pane("a"), pane("b")], { listFails: true });
  const b = new PaneBatch(f.mux);
  const first = b.paneInfo("a");
  const asked = [b.paneInfo("b"), b.pipeActive("a")] as const;
  await f.release();
  await first;
  await f.release(); // the failing listing
  await f.release(); // the single queries
  const [pb, pipeA] = await Promise.all(asked);
  assertEquals([pb?.name, pipeA], ["b", true]);
  assertEquals(f.calls, ["paneInfo a", "listSessions", "paneInfo b", "pipeActive a"]);
});
