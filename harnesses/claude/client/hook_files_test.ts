/** aiterm's hooks in Claude Code's user settings: install, status, removal and the version check, on real files. */
import { assert, assertEquals, assertRejects } from "../../../tests/helpers/assert.ts";
import { SetupFailure } from "../../common/client/mod.ts";
import { claudeParentHookStatus, claudeSettingsPath } from "./hook_files.ts";
import { installClaudeParentHooks, uninstallClaudeParentHooks } from "./hook_files.ts";
import { checkClaudeHookVersion, parseClaudeVersion } from "./hook_files.ts";
import { withHome } from "../../common/client/hook_test_kit.ts";
import { findVendorClis } from "../../../tests/helpers/vendor.ts";

const FOREIGN =
  '{\n  "model": "opus",\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "say"}]}]\n  }\n}\n';

Deno.test("Claude hooks: install creates a private settings file, reads back ready; a rerun does not touch it", () =>
  withHome(async ({ home, env, server }) => {
    const before = claudeParentHookStatus(home, env);
    assertEquals([before.ready, before.reason_code, before.missing], [false, "parent_hooks_missing", [
      "PreToolUse",
      "PostToolUse",
      "SessionEnd",
      "Stop",
    ]]);
    const first = await installClaudeParentHooks(server, { env, home, dryRun: false });
    assertEquals([first.outcome, first.config_path_kind], ["written", "missing"]);
    const path = `${home}/.claude/settings.json`;
    assertEquals(first.config_path, path);
    assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600);
    assertEquals(claudeParentHookStatus(home, env), {
      ready: true,
      reason: null,
      reason_code: null,
      missing: [],
      config_path: path,
    });
    const bytes = await Deno.readFile(path);
    const mtime = (await Deno.stat(path)).mtime?.getTime();
    const again = await installClaudeParentHooks(server, { env, home, dryRun: false });
    assertEquals(again.outcome, "unchanged");
    assertEquals(await Deno.readFile(path), bytes);
    assertEquals((await Deno.stat(path)).mtime?.getTime(), mtime);
    assertEquals((await Array.fromAsync(Deno.readDir(`${home}/.claude`))).map((e) => e.name), ["settings.json"]);
  }));

Deno.test("Claude hooks: CLAUDE_CONFIG_DIR decides where settings.json is", () =>
  withHome(async ({ home, env, server }) => {
    const e = { ...env, CLAUDE_CONFIG_DIR: `${home}/alt` };
    assertEquals(claudeSettingsPath(e, home), `${home}/alt/settings.json`);
    await installClaudeParentHooks(server, { env: e, home, dryRun: false });
    assert(claudeParentHookStatus(home, e).ready);
    assertEquals(claudeParentHookStatus(home, env).reason_code, "parent_hooks_missing");
  }));

Deno.test("Claude hooks: a symlinked settings.json is updated through the link, backup beside the target", () =>
  withHome(async ({ home, env, server }) => {
    await Deno.mkdir(`${home}/dotfiles`);
    await Deno.mkdir(`${home}/.claude`);
    await Deno.writeTextFile(`${home}/dotfiles/settings.json`, FOREIGN);
    await Deno.symlink(`${home}/dotfiles/settings.json`, `${home}/.claude/settings.json`);
    const r = await installClaudeParentHooks(server, { env, home, dryRun: false });
    assertEquals([r.outcome, r.config_path_kind, r.target], ["written", "symlink", `${home}/dotfiles/settings.json`]);
    assert((await Deno.lstat(`${home}/.claude/settings.json`)).isSymlink);
    assertEquals(r.backup_path, `${home}/dotfiles/settings.json.aiterm-backup`);
    assertEquals(await Deno.readTextFile(r.backup_path!), FOREIGN);
    assert(claudeParentHookStatus(home, env).ready);
    const removed = await uninstallClaudeParentHooks({ env, home, dryRun: false });
    assertEquals([removed.outcome, removed.removed], ["written", 4]);
    assertEquals(await Deno.readTextFile(`${home}/dotfiles/settings.json`), FOREIGN);
    assert((await Deno.lstat(`${home}/.claude/settings.json`)).isSymlink);
  }));

Deno.test("Claude hooks: malformed settings fail with config_invalid and nothing is written or backed up", () =>
  withHome(async ({ home, env, server }) => {
    await Deno.mkdir(`${home}/.claude`);
    const bad = '{"hooks": {"Stop": [}, }';
    await Deno.writeTextFile(`${home}/.claude/settings.json`, bad);
    for (
      const run of [
        () => installClaudeParentHooks(server, { env, home, dryRun: false }),
        () => uninstallClaudeParentHooks({ env, home, dryRun: false }),
      ]
    ) {
      const err = await assertRejects(run);
      assert(err instanceof SetupFailure && err.reasonCode === "config_invalid", String(err));
    }
    assertEquals(await Deno.readTextFile(`${home}/.claude/settings.json`), bad);
    assertEquals((await Array.fromAsync(Deno.readDir(`${home}/.claude`))).map((e) => e.name), ["settings.json"]);
    const st = claudeParentHookStatus(home, env);
    assertEquals([st.ready, st.reason_code], [false, "config_invalid"]);
    // A hooks value of the wrong type is a shape problem: refused the same way.
    await Deno.writeTextFile(`${home}/.claude/settings.json`, '{"hooks": []}');
    const err = await assertRejects(() => installClaudeParentHooks(server, { env, home, dryRun: false }));
    assert(err instanceof SetupFailure && err.reasonCode === "config_invalid", String(err));
  }));

Deno.test("Claude status: disabled, outdated, program gone and missing are told apart", () =>
  withHome(async ({ home, env, server }) => {
    const path = `${home}/.claude/settings.json`;
    await Deno.mkdir(`${home}/.claude`);
    await Deno.writeTextFile(path, '{\n  "disableAllHooks": true\n}\n');
    await installClaudeParentHooks(server, { env, home, dryRun: false });
    const disabled = claudeParentHookStatus(home, env);
    assertEquals([disabled.ready, disabled.reason_code, disabled.missing], [false, "claude_hooks_disabled", []]);
    const v = JSON.parse(await Deno.readTextFile(path));
    assertEquals(v.disableAllHooks, true);

    delete v.disableAllHooks;
    delete v.hooks.PostToolUse[0].hooks[0].asyncRewake;
    await Deno.writeTextFile(path, JSON.stringify(v));
    const outdated = claudeParentHookStatus(home, env);
    assertEquals([outdated.reason_code, outdated.missing], ["parent_hooks_outdated", ["PostToolUse"]]);

    await installClaudeParentHooks(server, { env, home, dryRun: false });
    assert(claudeParentHookStatus(home, env).ready);
    await Deno.remove(server.args[2]!);
    const gone = claudeParentHookStatus(home, env);
    assertEquals([gone.reason_code, gone.missing], ["parent_hook_command_missing", [
      "PreToolUse",
      "PostToolUse",
      "SessionEnd",
      "Stop",
    ]]);

    const w = JSON.parse(await Deno.readTextFile(path));
    delete w.hooks.SessionEnd;
    await Deno.writeTextFile(path, JSON.stringify(w));
    assertEquals(claudeParentHookStatus(home, env).reason_code, "parent_hooks_missing");
    assertEquals(claudeParentHookStatus(home, env).missing.includes("SessionEnd"), true);
  }));

Deno.test("Claude version: parsed from --version; too old and unknown are refused with their codes", async () => {
  assertEquals(parseClaudeVersion("2.1.328 (Claude Code)\n"), "2.1.328");
  assertEquals(parseClaudeVersion("Claude Code"), null);
  const dir = await Deno.makeTempDir({ prefix: "aiterm-claude-ver-" });
  try {
    const old = `${dir}/claude`;
    await Deno.writeTextFile(old, "#!/bin/sh\necho '2.1.258 (Claude Code)'\n");
    await Deno.chmod(old, 0o755);
    const tooOld = await assertRejects(() => checkClaudeHookVersion(old, { PATH: "/usr/bin:/bin" }));
    assert(tooOld instanceof SetupFailure && tooOld.reasonCode === "claude_version_too_old", String(tooOld));
    await Deno.writeTextFile(old, "#!/bin/sh\necho '2.1.259 (Claude Code)'\n");
    assertEquals(await checkClaudeHookVersion(old, { PATH: "/usr/bin:/bin" }), "2.1.259");
    const none = await assertRejects(() => checkClaudeHookVersion(null, {}));
    assert(none instanceof SetupFailure && none.reasonCode === "claude_version_unknown");
    await Deno.writeTextFile(old, "#!/bin/sh\nexit 3\n");
    const silent = await assertRejects(() => checkClaudeHookVersion(old, { PATH: "/usr/bin:/bin" }));
    assert(silent instanceof SetupFailure && silent.reasonCode === "claude_version_unknown");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const realClaude = findVendorClis().claude;
Deno.test({
  name: `the real Claude Code passes the version check${
    realClaude ? "" : " [ignored: run scripts/install_vendor_clis.sh]"
  }`,
  ignore: !realClaude,
  async fn() {
    const home = await Deno.makeTempDir({ prefix: "aiterm-claude-ver-" });
    try {
      assertEquals(await checkClaudeHookVersion(realClaude, { HOME: home, PATH: "/usr/bin:/bin" }), "2.1.328");
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});
