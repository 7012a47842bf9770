import { assert, assertEquals, assertMatch } from "../../tests/helpers/assert.ts";
import type { ApprovalDialog } from "../../harnesses/mod.ts";
import { approvalDigest } from "./approval.ts";

const dialog: ApprovalDialog = {
  kind: "command",
  text: ["Would you like to run the following command?", "$ echo TOOL_OK"],
  choices: [
    { id: "approve_once", label: "Yes, proceed", singleShot: true, key: "1" },
    { id: "deny", label: "No, and tell Codex what to do differently", singleShot: true, key: "2" },
  ],
  selected: 0,
};

Deno.test("approvalDigest() binds the launch, the turn, the text and the choices, not the selection", async () => {
  const d = await approvalDigest("launch-a", 3, dialog);
  assertMatch(d, /^sha256:[0-9a-f]{64}$/);
  assertEquals(await approvalDigest("launch-a", 3, { ...dialog, selected: 1 }), d);
  // Rewrapped text (another terminal width) is the same text.
  const rewrapped = { ...dialog, text: ["Would you like to run the", "following command?", "$ echo  TOOL_OK"] };
  assertEquals(await approvalDigest("launch-a", 3, rewrapped), d);
  const others = [
    await approvalDigest("launch-b", 3, dialog),
    await approvalDigest("launch-a", 4, dialog),
    await approvalDigest("launch-a", 3, { ...dialog, text: [dialog.text[0]!, "$ rm -rf build"] }),
    await approvalDigest("launch-a", 3, { ...dialog, kind: "mcp_tool" }),
    await approvalDigest("launch-a", 3, { ...dialog, choices: dialog.choices.slice(0, 1) }),
    await approvalDigest("launch-a", 3, {
      ...dialog,
      choices: [{ ...dialog.choices[0]!, singleShot: false }, dialog.choices[1]!],
    }),
  ];
  for (const o of others) assert(o !== d, "a different dialog has the same digest");
  assertEquals(new Set(others).size, others.length);
});
