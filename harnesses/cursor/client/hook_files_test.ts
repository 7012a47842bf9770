/** aiterm's hook in Cursor's hooks.json: install, status and removal, on real files. */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import {
  cursorHooksPath,
  cursorParentHookStatus,
  installCursorParentHooks,
  uninstallCursorParentHooks,
} from "./hook_files.ts";
import { withHome } from "../../common/client/hook_test_kit.ts";

Deno.test("Cursor hooks: install adds version 1 and both events; status ready; removal takes only ours", () =>
  withHome(async ({ home, env, server }) => {
    await Deno.mkdir(`${home}/.cursor`);
    const path = cursorHooksPath(home);
    const before = '{\n  // mine\n  "hooks": {\n    "stop": [{"command": "./n.sh"}]\n  }\n}\n';
    await Deno.writeTextFile(path, before);
    assertEquals(cursorParentHookStatus(home, env).missing, ["afterMCPExecution", "postToolUse"]);
    const r = await installCursorParentHooks(server, { env, home, dryRun: false });
    assertEquals(r.outcome, "written");
    assertEquals(await Deno.readTextFile(`${path}.aiterm-backup`), before);
    const text = await Deno.readTextFile(path);
    assert(text.includes("// mine"), text);
    assertEquals(cursorParentHookStatus(home, env).ready, true);
    const mtime = (await Deno.stat(path)).mtime?.getTime();
    assertEquals((await installCursorParentHooks(server, { env, home, dryRun: false })).outcome, "unchanged");
    assertEquals((await Deno.stat(path)).mtime?.getTime(), mtime);

    const dry = await uninstallCursorParentHooks({ env, home, dryRun: true });
    assertEquals([dry.outcome, dry.removed], ["would_write", 2]);
    assertEquals(await Deno.readTextFile(path), text);
    const gone = await uninstallCursorParentHooks({ env, home, dryRun: false });
    assertEquals([gone.outcome, gone.removed], ["written", 2]);
    const left = await Deno.readTextFile(path);
    assert(left.includes("// mine") && left.includes('"stop": [{"command": "./n.sh"}]'), left);
    assertEquals(await Deno.readTextFile(`${path}.aiterm-backup`), text);
    assertEquals(cursorParentHookStatus(home, env).reason_code, "parent_hooks_missing");
  }));

Deno.test("Cursor status: a program that no longer exists, and a foreign version, are not ready", () =>
  withHome(async ({ home, env }) => {
    await Deno.mkdir(`${home}/.cursor`);
    const path = cursorHooksPath(home);
    const gone = { command: `${home}/no such/aiterm-mcp`, args: [] };
    await installCursorParentHooks(gone, { env, home, dryRun: false });
    const st = cursorParentHookStatus(home, env);
    assertEquals([st.ready, st.reason_code], [false, "parent_hook_command_missing"]);
    await Deno.writeTextFile(path, '{"version": 2, "hooks": {}}');
    assertEquals(cursorParentHookStatus(home, env).reason_code, "config_invalid");
  }));
