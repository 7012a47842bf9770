/** Claude Code's permission dialog parser (agent_approval). */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { screenIn, TESTDATA } from "../common/test_kit.ts";
import { parseClaudeApproval } from "./approval.ts";
import { classifyClaudeScreen } from "./screen.ts";

const dir = TESTDATA;
const screen = (name: string) => screenIn(dir, name);

const IDLE_TAIL = "\n\n" + "─".repeat(40) + "\n❯ \n" + "─".repeat(40) + "\n  ? for shortcuts";

Deno.test("parseClaudeApproval() reads the real 2.1.328 Bash permission: kind, text, choices, keys, selection", () => {
  const d = parseClaudeApproval(screen("real-2.1.328-10-bash-permission"));
  assertEquals(d, {
    kind: "command",
    text: [
      "Bash command",
      "Print TOOL_OK",
      "echo TOOL_OK",
      "Rule Bash(echo TOOL_OK) from user settings overrides auto mode.",
      "/permissions to let auto mode decide",
      "Do you want to proceed?",
    ],
    choices: [
      { id: "approve_once", label: "Yes", singleShot: true, key: "1" },
      { id: "deny", label: "No", singleShot: true, key: "2" },
    ],
    selected: 0,
  });
  const moved = parseClaudeApproval(screen("real-2.1.328-11-bash-permission-moved"));
  assertEquals({ ...moved!, selected: 0 }, d);
  assertEquals(moved!.selected, 1);
});

Deno.test("parseClaudeApproval() reads the MCP tool permission; don't-ask-again is never single-shot", () => {
  const d = parseClaudeApproval(screen("claude-13-mcp-permission"))!;
  assertEquals(d.kind, "mcp_tool");
  assertEquals(d.text, [
    "Tool use",
    'probe - echo(text: "hello-from-mock") (MCP)',
    "Echo text back (probe).",
    "Do you want to proceed?",
  ]);
  assertEquals(d.choices.map((c) => [c.id, c.singleShot, c.key]), [
    ["approve_once", true, "1"],
    ["approve_always", false, "2"],
    ["deny", true, "3"],
  ]);
  // A file edit with a session-wide choice and a "(shift+tab)" hint.
  const edit = screen("real-2.1.328-10-bash-permission").replace(" Bash command", " Edit file")
    .replace(" Do you want to proceed?", " Do you want to make this edit to a.txt?")
    .replace(
      "   2. No",
      "   2. Yes, allow all edits during this session (shift+tab)\n   3. No, and tell Claude what to do differently (esc)",
    );
  const e = parseClaudeApproval(edit)!;
  assertEquals(e.kind, "file_edit");
  assertEquals(e.choices.map((c) => [c.id, c.label, c.singleShot]), [
    ["approve_once", "Yes", true],
    ["approve_session", "Yes, allow all edits during this session", false],
    ["deny", "No, and tell Claude what to do differently", true],
  ]);
});

Deno.test("parseClaudeApproval() reads only a dialog at the bottom; other dialogs and unknown titles are not approvals", () => {
  // The dialog with a composer under it (an old dialog in scrollback): not current.
  assertEquals(parseClaudeApproval(screen("real-2.1.328-10-bash-permission") + IDLE_TAIL), null);
  const names = [...Deno.readDirSync(new URL("screens/", dir))].map((e) => e.name.replace(/\.txt$/, ""))
    .filter((n) => n.startsWith("claude-") || n.startsWith("real-2.1.328-"));
  for (const name of names) {
    const s = classifyClaudeScreen(screen(name));
    const expected = s.kind === "blocked" && s.reason === "approval_required";
    assertEquals(parseClaudeApproval(screen(name)) !== null, expected, name);
  }
  // "Switch model?" (Enter to confirm · Esc to cancel) is no approval.
  assertEquals(parseClaudeApproval(screen("real-2.1.328-14-switch-model-confirm")), null);
  // A permission for a tool the adapter does not know: kind unknown (agent_approval never types into it).
  const web = screen("real-2.1.328-10-bash-permission").replace(" Bash command", " Fetch");
  assertEquals(parseClaudeApproval(web)!.kind, "unknown");
});
