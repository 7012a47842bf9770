/** The Cursor CLI's launch command line. */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { launchOptions } from "../common/test_kit.ts";
import { buildCursorLaunch } from "./launch.ts";

const base = launchOptions({ bin: "/bin/cursor-agent", cwd: "/w", sessionUuid: "u" });

Deno.test("cursor: buildLaunch puts effort in model brackets, fast as the -fast sibling, read-only as --mode ask", () => {
  assertEquals(buildCursorLaunch(base).argv, ["/bin/cursor-agent"]);
  assertEquals(
    buildCursorLaunch({ ...base, model: "claude-opus-4-8", reasoningEffort: "high" }).argv,
    ["/bin/cursor-agent", "--model", "claude-opus-4-8[effort=high]"],
  );
  assertEquals(buildCursorLaunch({ ...base, model: "composer-2.5", fast: true }).argv.slice(1), [
    "--model",
    "composer-2.5-fast",
  ]);
  assertEquals(buildCursorLaunch({ ...base, model: "composer-2.5-fast", fast: true }).argv.slice(2), [
    "composer-2.5-fast",
  ]);
  // The fast variant is the seat's model: fast by its id. No system-prompt option: the notice is typed.
  const fast = buildCursorLaunch({ ...base, model: "composer-2.5", fast: true, notice: "[aiterm] notice" });
  assertEquals([fast.fastBy, fast.noticeChannel, fast.argv.includes("[aiterm] notice")], [
    "model_variant",
    null,
    false,
  ]);
  assertEquals(buildCursorLaunch({ ...base, fast: true }).fastBy, null);
  const ro = buildCursorLaunch({ ...base, writeScope: "read-only" });
  assertEquals([ro.argv.slice(1), ro.writeScopeEnforcement, ro.pinnedSessionId], [
    ["--mode", "ask"],
    "enforced_read_only",
    null,
  ]);
  assertEquals(
    buildCursorLaunch({ ...base, writeScope: "src/" }).writeScopeEnforcement,
    "declaration_only_unsupported",
  );
});
