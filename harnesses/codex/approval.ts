/** The Codex CLI's approval dialogs (agent_approval). */
import { approvalDialog, lineAt, optionsAboveFooter, screenLines } from "../common/mod.ts";
import type { ApprovalDialog, ApprovalKind } from "../common/mod.ts";

/** Footers of Codex's approval views: command and edit approvals (0.169.0), the MCP tool approval (0.171.0). */
const APPROVAL_FOOTER = /^\s*(?:Press enter to confirm or esc to cancel|enter to submit \| esc to cancel)\s*$/;
/** Titles of Codex's approval views and what each one asks about. */
const APPROVAL_TITLES: [RegExp, ApprovalKind][] = [
  [/^Would you like to run the following command\?/, "command"],
  [/^Allow the .+ MCP server to run tool\b/, "mcp_tool"],
  [/^Would you like to make the following edits\?/, "file_edit"],
];
/** Option labels → choice ids. Anything remembered (session, prefix rule, always) is never single-shot. */
const CODEX_CHOICES: [RegExp, string][] = [
  [/^(?:Yes, proceed|Allow)$/, "approve_once"],
  [/for this session\b/i, "approve_session"],
  [/^Always allow\b|don't ask again/i, "approve_always"],
  [/^(?:No\b|Cancel$)/, "deny"],
];
/** A transcript cell (`• Running …`, `✔ You approved …`) in column 0: never part of a dialog. */
const HISTORY_CELL = /^[•◦✔✗■›]/;

/**
 * The approval dialog that is the live bottom of a Codex screen: its footer is the last line, the
 * numbered options sit right above it, and its title (the question) above those. A dialog left in
 * scrollback has something under its footer and is not read.
 */
export function parseCodexApproval(screen: string): ApprovalDialog | null {
  const lines = screenLines(screen);
  const options = optionsAboveFooter(lines, APPROVAL_FOOTER, "›");
  if (!options) return null;
  const first = options[0]!.line;
  let top = -1;
  let kind: ApprovalKind = "unknown";
  for (let i = first - 1; i >= 0 && i >= first - 40; i--) {
    if (HISTORY_CELL.test(lineAt(lines, i))) break;
    const title = APPROVAL_TITLES.find(([re]) => re.test(lineAt(lines, i).trim()));
    if (title) {
      [top, kind] = [i, title[1]];
      break;
    }
  }
  if (top < 0) {
    // No known title: the text is what lies between the last transcript cell and the options.
    top = first;
    while (top > 0 && top > first - 15 && !HISTORY_CELL.test(lineAt(lines, top - 1))) top--;
  }
  const text = lines.slice(top, first).map((l) => l.trim()).filter((l) => l !== "");
  return approvalDialog(kind, text, options, CODEX_CHOICES);
}
