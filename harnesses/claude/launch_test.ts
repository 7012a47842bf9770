/** Claude Code's launch command line. */
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { launchOptions } from "../common/test_kit.ts";
import { claude } from "./adapter.ts";
import { buildClaudeLaunch } from "./launch.ts";

const base = launchOptions({ bin: "/usr/bin/claude", cwd: "/w/p" });

Deno.test("buildClaudeLaunch() pins the session and maps model, effort, read-only, notice and fast", () => {
  assertEquals(buildClaudeLaunch(base), {
    argv: ["/usr/bin/claude", "--session-id", base.sessionUuid],
    env: {},
    writeScopeEnforcement: null,
    pinnedSessionId: base.sessionUuid,
    noticeChannel: null,
    fastBy: null,
  });
  const full = buildClaudeLaunch({
    ...base,
    model: "opus",
    reasoningEffort: "xhigh",
    writeScope: "read-only",
    fast: true,
    images: ["/tmp/a.png"],
    notice: "[aiterm] You are a sub-agent",
  });
  assertEquals(full.argv, [
    "/usr/bin/claude",
    "--session-id",
    base.sessionUuid,
    "--model",
    "opus",
    "--effort",
    "xhigh",
    "--append-system-prompt",
    "[aiterm] You are a sub-agent",
    "--settings",
    '{"fastMode":true}',
    "--permission-mode",
    "plan",
  ]);
  assertEquals([full.noticeChannel, full.fastBy], ["append_system_prompt", "launch_option"]);
  // fast:false pins normal speed for this session (a user default of fastMode:true is overridden).
  const slow = buildClaudeLaunch({ ...base, fast: false });
  assertEquals([slow.argv.slice(3), slow.fastBy], [["--settings", '{"fastMode":false}'], null]);
  assertEquals(full.writeScopeEnforcement, "enforced_read_only");
  assertEquals(
    buildClaudeLaunch({ ...base, writeScope: "only src/" }).writeScopeEnforcement,
    "declaration_only_unsupported",
  );
  assert(!full.argv.some((a) => a.startsWith("-p") || a.includes("dangerously")));
  assertEquals(claude.efforts, ["low", "medium", "high", "xhigh", "max"]);
  assertEquals(claude.submitSteps, [{ shownMs: 1000 }, { key: "Enter" }]);
});
