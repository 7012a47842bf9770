import { assert, assertEquals, assertStringIncludes } from "../../tests/helpers/assert.ts";
import { childLineage, lineageEnv, lineageNotice, lineagePreface, PREFACE_END } from "./record.ts";

Deno.test("childLineage() extends the parent's lineage and depth, and ignores malformed parent values", () => {
  const top = childLineage({}, "t1");
  assertEquals(top, {
    agent_role: "subagent",
    parent_session_id: null,
    delegation_depth: 1,
    lineage: ["t1"],
    delegation_allowed: true,
  });
  const nested = childLineage({ AITERM_SESSION_ID: "t1", AITERM_DELEGATION_DEPTH: "1", AITERM_LINEAGE: "t1" }, "t2");
  assertEquals([nested.parent_session_id, nested.delegation_depth, nested.lineage], ["t1", 2, ["t1", "t2"]]);
  const odd = childLineage({
    AITERM_SESSION_ID: "bad id;rm",
    AITERM_DELEGATION_DEPTH: "-4",
    AITERM_LINEAGE: "a/$(x)/b",
  }, "c");
  assertEquals([odd.parent_session_id, odd.delegation_depth, odd.lineage], [null, 1, ["a", "b", "c"]]);
});

Deno.test("lineageEnv() and lineagePreface() carry the same facts", () => {
  const l = childLineage({ AITERM_SESSION_ID: "p", AITERM_DELEGATION_DEPTH: "2", AITERM_LINEAGE: "r/p" }, "kid");
  assertEquals(lineageEnv(l, "abc"), {
    AITERM_AGENT_ROLE: "subagent",
    AITERM_PARENT_SESSION_ID: "p",
    AITERM_DELEGATION_DEPTH: "3",
    AITERM_LINEAGE: "r/p/kid",
    AITERM_DELEGATION_ALLOWED: "true",
    AITERM_LAUNCH_ID: "abc",
  });
  const notice = lineageNotice(l, "kid");
  for (
    const part of ['session "kid"', 'session "p"', "depth 3", "r > p > kid", "delegation_allowed=true", "sub-agent"]
  ) {
    assertStringIncludes(notice, part);
  }
  // Typed before a first prompt (no system-prompt channel), the notice is set apart from the task.
  const typed = lineagePreface(l, "kid") + "the task";
  assertEquals(typed, `${notice}\n\n${PREFACE_END}\n\nthe task`);
  assert(!notice.includes("\n"), "the notice is one line");
});
