import { assert, assertEquals } from "../tests/helpers/assert.ts";
import type { ClientContext } from "../harnesses/clients/mod.ts";
import { HOOKS_RESULT_SCHEMA, renderHooksHuman, runHookActions, setupParentHooks } from "./hook_actions.ts";
import { installClaudeParentHooks, installCursorParentHooks } from "../harnesses/clients/mod.ts";

interface Box {
  ctx: ClientContext;
  /** A fake `claude` that prints `version`. */
  claude: (version: string) => Promise<string>;
}

async function withBox(fn: (box: Box) => Promise<void>, dryRun = false): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "aiterm-hook-actions-" });
  try {
    await Deno.writeTextFile(`${home}/main.ts`, "// stand-in\n");
    const env = { HOME: home, PATH: "/usr/bin:/bin" };
    const ctx: ClientContext = { env, home, dryRun, server: { command: Deno.execPath(), args: [`${home}/main.ts`] } };
    const claude = async (version: string) => {
      const bin = `${home}/claude-${version}`;
      await Deno.writeTextFile(bin, `#!/bin/sh\necho '${version} (Claude Code)'\n`);
      await Deno.chmod(bin, 0o755);
      return bin;
    };
    await fn({ ctx, claude });
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}

Deno.test("setup step: Claude hooks installed and read back ready; the second run is already_installed", () =>
  withBox(async ({ ctx, claude }) => {
    const det = { found: true, bin: await claude("2.1.328"), how: "test" };
    const first = await setupParentHooks("claude", ctx, det);
    assertEquals([first.status, first.ready, first.client_version], ["installed", true, "2.1.328"]);
    assertEquals(first.config_path_kind, "created");
    const second = await setupParentHooks("claude", ctx, det);
    assertEquals([second.status, second.ready], ["already_installed", true]);
  }));

Deno.test("setup step: an old Claude Code gets no hooks (claude_version_too_old), settings untouched", () =>
  withBox(async ({ ctx, claude }) => {
    const r = await setupParentHooks("claude", ctx, { found: true, bin: await claude("2.1.200"), how: "test" });
    assertEquals([r.status, r.ready, r.reason_code, r.client_version], [
      "failed",
      false,
      "claude_version_too_old",
      undefined,
    ]);
    assertEquals(await Deno.lstat(`${ctx.home}/.claude`).then(() => true, () => false), false);
    const none = await setupParentHooks("claude", ctx, { found: true, bin: null, how: "test" });
    assertEquals(none.reason_code, "claude_version_unknown");
  }));

Deno.test("setup step: disableAllHooks stays; the hooks are installed but reported not ready", () =>
  withBox(async ({ ctx, claude }) => {
    await Deno.mkdir(`${ctx.home}/.claude`);
    await Deno.writeTextFile(`${ctx.home}/.claude/settings.json`, '{"disableAllHooks": true}\n');
    const r = await setupParentHooks("claude", ctx, { found: true, bin: await claude("2.1.328"), how: "test" });
    assertEquals([r.status, r.ready, r.reason_code], ["installed", false, "claude_hooks_disabled"]);
    assert(r.detail.includes("disableAllHooks"), r.detail);
    const v = JSON.parse(await Deno.readTextFile(`${ctx.home}/.claude/settings.json`));
    assertEquals(v.disableAllHooks, true);
  }));

Deno.test("setup step: --dry-run reports would_install for Cursor and writes nothing", () =>
  withBox(async ({ ctx }) => {
    const r = await setupParentHooks("cursor", ctx, { found: true, bin: null, how: "test" });
    assertEquals([r.status, r.ready], ["would_install", false]);
    assertEquals(await Deno.lstat(`${ctx.home}/.cursor`).then(() => true, () => false), false);
  }, true));

Deno.test("hook commands: remove both clients' entries, then nothing is left to remove", () =>
  withBox(async ({ ctx }) => {
    const options = { env: ctx.env, home: ctx.home, dryRun: false };
    await installClaudeParentHooks(ctx.server, options);
    await Deno.mkdir(`${ctx.home}/.cursor`);
    await installCursorParentHooks(ctx.server, options);
    const req = { removeClaude: true, removeCursor: true };
    const r = await runHookActions(req, { env: ctx.env, dryRun: false });
    assertEquals([r.schema, r.status], [HOOKS_RESULT_SCHEMA, "ok"]);
    assertEquals(r.actions.map((a) => [a.action, a.status, a.removed_entries]), [
      // Claude Code: PreToolUse, PostToolUse, SessionEnd and the Stop hook that carries an answer after a notice.
      ["remove_claude_parent_hooks", "removed", 4],
      ["remove_cursor_parent_hooks", "removed", 2],
    ]);
    assertEquals(r.actions[0]!.backup_path, `${ctx.home}/.claude/settings.json.aiterm-backup`);
    const again = await runHookActions(req, { env: ctx.env, dryRun: false });
    assertEquals(again.actions.map((a) => a.status), ["not_installed", "not_installed"]);
    assert(renderHooksHuman(again).includes("remove_claude_parent_hooks: not_installed"));
  }));

Deno.test("hook commands: a corrupt file fails the removal with config_invalid; no HOME is home_unknown", () =>
  withBox(async ({ ctx }) => {
    await Deno.mkdir(`${ctx.home}/.cursor`);
    await Deno.writeTextFile(`${ctx.home}/.cursor/hooks.json`, "{ nope");
    const r = await runHookActions({ removeClaude: false, removeCursor: true }, { env: ctx.env, dryRun: false });
    assertEquals([r.status, r.reason_code, r.actions[0]!.status], ["failed", "config_invalid", "failed"]);
    assertEquals(await Deno.readTextFile(`${ctx.home}/.cursor/hooks.json`), "{ nope");
    const noHome = await runHookActions({ removeClaude: true, removeCursor: false }, { env: {}, dryRun: false });
    assertEquals(noHome.reason_code, "home_unknown");
  }));

Deno.test("hook commands: --codex-steer status/disable succeed and enable fails, per OS", async () => {
  const run = (codexSteer: "status" | "enable" | "disable", os: "linux" | "darwin") =>
    runHookActions({ removeClaude: false, removeCursor: false, codexSteer }, { env: {}, dryRun: false, os });
  const status = await run("status", "linux");
  assertEquals([status.status, status.actions[0]!.state, status.actions[0]!.reason_code], [
    "ok",
    "unsupported",
    "codex_steer_unsupported",
  ]);
  const enable = await run("enable", "linux");
  assertEquals([enable.status, enable.reason_code, enable.actions[0]!.state], [
    "failed",
    "codex_steer_unsupported",
    "unsupported",
  ]);
  assertEquals((await run("disable", "linux")).status, "ok");
  // Elsewhere enable runs for real (harnesses/codex/client/steer_setup_test.ts); without a home it cannot.
  const mac = await run("enable", "darwin");
  assertEquals([mac.status, mac.reason_code, mac.actions[0]!.state], [
    "failed",
    "home_unknown",
    "setup_required",
  ]);
});
