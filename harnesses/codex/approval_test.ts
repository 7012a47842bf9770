/** The Codex CLI's approval dialog parser (agent_approval). */
import { assertEquals } from "../../tests/helpers/assert.ts";
import { screenIn, TESTDATA } from "../common/test_kit.ts";
import { parseCodexApproval } from "./approval.ts";
import { classifyCodexScreen } from "./screen.ts";

const dir = TESTDATA;
const screen = (name: string) => screenIn(dir, name);
const IDLE_TAIL = "\n› Ask Codex to do anything\n\n  m default · /w/p\n  ← for agents · ? for shortcuts";

Deno.test("parseCodexApproval() reads the real 0.169.0 command approval: kind, text, choices, keys, selection", () => {
  const d = parseCodexApproval(screen("real-0.169.0-07-command-approval"));
  assertEquals(d, {
    kind: "command",
    text: [
      "Would you like to run the following command?",
      "Environment: local",
      "Reason: `/bin/bash -lc 'echo TOOL_OK'` requires approval by policy",
      "$ echo TOOL_OK",
    ],
    choices: [
      { id: "approve_once", label: "Yes, proceed", singleShot: true, key: "1" },
      { id: "deny", label: "No, and tell Codex what to do differently", singleShot: true, key: "2" },
    ],
    selected: 0,
  });
  // The marker moved (Down): the same dialog, another selection.
  const moved = parseCodexApproval(screen("real-0.169.0-08-command-approval-moved"));
  assertEquals({ ...moved!, selected: 0 }, d);
  assertEquals(moved!.selected, 1);
});

Deno.test("parseCodexApproval() reads the MCP tool approval; remembered choices are never single-shot", () => {
  const d = parseCodexApproval(screen("codex-15-mcp-after-reconnect"))!;
  assertEquals([d.kind, d.text], ["mcp_tool", [
    'Allow the probe MCP server to run tool "echo"?',
    "text: hello-from-mock",
  ]]);
  assertEquals(d.choices.map((c) => [c.id, c.label, c.singleShot, c.key]), [
    ["approve_once", "Allow", true, "1"],
    ["approve_session", "Allow for this session", false, "2"],
    ["approve_always", "Always allow", false, "3"],
    ["deny", "Cancel", true, "4"],
  ]);
  // A command approval that offers a prefix rule ("don't ask again") keeps it out of the single-shot choices.
  const three = screen("real-0.169.0-07-command-approval").replace(
    "  2. No, and tell Codex",
    "  2. Yes, and don't ask again for commands that start with `echo` (p)\n  3. No, and tell Codex",
  );
  assertEquals(parseCodexApproval(three)!.choices.map((c) => [c.id, c.singleShot, c.key]), [
    ["approve_once", true, "1"],
    ["approve_always", false, "2"],
    ["deny", true, "3"],
  ]);
});

Deno.test("parseCodexApproval() reads only a dialog at the bottom, and an unknown title as kind unknown", () => {
  // The same dialog with the live composer under it (scrollback): not current.
  assertEquals(parseCodexApproval(screen("real-0.169.0-07-command-approval") + IDLE_TAIL), null);
  // Every screen that is not an approval has none: idle, busy, trust, pickers, onboarding.
  const names = [...Deno.readDirSync(new URL("screens/", dir))].map((e) => e.name.replace(/\.txt$/, ""))
    .filter((n) => n.startsWith("codex-") || n.startsWith("real-0.169.0-"));
  for (const name of names) {
    const approval = classifyCodexScreen(screen(name));
    const expected = approval.kind === "blocked" && approval.reason === "approval_required";
    assertEquals(parseCodexApproval(screen(name)) !== null, expected, name);
  }
  // Options and an approval footer under a title the adapter does not know: kind unknown, text kept.
  const other = screen("real-0.169.0-07-command-approval").replace(
    "Would you like to run the following command?",
    "Do you want to allow network access to example.com?",
  );
  const d = parseCodexApproval(other)!;
  assertEquals(d.kind, "unknown");
  assertEquals(d.text[0], "Do you want to allow network access to example.com?");
  // Options numbered out of order are not a dialog aiterm reads.
  assertEquals(parseCodexApproval(screen("real-0.169.0-07-command-approval").replace("  2. No,", "  3. No,")), null);
});
