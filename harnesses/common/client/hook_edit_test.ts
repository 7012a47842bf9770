import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
/** The hook-file edits of Claude Code and Cursor, and the command line they share. */
import {
  addClaudeParentHooks,
  CLAUDE_HOOK_MATCHER,
  CLAUDE_HOOK_SPECS,
  claudeHookGroup,
  claudeHookName,
  removeClaudeParentHooks,
} from "../../claude/client/hook_edit.ts";
import {
  addCursorParentHooks,
  cursorHookEntry,
  isCursorHookEntry,
  removeCursorParentHooks,
} from "../../cursor/client/hook_edit.ts";
import { commandLine, splitCommandLine } from "./hook_json.ts";
import { JsonShapeError, JsonSyntaxError, parseJsonSpans } from "./json_edit.ts";

const BASE = { command: "/opt/deno", args: ["run", "-A", "/src/aiterm/main.ts"] };
const NEWER = { command: "/opt/aiterm/aiterm-mcp", args: [] };

function throwsA(fn: () => unknown, type: new (...a: never[]) => Error): void {
  try {
    fn();
  } catch (err) {
    if (err instanceof type) return;
    throw new Error(`expected ${type.name}, got ${String(err)}`);
  }
  throw new Error(`expected ${type.name}`);
}

// deno-lint-ignore no-explicit-any
type Any = any;

const FOREIGN = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 5}]}
    ],
    "Stop":   [ {"hooks": [{"type": "command", "command": "say done"}]} ]
  },
  "disableAllHooks": false
}
`;

Deno.test("Claude install: foreign hooks and keys keep their bytes; our three groups are added as specified", () => {
  const out = addClaudeParentHooks(FOREIGN, BASE);
  const v = JSON.parse(out);
  // Everything before our first insertion is untouched, and the foreign Stop line keeps its odd spacing.
  assert(
    out.startsWith(FOREIGN.slice(0, FOREIGN.indexOf("]}]}") + 4)),
    "the foreign PreToolUse group was rewritten",
  );
  assert(out.includes('"Stop":   [ {"hooks": [{"type": "command", "command": "say done"}]} ]'), out);
  assert(out.endsWith('  "disableAllHooks": false\n}\n'));
  assertEquals(v.model, "opus");
  assertEquals(v.permissions, { allow: ["Bash(ls:*)"] });
  assertEquals(Object.keys(v.hooks), ["PreToolUse", "Stop", "PostToolUse", "SessionEnd"]);
  assertEquals(v.hooks.PreToolUse.length, 2);
  assertEquals(v.hooks.PreToolUse[1], {
    matcher: CLAUDE_HOOK_MATCHER,
    hooks: [{
      type: "command",
      command: "/opt/deno",
      args: ["run", "-A", "/src/aiterm/main.ts", "hook", "claude-pre-tool-use"],
      timeout: 30,
    }],
  });
  assertEquals(v.hooks.PostToolUse, [{
    matcher: CLAUDE_HOOK_MATCHER,
    hooks: [{
      type: "command",
      command: "/opt/deno",
      args: ["run", "-A", "/src/aiterm/main.ts", "hook", "claude-post-tool-use"],
      timeout: 86400,
      asyncRewake: true,
    }],
  }]);
  assertEquals(v.hooks.SessionEnd, [{
    hooks: [{
      type: "command",
      command: "/opt/deno",
      args: ["run", "-A", "/src/aiterm/main.ts", "hook", "claude-session-end"],
      timeout: 30,
    }],
  }]);
});

Deno.test("Claude re-install with the same command returns the same text; a new command is replaced in place", () => {
  const once = addClaudeParentHooks(FOREIGN, BASE);
  assertEquals(addClaudeParentHooks(once, BASE), once);
  // Put a foreign group after ours, then move to the compiled binary: ours stays between the two.
  const v = JSON.parse(once);
  v.hooks.PreToolUse.push({ matcher: "Edit", hooks: [{ type: "command", command: "fmt.sh" }] });
  const text = JSON.stringify(v, null, 2);
  const moved = JSON.parse(addClaudeParentHooks(text, NEWER));
  assertEquals(moved.hooks.PreToolUse.map((g: Any) => g.matcher), ["Bash", CLAUDE_HOOK_MATCHER, "Edit"]);
  assertEquals(moved.hooks.PreToolUse[1].hooks[0].command, "/opt/aiterm/aiterm-mcp");
  assertEquals(moved.hooks.PreToolUse[1].hooks[0].args, ["hook", "claude-pre-tool-use"]);
  assertEquals(moved.hooks.SessionEnd[0].hooks[0].args, ["hook", "claude-session-end"]);
});

Deno.test("Claude: an outdated aiterm group (asyncRewake dropped, old matcher) is rewritten to the contract", () => {
  const text = JSON.stringify({
    hooks: {
      PostToolUse: [{
        matcher: "mcp__aiterm__.*",
        hooks: [{ type: "command", command: "/old/aiterm", args: ["hook", "claude-post-tool-use"], timeout: 60 }],
      }],
    },
  });
  const v = JSON.parse(addClaudeParentHooks(text, BASE));
  assertEquals(v.hooks.PostToolUse, [claudeHookGroup(CLAUDE_HOOK_SPECS[1]!, BASE)]);
});

Deno.test("Claude: our handler inside someone else's group is taken out of it; theirs stays", () => {
  const text = JSON.stringify(
    {
      hooks: {
        PreToolUse: [{
          matcher: "Bash",
          hooks: [
            { type: "command", command: "guard.sh" },
            { type: "command", command: "/x/aiterm-mcp", args: ["hook", "claude-pre-tool-use"] },
          ],
        }],
      },
    },
    null,
    2,
  );
  const v = JSON.parse(addClaudeParentHooks(text, BASE));
  assertEquals(v.hooks.PreToolUse[0], { matcher: "Bash", hooks: [{ type: "command", command: "guard.sh" }] });
  assertEquals(v.hooks.PreToolUse[1], claudeHookGroup(CLAUDE_HOOK_SPECS[0]!, BASE));
  assertEquals(v.hooks.PreToolUse.length, 2);
});

Deno.test("Claude: duplicates and an aiterm handler under the wrong event are cleaned up", () => {
  const pre = claudeHookGroup(CLAUDE_HOOK_SPECS[0]!, BASE);
  const text = JSON.stringify(
    {
      hooks: {
        PreToolUse: [pre, { matcher: "Bash", hooks: [{ type: "command", command: "g" }] }, pre],
        Stop: [claudeHookGroup(CLAUDE_HOOK_SPECS[2]!, BASE)],
      },
    },
    null,
    2,
  );
  const v = JSON.parse(addClaudeParentHooks(text, BASE));
  assertEquals(v.hooks.PreToolUse, [pre, { matcher: "Bash", hooks: [{ type: "command", command: "g" }] }]);
  assertEquals(v.hooks.Stop, undefined);
  assertEquals(v.hooks.SessionEnd, [claudeHookGroup(CLAUDE_HOOK_SPECS[2]!, BASE)]);
});

Deno.test("Claude removal takes only aiterm's handlers; install then remove gives back the original bytes", () => {
  const installed = addClaudeParentHooks(FOREIGN, BASE);
  const r = removeClaudeParentHooks(installed);
  assertEquals(r.removed, 3);
  assertEquals(r.text, FOREIGN);
  assertEquals(removeClaudeParentHooks(r.text), { text: FOREIGN, removed: 0 });
  // A file without hooks: the keys we created go again.
  const plain = '{\n  "model": "opus"\n}\n';
  assertEquals(removeClaudeParentHooks(addClaudeParentHooks(plain, BASE)).text, plain);
  // A mixed group keeps the foreign handler.
  const mixed = JSON.stringify({
    hooks: {
      PreToolUse: [{
        matcher: "Bash",
        hooks: [{ type: "command", command: "g" }, {
          type: "command",
          command: "a",
          args: ["hook", "claude-pre-tool-use"],
        }],
      }],
    },
  });
  const m = removeClaudeParentHooks(mixed);
  assertEquals(m.removed, 1);
  assertEquals(JSON.parse(m.text), {
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "g" }] }] },
  });
});

Deno.test("Claude: disableAllHooks is never touched by install or removal", () => {
  const text = '{"disableAllHooks": true, "hooks": {}}';
  const installed = addClaudeParentHooks(text, BASE);
  assert(installed.startsWith('{"disableAllHooks": true, "hooks": {'), installed);
  assertEquals(JSON.parse(installed).disableAllHooks, true);
  assertEquals(JSON.parse(removeClaudeParentHooks(installed).text).disableAllHooks, true);
});

Deno.test("Claude: a file it cannot edit safely throws (syntax or shape) instead of guessing", () => {
  throwsA(() => addClaudeParentHooks('{"hooks": {', BASE), JsonSyntaxError);
  throwsA(() => addClaudeParentHooks('{"a": 1,}', BASE), JsonSyntaxError);
  throwsA(() => addClaudeParentHooks("[]", BASE), JsonShapeError);
  throwsA(() => addClaudeParentHooks('{"hooks": []}', BASE), JsonShapeError);
  throwsA(() => addClaudeParentHooks('{"hooks": {"PreToolUse": {}}}', BASE), JsonShapeError);
  // Someone else's odd event value is not ours to judge.
  const odd = '{"hooks": {"Notification": "x"}}';
  assertEquals(JSON.parse(addClaudeParentHooks(odd, BASE)).hooks.Notification, "x");
});

Deno.test("which Claude handlers are aiterm's: args ending in hook + one of our names, nothing else", () => {
  assertEquals(claudeHookName({ command: "/a", args: ["hook", "claude-pre-tool-use"] }), "claude-pre-tool-use");
  assertEquals(
    claudeHookName({ command: "/d", args: ["run", "-A", "m.ts", "hook", "claude-session-end"] }),
    "claude-session-end",
  );
  assertEquals(claudeHookName({ command: "aiterm-mcp hook claude-pre-tool-use" }), null);
  assertEquals(claudeHookName({ command: "/a", args: ["hook", "codex-post-tool-use"] }), null);
  assertEquals(claudeHookName({ command: "/a", args: ["claude-pre-tool-use"] }), null);
  assertEquals(claudeHookName("hook"), null);
});

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

Deno.test("command strings: quoting round-trips for spaces, quotes and shell characters (sh and PowerShell)", () => {
  const argv = ["/home/a b/deno", "run", "-A", "/x/it's $HOME/`m`.ts", "hook", "cursor-parent"];
  const sh = commandLine(argv, "linux");
  assertEquals(sh, `'/home/a b/deno' run -A '/x/it'"'"'s $HOME/\`m\`.ts' hook cursor-parent`);
  assertEquals(splitCommandLine(sh, "linux"), argv);
  if (Deno.build.os !== "windows") {
    // A real sh reads the string back into the same argv.
    const out = stdoutOf(
      new Deno.Command("sh", { args: ["-c", `printf '%s\\n' ${sh}`], stdout: "piped" }).outputSync(),
    );
    assertEquals(out.trimEnd().split("\n"), argv);
  }
  const ps = commandLine(["C:\\Program Files\\aiterm\\aiterm-mcp.exe", "hook", "cursor-parent"], "windows");
  assertEquals(ps, "& 'C:\\Program Files\\aiterm\\aiterm-mcp.exe' hook cursor-parent");
  assertEquals(splitCommandLine(ps, "windows"), ["C:\\Program Files\\aiterm\\aiterm-mcp.exe", "hook", "cursor-parent"]);
  assertEquals(splitCommandLine(commandLine(["C:\\it's\\a.exe", "x"], "windows"), "windows"), ["C:\\it's\\a.exe", "x"]);
});

function stdoutOf(out: Deno.CommandOutput): string {
  return new TextDecoder().decode(out.stdout);
}
