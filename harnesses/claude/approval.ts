/** Claude Code's tool permission dialog (agent_approval). */
import { approvalDialog, findUp, lineAt, optionsAboveFooter, prevNonEmpty, screenLines } from "../common/mod.ts";
import type { ApprovalDialog, ApprovalKind } from "../common/mod.ts";

/** The permission dialog's footer (2.1.197 and 2.1.328). */
const APPROVAL_FOOTER = /^\s*Esc to cancel(?: · Tab to amend)?\s*$/;
/** The permission question right above the options. */
const APPROVAL_QUESTION = /^Do you want to (?:proceed|make this edit|create|overwrite|allow)\b.*\?$/;
/** Option labels → choice ids. Anything remembered (this session, don't ask again) is never single-shot. */
const CLAUDE_CHOICES: [RegExp, string][] = [
  [/^Yes$/, "approve_once"],
  [/\b(?:during|for) this session\b/i, "approve_session"],
  [/don't ask again|\balways\b/i, "approve_always"],
  [/^No\b/, "deny"],
];

/**
 * The permission dialog that is the live bottom of a Claude Code screen: the footer is the last line,
 * the numbered options and the question sit right above it, and the dialog's text starts under the
 * rule that opens it (`Bash command` / `Tool use … (MCP)` / a file edit). Pure.
 */
export function parseClaudeApproval(screen: string): ApprovalDialog | null {
  const lines = screenLines(screen);
  const options = optionsAboveFooter(lines, APPROVAL_FOOTER, "❯");
  if (!options) return null;
  const question = prevNonEmpty(lines, options[0]!.line - 1);
  if (question < 0 || !APPROVAL_QUESTION.test(lineAt(lines, question).trim())) return null;
  const rule = findUp(lines, question - 1, question - 40, /^\s*─{10,}\s*$/);
  const text = lines.slice(rule + 1, question + 1).map((l) => l.trim())
    .filter((l) => l !== "" && !/^╌+$/.test(l));
  const q = lineAt(lines, question);
  const kind: ApprovalKind = text.some((l) => /\(MCP\)$/.test(l))
    ? "mcp_tool"
    : text[0] === "Bash command"
    ? "command"
    : /^(?:Edit|Create|Write|Update) file\b/.test(text[0] ?? "") || /make this edit|create|overwrite/.test(q)
    ? "file_edit"
    : "unknown";
  return approvalDialog(kind, text, options, CLAUDE_CHOICES);
}
