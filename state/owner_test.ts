import { assert, assertEquals } from "../tests/helpers/assert.ts";
import { judgeOwner, newOwnerToken, ownerRecord, thisProcess } from "./owner.ts";

Deno.test("ownerRecord() is this process with a fresh token; thisProcess() is read once", () => {
  const a = ownerRecord();
  const b = ownerRecord();
  assertEquals([a.pid, a.identity], [Deno.pid, thisProcess().identity]);
  assert(a.token !== b.token && /^[0-9a-f]{32}$/.test(newOwnerToken()));
  assert(thisProcess() === thisProcess());
});

Deno.test("judgeOwner(): self, an earlier incarnation of this pid, a live process, a dead one", async () => {
  const me = thisProcess();
  assertEquals(judgeOwner({ pid: Deno.pid, identity: me.identity }), "self");
  assertEquals(judgeOwner({ pid: Deno.pid, identity: null }), "self");
  if (me.identity !== null && me.canJudgeLiveness) {
    assertEquals(judgeOwner({ pid: Deno.pid, identity: `${me.identity}-earlier` }), "gone");
  }
  const child = new Deno.Command("sleep", { args: ["30"], stdout: "null", stderr: "null" }).spawn();
  try {
    if (me.canJudgeLiveness) assertEquals(judgeOwner({ pid: child.pid, identity: null }), "alive");
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
  // A reaped child's pid names no process now (or, rarely, another one: then its identity differs).
  if (me.canJudgeLiveness) assertEquals(judgeOwner({ pid: child.pid, identity: "linux:0" }), "gone");
  assertEquals(judgeOwner({ pid: 2 ** 30, identity: null }), "gone");
  assertEquals(
    judgeOwner({ pid: 2 ** 30, identity: null }, { blind: "alive" }),
    me.canJudgeLiveness ? "gone" : "alive",
  );
});
