/**
 * The notice a parent gets when the child turn it awaits stops on something the child cannot get past
 * by itself: what it waits on (from the harness's own screen rules and, for an approval, the dialog
 * `agent_approval` reads), the digest to answer with and the call to make, or, for what aiterm cannot
 * answer (a sign-in, a usage limit, a stopped process), what a person must do. Vendor-free: the
 * dialog comes parsed by the harness; the words are the same for every parent kind.
 */
import type { ChildBoundary } from "../../../state/mod.ts";

/** One choice of the dialog, as agent_approval reports it. */
export interface NoticeChoice {
  id: string;
  label: string;
  single_shot: boolean;
}

/** What a stuck child waits on right now (the evidence pty_observe uses). */
export interface StuckView {
  /** The blocked reason: approval_required, login_required, rate_limited, harness_stopped, … */
  reason: string;
  /** The approval dialog as agent_approval inspect reads it; null when there is none it can read. */
  dialog: { kind: string; text: string; choices: NoticeChoice[]; digest: string } | null;
  /** The command that attaches a terminal to the child (for a person), or null. */
  attach: string | null;
}

/** The episode key: the same reason and dialog digest is the same blocking episode. */
export function stuckKey(v: { reason: string; digest?: string | null; dialog?: { digest: string } | null }): string {
  return `${v.reason}|${v.dialog?.digest ?? v.digest ?? ""}`;
}

const ASKS: Record<string, string> = {
  command: "It asks to run a command:",
  mcp_tool: "It asks to call an MCP tool:",
  file_edit: "It asks to change a file:",
};

/** What a person must do for a state aiterm cannot answer. */
const PERSON: Record<string, string> = {
  login_required: "The CLI is not signed in (or its login expired). A person must sign in",
  vendor_onboarding_required: "The CLI shows its sign-in / onboarding screen. A person must finish it",
  rate_limited: "The CLI hit a usage limit. A person must wait for the limit to reset (or change plan or account)",
  service_unreachable: "The CLI cannot reach its service. A person must check the network or the service",
  trust_required: "The CLI asks whether to trust this folder. A person must decide",
  hooks_review_required: "The CLI asks for its hooks to be reviewed. A person must review them",
  api_key_approval: "The CLI asks whether to use the API key in its environment. A person must decide",
  theme_picker: "The CLI shows its first-run theme picker. A person must confirm it",
  harness_stopped: "The CLI process is stopped (SIGSTOP or Ctrl-Z). A person must resume it (fg, or kill -CONT)",
};

/** At most this many lines and characters of the dialog's text go into a notice (a long diff is cut). */
const MAX_LINES = 40;
const MAX_CHARS = 4000;

/** The dialog's text, indented (it is the child's, never an instruction line of the notice), cut when long. */
function dialogLines(text: string, sid: string): string[] {
  const all = text.split("\n");
  const out: string[] = [];
  let chars = 0;
  for (const l of all) {
    if (out.length >= MAX_LINES || chars + l.length > MAX_CHARS) break;
    out.push(`  ${l}`);
    chars += l.length + 1;
  }
  const left = all.length - out.length;
  if (left > 0) {
    out.push(`  (… ${left} more line(s): agent_approval(action:"inspect", session_id:${sid}) shows all)`);
  }
  return out;
}

/** The notice text (see module doc). The first line names the child, the turn and why it is stuck. */
export function noticeText(child: ChildBoundary, view: StuckView): string {
  const sid = JSON.stringify(child.session_id);
  const lines = [
    `[aiterm] child agent session ${sid} (${child.harness}), turn ${child.cursor}: blocked (${view.reason}); ` +
    "it waits and will not go on by itself",
  ];
  const where = view.attach ? ` in its terminal: ${view.attach}` : " in its terminal";
  const d = view.dialog;
  const shots = d ? d.choices.filter((c) => c.single_shot) : [];
  if (d && d.kind !== "unknown" && shots.length > 0) {
    lines.push(ASKS[d.kind] ?? "It asks:");
    lines.push(...dialogLines(d.text, sid));
    lines.push(`Choices: ${shots.map((c) => `${c.id} (${JSON.stringify(c.label)})`).join(", ")}`);
    const others = d.choices.filter((c) => !c.single_shot);
    if (others.length) {
      lines.push(
        `Not offered through aiterm (remembered beyond this request): ${
          others.map((c) => JSON.stringify(c.label)).join(", ")
        }`,
      );
    }
    const call = {
      action: "respond",
      session_id: child.session_id,
      approval_choice: `<${shots.map((c) => c.id).join("|")}>`,
      observed_prompt_digest: d.digest,
    };
    lines.push(`Answer with agent_approval ${JSON.stringify(call)} (pick one choice id).`);
    lines.push(`Or a person answers${where}.`);
  } else if (view.reason === "approval_required" || view.reason === "unknown_dialog") {
    lines.push(
      `aiterm cannot read this dialog as an approval: look with pty_read(session_id:${sid}, screen:true) ` +
        `and answer with pty_key, or a person answers${where}.`,
    );
  } else {
    lines.push(`${PERSON[view.reason] ?? "A person must look"}${where}. aiterm cannot answer this.`);
  }
  lines.push("When the child goes on, its answer still comes to you by itself, once; do not poll.");
  return lines.join("\n");
}
