/** aiterm's hook in Cursor's hooks.json: install, version handling and ownership as text edits. */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import { addCursorParentHooks, cursorHookEntry, isCursorHookEntry, removeCursorParentHooks } from "./hook_edit.ts";
import { JsonShapeError, parseJsonSpans } from "../../common/client/mod.ts";
import { BASE, NEWER, throwsA } from "../../common/client/hook_test_kit.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const CURSOR_FOREIGN = `// user hooks
{
  "version": 1,
  "hooks": {
    "afterMCPExecution": [
      { "command": "./audit.sh" }, // audit
    ],
    "stop": [{ "command": "./notify.sh", "loop_limit": 3 }],
  },
}
`;

Deno.test("Cursor install: comments, trailing commas and foreign entries (first, in order) are kept", () => {
  const out = addCursorParentHooks(CURSOR_FOREIGN, BASE, "linux");
  assert(out.startsWith('// user hooks\n{\n  "version": 1,\n  "hooks": {\n    "afterMCPExecution": [\n'), out);
  assert(out.includes('{ "command": "./audit.sh" }, // audit'), out);
  assert(out.includes('"stop": [{ "command": "./notify.sh", "loop_limit": 3 }],'), out);
  const v = parseJsonSpans(out, { jsonc: true }).value as Any;
  const ours = { command: "/opt/deno run -A /src/aiterm/main.ts hook cursor-parent" };
  assertEquals(v.hooks.afterMCPExecution, [{ command: "./audit.sh" }, ours]);
  assertEquals(v.hooks.postToolUse, [ours]);
  assertEquals(Object.keys(v.hooks), ["afterMCPExecution", "stop", "postToolUse"]);
  assertEquals(addCursorParentHooks(out, BASE, "linux"), out);
  const r = removeCursorParentHooks(out);
  assertEquals(r.removed, 2);
  assertEquals(parseJsonSpans(r.text, { jsonc: true }).value, parseJsonSpans(CURSOR_FOREIGN, { jsonc: true }).value);
  assert(r.text.includes("// audit") && r.text.includes("// user hooks"));
});

Deno.test("Cursor: version 1 is added when missing; another version is refused; ours elsewhere is removed", () => {
  const v = JSON.parse(addCursorParentHooks('{"hooks": {}}', BASE, "linux"));
  assertEquals(v.version, 1);
  assertEquals(v.hooks.afterMCPExecution, [cursorHookEntry(BASE, "linux")]);
  throwsA(() => addCursorParentHooks('{"version": 2, "hooks": {}}', BASE, "linux"), JsonShapeError);
  const stray = JSON.stringify({
    version: 1,
    hooks: {
      stop: [{ command: "/old/aiterm-mcp hook cursor-parent" }, { command: "./n.sh" }],
      postToolUse: [{ command: "/old/aiterm-mcp hook cursor-parent" }, {
        command: "/old/aiterm-mcp hook cursor-parent",
      }],
    },
  });
  const w = JSON.parse(addCursorParentHooks(stray, NEWER, "linux"));
  assertEquals(w.hooks.stop, [{ command: "./n.sh" }]);
  assertEquals(w.hooks.postToolUse, [{ command: "/opt/aiterm/aiterm-mcp hook cursor-parent" }]);
  const fresh = JSON.parse(addCursorParentHooks("", NEWER, "linux"));
  assertEquals(fresh, {
    version: 1,
    hooks: {
      afterMCPExecution: [{ command: "/opt/aiterm/aiterm-mcp hook cursor-parent" }],
      postToolUse: [{ command: "/opt/aiterm/aiterm-mcp hook cursor-parent" }],
    },
  });
});

Deno.test("Cursor entries are aiterm's only when the command contains ' hook cursor-parent'", () => {
  assert(isCursorHookEntry({ command: "'/a b/aiterm-mcp' hook cursor-parent" }));
  assert(!isCursorHookEntry({ command: "./cursor-parent-hook.sh" }));
  assert(!isCursorHookEntry({ command: "aiterm-mcp hook claude-pre-tool-use" }));
  assert(!isCursorHookEntry({ cmd: " hook cursor-parent" }));
});
