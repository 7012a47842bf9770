/** Grok Build's launch command line. */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { launchOptions } from "../common/test_kit.ts";
import { grok } from "./adapter.ts";
import { buildGrokLaunch } from "./launch.ts";

const opts = launchOptions({ bin: "/b/grok", cwd: "/w" });

Deno.test("buildGrokLaunch() passes --trust, pins -s, and maps model, effort, notice and read-only", () => {
  assertEquals(buildGrokLaunch(opts), {
    argv: ["/b/grok", "--trust", "-s", opts.sessionUuid],
    env: {},
    writeScopeEnforcement: null,
    pinnedSessionId: opts.sessionUuid,
    noticeChannel: null,
    fastBy: null,
  });
  // The sub-agent notice is appended to the system prompt with --rules; fast mode does not exist.
  const told = buildGrokLaunch({ ...opts, notice: "[aiterm] You are a sub-agent", fast: true });
  assertEquals(told.argv.slice(4), ["--rules", "[aiterm] You are a sub-agent"]);
  assertEquals([told.noticeChannel, told.fastBy], ["rules", null]);
  const full = buildGrokLaunch({ ...opts, model: "mock", reasoningEffort: "high", writeScope: "read-only" });
  assertEquals(full.argv, [
    "/b/grok",
    "--trust",
    "-s",
    opts.sessionUuid,
    "-m",
    "mock",
    "--reasoning-effort",
    "high",
    "--sandbox",
    "read-only",
  ]);
  assertEquals(full.writeScopeEnforcement, "enforced_read_only");
  assertEquals(
    buildGrokLaunch({ ...opts, writeScope: "only src/" }).writeScopeEnforcement,
    "declaration_only_unsupported",
  );
  assertEquals(grok.id, "grok-cli");
});
