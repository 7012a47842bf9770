/**
 * `--codex-steer`: the hooks.json edits (pure), and enable/status/disable against the fake
 * app-server (tests/fixtures/bin/fake_codex_app_server.mjs), whose request log shows exactly what was
 * approved. The real Codex 0.169.0 is exercised by tests/e2e/codex_steer_real_test.ts.
 */
import { fileURLToPath } from "node:url";
import { assertEquals, assertStringIncludes } from "../../../tests/helpers/assert.ts";
import { codexHookStateDir, readSelection } from "./steer_state.ts";
import {
  addCodexSteerHooks,
  CODEX_STEER_SPECS,
  codexSteerGroup,
  codexSteerHookName,
  type CodexSteerOptions,
  removeCodexSteerHooks,
  runCodexSteer,
} from "./steer_setup.ts";
import { processStartIdentity } from "../../../platform/mod.ts";

const FAKE = fileURLToPath(new URL("../../../tests/fixtures/bin/fake_codex_app_server.mjs", import.meta.url));
const AITERM = { command: "/opt/aiterm dir/aiterm-mcp", args: [] };

const FOREIGN = `{
  "hooks": {
    "PostToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "/usr/local/bin/audit --post" } ] }
    ],
    "SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]
  }
}
`;

Deno.test("hooks.json: aiterm's two groups are appended, other hooks keep their bytes, a second run changes nothing", () => {
  const once = addCodexSteerHooks(FOREIGN, AITERM, "darwin");
  // Everything up to the end of the user's group is byte-identical.
  const userGroupEnd = FOREIGN.indexOf('--post" } ] }') + '--post" } ] }'.length;
  assertEquals(once.slice(0, userGroupEnd), FOREIGN.slice(0, userGroupEnd));
  assertStringIncludes(
    once,
    '{ "matcher": "Bash", "hooks": [ { "type": "command", "command": "/usr/local/bin/audit --post" } ] }',
  );
  assertStringIncludes(once, '"SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}]');
  const parsed = JSON.parse(once).hooks;
  assertEquals(parsed.PostToolUse.length, 2);
  assertEquals(parsed.PostToolUse[1], {
    hooks: [{ type: "command", command: "'/opt/aiterm dir/aiterm-mcp' hook codex-post-tool-use", timeout: 60 }],
  });
  assertEquals(parsed.Stop, [{
    hooks: [{ type: "command", command: "'/opt/aiterm dir/aiterm-mcp' hook codex-stop", timeout: 60 }],
  }]);
  assertEquals(addCodexSteerHooks(once, AITERM, "darwin"), once);
  assertEquals(JSON.parse(addCodexSteerHooks("", AITERM, "darwin")).hooks.Stop.length, 1);
});

Deno.test("hooks.json: a moved aiterm binary is replaced in place, keeping the group's position (its approval key)", () => {
  const obj = JSON.parse(addCodexSteerHooks(FOREIGN, { command: "/old/aiterm-mcp", args: [] }, "darwin"));
  // The user added a hook after ours; ours must stay group 1, theirs group 2.
  obj.hooks.PostToolUse.push({ hooks: [{ type: "command", command: "later" }] });
  const text = JSON.stringify(obj, null, 2);
  const next = JSON.parse(addCodexSteerHooks(text, AITERM, "darwin")).hooks.PostToolUse;
  assertEquals(next.map((g: { hooks: { command: string }[] }) => g.hooks[0]!.command), [
    "/usr/local/bin/audit --post",
    "'/opt/aiterm dir/aiterm-mcp' hook codex-post-tool-use",
    "later",
  ]);
});

Deno.test("hooks.json: aiterm handlers in someone else's group or under the wrong event are moved out", () => {
  const text = JSON.stringify(
    {
      hooks: {
        PostToolUse: [{
          hooks: [
            { type: "command", command: "/usr/local/bin/audit" },
            { type: "command", command: "/x/aiterm-mcp hook codex-post-tool-use" },
          ],
        }],
        PreToolUse: [{ hooks: [{ type: "command", command: "/x/aiterm-mcp hook codex-stop" }] }],
      },
    },
    null,
    2,
  );
  const out = JSON.parse(addCodexSteerHooks(text, AITERM, "darwin")).hooks;
  assertEquals(out.PostToolUse[0], { hooks: [{ type: "command", command: "/usr/local/bin/audit" }] });
  assertEquals(out.PostToolUse.length, 2);
  assertEquals(out.PreToolUse, undefined);
  assertEquals(out.Stop.length, 1);
});

Deno.test("hooks.json: removal takes only aiterm's handlers; Windows commands use the PowerShell call operator", () => {
  const installed = addCodexSteerHooks(FOREIGN, AITERM, "darwin");
  const { text, removed } = removeCodexSteerHooks(installed, "darwin");
  assertEquals(removed, 2);
  assertEquals(JSON.parse(text), JSON.parse(FOREIGN));
  assertEquals(removeCodexSteerHooks(text, "darwin"), { text, removed: 0 });

  const win = { command: "C:\\Program Files\\aiterm\\aiterm-mcp.exe", args: [] };
  const group = codexSteerGroup(CODEX_STEER_SPECS[1]!, win, "windows") as { hooks: { command: string }[] };
  assertEquals(group.hooks[0]!.command, "& 'C:\\Program Files\\aiterm\\aiterm-mcp.exe' hook codex-stop");
  assertEquals(codexSteerHookName(group.hooks[0], "windows"), "codex-stop");
  assertEquals(codexSteerHookName({ command: "/usr/bin/other hook codex-stop-not" }, "darwin"), null);
});

interface Fx {
  dir: string;
  codexHome: string;
  options(extra?: Partial<CodexSteerOptions>): CodexSteerOptions;
  /** config/batchWrite requests the fake received. */
  writes(): Promise<Record<string, unknown>[]>;
  /** The trust state the fake keeps (what config.toml would hold). */
  trust(): Promise<Record<string, Record<string, unknown>>>;
  cleanup(): Promise<void>;
}

async function fixture(mode = "ok"): Promise<Fx> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "aiterm-steer-setup-" }));
  const codexHome = `${dir}/codex-home`;
  await Deno.mkdir(codexHome);
  await Deno.mkdir(`${dir}/home`);
  await Deno.writeTextFile(`${codexHome}/hooks.json`, FOREIGN);
  const logPath = `${dir}/requests.jsonl`;
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: `${dir}/home`,
    CODEX_HOME: codexHome,
    FAKE_CODEX_APPSERVER_MODE: mode,
    FAKE_CODEX_APPSERVER_LOG: logPath,
  };
  return {
    dir,
    codexHome,
    options: (extra = {}) => ({
      env,
      dryRun: false,
      os: "darwin",
      server: () => AITERM,
      codexBin: FAKE,
      listProcesses: () => [],
      ...extra,
    }),
    writes: async () =>
      (await Deno.readTextFile(logPath).catch(() => "")).split("\n").filter((l) => l).map((l) => JSON.parse(l))
        .filter((e) => e.at === "request" && e.msg.method === "config/batchWrite").map((e) => e.msg.params),
    trust: async () => JSON.parse(await Deno.readTextFile(`${codexHome}/fake-hooks-state.json`).catch(() => "{}")),
    cleanup: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

const opts = { sanitizeOps: true, sanitizeResources: true };

Deno.test({
  name: "enable approves exactly aiterm's two keys, reads them back, and a second enable writes nothing",
  ...opts,
  async fn() {
    const f = await fixture();
    try {
      const r = await runCodexSteer("enable", f.options());
      assertEquals([r.status, r.state, r.reason_code], ["ok", "ready", undefined]);
      const hooksJson = `${f.codexHome}/hooks.json`;
      const keys = [`${hooksJson}:post_tool_use:1:0`, `${hooksJson}:stop:0:0`];
      const writes = await f.writes();
      assertEquals(writes.length, 1);
      const edit = (writes[0]!.edits as Record<string, unknown>[])[0]!;
      assertEquals([edit.keyPath, edit.mergeStrategy], ["hooks.state", "upsert"]);
      assertEquals(Object.keys(edit.value as object).sort(), keys);
      // The user's own hooks stay untrusted: aiterm never approves them.
      const trust = await f.trust();
      assertEquals(Object.keys(trust).sort(), keys);
      assertEquals(r.codex_steer?.hooks.map((h) => [h.name, h.trust_status, h.enabled]), [
        ["codex-post-tool-use", "trusted", true],
        ["codex-stop", "trusted", true],
      ]);
      for (const h of Object.values(trust)) assertEquals(Object.keys(h), ["trusted_hash"]);
      const sel = await readSelection(codexHookStateDir(f.options().env), f.codexHome);
      assertEquals([sel?.state, sel?.hooks.map((h) => h.key).sort()], ["enabled", keys]);

      const before = await Deno.stat(hooksJson);
      const text = await Deno.readTextFile(hooksJson);
      const again = await runCodexSteer("enable", f.options());
      assertEquals([again.status, again.state], ["ok", "ready"]);
      assertStringIncludes(again.detail, "already holds aiterm's hooks; Codex already trusts them");
      assertEquals(await Deno.readTextFile(hooksJson), text);
      assertEquals((await Deno.stat(hooksJson)).mtime?.getTime(), before.mtime?.getTime());
      assertEquals((await f.writes()).length, 1);
      assertEquals((await runCodexSteer("status", f.options())).state, "ready");
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "enable fails when Codex refuses the write, or when the read-back does not show both hooks trusted",
  ...opts,
  async fn() {
    for (
      const [mode, code] of [
        ["batch_write_error", "codex_hooks_approval_refused"],
        ["batch_write_ignored", "codex_hooks_readback_failed"],
      ]
    ) {
      const f = await fixture(mode);
      try {
        const r = await runCodexSteer("enable", f.options());
        assertEquals([r.status, r.reason_code], ["failed", code], r.detail);
        assertEquals((await readSelection(codexHookStateDir(f.options().env), f.codexHome))?.state, undefined);
        assertEquals((await runCodexSteer("status", f.options())).state, "not_enabled");
      } finally {
        await f.cleanup();
      }
    }
  },
});

Deno.test({
  name: "a Codex process from before enabling keeps the state restart_required until it ends",
  ...opts,
  async fn() {
    const f = await fixture();
    const old = new Deno.Command("sleep", { args: ["60"], stdout: "null", stderr: "null" }).spawn();
    try {
      const ref = { pid: old.pid, start: processStartIdentity(old.pid) };
      const r = await runCodexSteer("enable", f.options({ listProcesses: () => [ref] }));
      assertEquals([r.status, r.state, r.reason_code, r.codex_steer?.restart_pids], [
        "ok",
        "restart_required",
        "codex_restart_required",
        [old.pid],
      ]);
      assertEquals((await runCodexSteer("status", f.options())).state, "restart_required");
      old.kill("SIGKILL");
      await old.status;
      assertEquals((await runCodexSteer("status", f.options())).state, "ready");
    } finally {
      try {
        old.kill("SIGKILL");
      } catch {
        // already ended
      }
      await old.status;
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "disable removes only aiterm's hooks and approvals; status then says not_enabled",
  ...opts,
  async fn() {
    const f = await fixture();
    try {
      await runCodexSteer("enable", f.options());
      // The user trusts one of their own hooks meanwhile; that must survive.
      const own = `${f.codexHome}/fake-hooks-state.json`;
      const state = JSON.parse(await Deno.readTextFile(own));
      state[`${f.codexHome}/hooks.json:session_start:0:0`] = { trusted_hash: "sha256:users-own" };
      await Deno.writeTextFile(own, JSON.stringify(state));

      const r = await runCodexSteer("disable", f.options());
      assertEquals([r.status, r.state], ["ok", "not_enabled"]);
      assertEquals(JSON.parse(await Deno.readTextFile(`${f.codexHome}/hooks.json`)), JSON.parse(FOREIGN));
      assertEquals(Object.keys(await f.trust()), [`${f.codexHome}/hooks.json:session_start:0:0`]);
      const removals = (await f.writes()).at(-1)!.edits as Record<string, unknown>[];
      assertEquals(removals.map((e) => [e.mergeStrategy, e.value]), [["replace", null], ["replace", null]]);
      assertEquals((await readSelection(codexHookStateDir(f.options().env), f.codexHome))?.state, "disabled");
      assertEquals((await runCodexSteer("status", f.options())).state, "not_enabled");
    } finally {
      await f.cleanup();
    }
  },
});

Deno.test({
  name: "--dry-run changes nothing; Linux refuses enable as unsupported and changes nothing",
  ...opts,
  async fn() {
    const f = await fixture();
    try {
      const dry = await runCodexSteer("enable", f.options({ dryRun: true }));
      assertEquals([dry.status, dry.state], ["ok", "not_enabled"]);
      assertStringIncludes(dry.detail, "would add aiterm's two hooks");
      assertEquals(await Deno.readTextFile(`${f.codexHome}/hooks.json`), FOREIGN);
      assertEquals(await f.writes(), []);

      const linux = await runCodexSteer("enable", f.options({ os: "linux" }));
      assertEquals([linux.status, linux.state, linux.reason_code], [
        "failed",
        "unsupported",
        "codex_steer_unsupported",
      ]);
      assertEquals((await runCodexSteer("status", f.options({ os: "linux" }))).state, "unsupported");
      assertEquals(await Deno.readTextFile(`${f.codexHome}/hooks.json`), FOREIGN);
    } finally {
      await f.cleanup();
    }
  },
});
