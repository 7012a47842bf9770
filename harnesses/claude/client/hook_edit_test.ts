/** aiterm's hooks in Claude Code's settings.json: install, re-install, clean-up and removal as text edits. */
import { assert, assertEquals } from "../../../tests/helpers/assert.ts";
import {
  addClaudeParentHooks,
  CLAUDE_HOOK_MATCHER,
  CLAUDE_HOOK_SPECS,
  CLAUDE_POST_MATCHER,
  claudeHookGroup,
  claudeHookName,
  removeClaudeParentHooks,
} from "./hook_edit.ts";
import { JsonShapeError, JsonSyntaxError } from "../../common/client/mod.ts";
import { BASE, NEWER, throwsA } from "../../common/client/hook_test_kit.ts";

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

Deno.test("Claude install: foreign hooks and keys keep their bytes; our four groups are added as specified", () => {
  const out = addClaudeParentHooks(FOREIGN, BASE);
  const v = JSON.parse(out);
  // Everything before our first insertion is untouched, and the foreign Stop line keeps its odd spacing.
  assert(
    out.startsWith(FOREIGN.slice(0, FOREIGN.indexOf("]}]}") + 4)),
    "the foreign PreToolUse group was rewritten",
  );
  // The foreign Stop group keeps its bytes; ours is added after it in the same array.
  assert(out.includes('"Stop":   [ {"hooks": [{"type": "command", "command": "say done"}]}'), out);
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
    matcher: CLAUDE_POST_MATCHER,
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
  // The Stop hook joins the foreign Stop group's event, after it, in its own group.
  assertEquals(v.hooks.Stop.length, 2);
  assertEquals(v.hooks.Stop[1], {
    hooks: [{
      type: "command",
      command: "/opt/deno",
      args: ["run", "-A", "/src/aiterm/main.ts", "hook", "claude-stop"],
      timeout: 86400,
      asyncRewake: true,
    }],
  });
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
  assertEquals(v.hooks.Stop, [claudeHookGroup(CLAUDE_HOOK_SPECS[3]!, BASE)]);
  assertEquals(v.hooks.SessionEnd, [claudeHookGroup(CLAUDE_HOOK_SPECS[2]!, BASE)]);
});

Deno.test("Claude removal takes only aiterm's handlers; install then remove gives back the original bytes", () => {
  const installed = addClaudeParentHooks(FOREIGN, BASE);
  const r = removeClaudeParentHooks(installed);
  assertEquals(r.removed, 4);
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
