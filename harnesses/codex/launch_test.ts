/** The Codex CLI's launch command line. */
import { parse as parseToml } from "smol-toml";
import { assert, assertEquals } from "../../tests/helpers/assert.ts";
import { launchOptions } from "../common/test_kit.ts";
import { codex } from "./adapter.ts";
import { buildCodexLaunch } from "./launch.ts";

const base = launchOptions({ bin: "/usr/bin/codex", cwd: "/w/p" });

Deno.test("buildCodexLaunch() maps model, effort, notice, fast, read-only sandbox and images", () => {
  assertEquals(buildCodexLaunch(base), {
    argv: ["/usr/bin/codex"],
    env: {},
    writeScopeEnforcement: null,
    pinnedSessionId: null,
    noticeChannel: null,
    fastBy: null,
  });
  const notice = '[aiterm] You are a sub-agent in "kid" \\ (a > b)\nsecond line';
  const full = buildCodexLaunch({
    ...base,
    model: "gpt-6.2-sol",
    reasoningEffort: "high",
    writeScope: "read-only",
    fast: true,
    images: ["/tmp/a.png", "/tmp/b c.jpg"],
    notice,
  });
  assertEquals(full.argv, [
    "/usr/bin/codex",
    "-m",
    "gpt-6.2-sol",
    "-c",
    'model_reasoning_effort="high"',
    "-c",
    `developer_instructions=${JSON.stringify(notice)}`,
    "-c",
    'service_tier="fast"',
    "-s",
    "read-only",
    "--image=/tmp/a.png",
    "--image=/tmp/b c.jpg",
  ]);
  assertEquals(full.writeScopeEnforcement, "enforced_read_only");
  assertEquals([full.noticeChannel, full.fastBy], ["developer_instructions", "launch_option"]);
  // The -c value is TOML: the JSON string literal parses back to the notice exactly.
  assertEquals(parseToml(full.argv[6]!).developer_instructions, notice);
  const slow = buildCodexLaunch({ ...base, fast: false });
  assertEquals([slow.argv, slow.fastBy], [["/usr/bin/codex", "-c", 'service_tier="default"'], null]);
  assertEquals(
    buildCodexLaunch({ ...base, writeScope: "docs only" }).writeScopeEnforcement,
    "declaration_only_unsupported",
  );
  assert(!full.argv.some((a) => a === "exec" || a.includes("dangerously") || a === "--no-alt-screen"));
  assertEquals(codex.efforts, null);
  assertEquals(codex.submitSteps, [{ shownMs: 1000 }, { key: "Enter" }]);
});
