/** Removing both clients' hooks from a home that has none. */
import { assertEquals } from "../../../tests/helpers/assert.ts";
import { uninstallClaudeParentHooks } from "../../claude/client/hook_files.ts";
import { uninstallCursorParentHooks } from "../../cursor/client/hook_files.ts";
import { withHome } from "./hook_test_kit.ts";

Deno.test("removal of hooks from a home without the files creates nothing", () =>
  withHome(async ({ home, env }) => {
    const c = await uninstallClaudeParentHooks({ env, home, dryRun: false });
    const k = await uninstallCursorParentHooks({ env, home, dryRun: false });
    assertEquals([c.outcome, c.config_path_kind, c.removed], ["unchanged", "missing", 0]);
    assertEquals([k.outcome, k.config_path_kind], ["unchanged", "missing"]);
    assertEquals((await Array.fromAsync(Deno.readDir(home))).map((e) => e.name), ["aiterm"]);
  }));
