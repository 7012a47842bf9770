/**
 * `agent_approval`: read the approval dialog an agent is waiting on (a command, MCP tool or file edit the
 * harness asks about) and answer it once. The dialog is read by the harness (`parseApproval`), never
 * here. A digest binds what the caller saw to this launch; `respond` looks again under the send lock and
 * types one key only when the dialog is still there, unchanged, of a known kind, and offers the chosen
 * single-shot choice. Anything else is `blocked` with its reason, and nothing is typed.
 */
import { AppError } from "../../base/errors.ts";
import { waitUntil } from "../../base/wait.ts";
import type { ApprovalDialog, HarnessAdapter, ScreenState } from "../../harnesses/mod.ts";
import type { AgentRecord } from "./record.ts";
import { type AgentDeps, AgentSession } from "./session.ts";

/** Input of {@link runApproval} (the agent_approval schema). */
export interface ApprovalInput {
  action: "inspect" | "respond";
  session_id: string;
  approval_choice?: string | null | undefined;
  observed_prompt_digest?: string | null | undefined;
  generation?: string | null | undefined;
}

/** One choice as reported to the caller. */
export interface ApprovalChoiceOut {
  id: string;
  label: string;
  single_shot: boolean;
  key: string;
}

/** The result (aiterm.agent-approval-result.v1). */
export interface ApprovalResult {
  schema: "aiterm.agent-approval-result.v1";
  action: "inspect" | "respond";
  /**
   * approval_required: a dialog is shown (inspect); none: no dialog (inspect); submitted: the key was
   * typed and the dialog went away; submitted_unconfirmed: the key was typed but the same dialog is still
   * shown; blocked: nothing was typed (reason says why).
   */
  status: "approval_required" | "none" | "submitted" | "submitted_unconfirmed" | "blocked";
  reason: string;
  session_id: string;
  harness: string;
  launch_id: string;
  kind: ApprovalDialog["kind"] | null;
  text: string | null;
  choices: ApprovalChoiceOut[];
  digest: string | null;
  selected_choice: string | null;
  typed: boolean;
  /** The agent's state after a respond that typed (ready, busy, blocked:<reason>, …); null otherwise. */
  after: string | null;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const CHOICE = /^[a-z][a-z0-9_]{0,31}$/;

/**
 * The dialog digest: sha256 over the launch id, the turn the dialog belongs to (the count of turns in the
 * harness's transcript), the kind, the squashed text and the choices; not the selection marker, so moving
 * it does not change the digest. The same request asked again in a later turn has another digest.
 */
export async function approvalDigest(launchId: string, turn: number, dialog: ApprovalDialog): Promise<string> {
  const canonical = JSON.stringify([
    "aiterm.approval.v1",
    launchId,
    turn,
    dialog.kind,
    dialog.text.join(" ").replace(/\s+/g, " ").trim(),
    dialog.choices.map((c) => [c.id, c.label, c.singleShot]),
  ]);
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  return `sha256:${[...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function checkInput(input: ApprovalInput): void {
  const choice = input.approval_choice ?? null;
  const digest = input.observed_prompt_digest ?? null;
  if (input.action === "inspect" && (choice !== null || digest !== null)) {
    throw new AppError(
      "INVALID_ARGUMENT",
      "Cannot inspect with approval_choice or observed_prompt_digest: inspect only reads",
      { data: { field: choice !== null ? "approval_choice" : "observed_prompt_digest" } },
    );
  }
  if (input.action !== "respond") return;
  if (choice === null || !CHOICE.test(choice)) {
    throw new AppError("INVALID_ARGUMENT", "Cannot respond without an approval_choice id (e.g. approve_once, deny)", {
      data: { field: "approval_choice" },
      suggestion: "inspect first and pass one of its single-shot choice ids",
    });
  }
  if (digest === null || !DIGEST.test(digest)) {
    throw new AppError("INVALID_ARGUMENT", "Cannot respond without observed_prompt_digest (sha256:<64 hex>)", {
      data: { field: "observed_prompt_digest" },
      suggestion: "pass the digest inspect returned for the dialog you decided on",
    });
  }
}

const stateText = (s: ScreenState): string => (s.kind === "blocked" ? `blocked:${s.reason}` : s.kind);

/** What the screen shows right now: the harness's state, its dialog and the dialog's digest. */
async function look(
  session: AgentSession,
  rec: AgentRecord,
): Promise<{ state: ScreenState; dialog: ApprovalDialog | null; digest: string | null }> {
  const adapter: HarnessAdapter = session.adapter;
  const screen = await session.input.screen();
  const state = adapter.classifyScreen(screen);
  const dialog = adapter.parseApproval?.(screen) ?? null;
  if (!dialog) return { state, dialog, digest: null };
  const turns = (await session.turns(rec)).turns.length;
  return { state, dialog, digest: await approvalDigest(rec.launch_id, turns, dialog) };
}

/**
 * Inspects or answers the agent's approval dialog (see module doc).
 * @throws {AppError} INVALID_ARGUMENT, SESSION_STALE, SESSION_NOT_FOUND, AGENT_SESSION_REQUIRED, SEND_LOCK_BUSY,
 *   SEND_LOCK_STALE
 */
export async function runApproval(input: ApprovalInput, deps: AgentDeps): Promise<ApprovalResult> {
  checkInput(input);
  const id = input.session_id;
  await deps.terminal.checkGeneration(id, input.generation);
  const session = await AgentSession.open(deps, id);
  const { rec, adapter } = session;
  const base = (
    status: ApprovalResult["status"],
    reason: string,
    seen: { dialog: ApprovalDialog | null; digest: string | null } = { dialog: null, digest: null },
  ): ApprovalResult => ({
    schema: "aiterm.agent-approval-result.v1",
    action: input.action,
    status,
    reason,
    session_id: id,
    harness: rec.harness,
    launch_id: rec.launch_id,
    kind: seen.dialog?.kind ?? null,
    text: seen.dialog ? seen.dialog.text.join("\n") : null,
    choices: (seen.dialog?.choices ?? []).map((c) => ({
      id: c.id,
      label: c.label,
      single_shot: c.singleShot,
      key: c.key,
    })),
    digest: seen.digest,
    selected_choice: null,
    typed: false,
    after: null,
  });
  if (!adapter.parseApproval) return base("blocked", "harness_unsupported");
  if (!(await session.alive())) return base("blocked", "harness_exited");

  if (input.action === "inspect") {
    const seen = await look(session, rec);
    if (seen.dialog) {
      return base("approval_required", seen.dialog.kind === "unknown" ? "unknown_dialog" : "dialog_shown", seen);
    }
    if (seen.state.kind === "blocked") {
      // Something modal the harness cannot read as an approval (or another kind of dialog).
      return base("blocked", seen.state.reason === "approval_required" ? "unrecognized_dialog" : seen.state.reason);
    }
    return base("none", "no_dialog");
  }

  const choiceId = input.approval_choice!;
  return await deps.terminal.withLock(id, async () => {
    const seen = await look(session, rec);
    const dialog = seen.dialog;
    if (!dialog) {
      const why = seen.state.kind === "blocked" && seen.state.reason !== "approval_required"
        ? seen.state.reason
        : seen.state.kind === "blocked"
        ? "unrecognized_dialog"
        : "no_dialog";
      return base("blocked", why);
    }
    if (seen.digest !== input.observed_prompt_digest) return base("blocked", "digest_changed", seen);
    if (dialog.kind === "unknown") return base("blocked", "unknown_dialog", seen);
    const choice = dialog.choices.find((c) => c.id === choiceId);
    if (!choice) return base("blocked", "choice_not_offered", seen);
    if (!choice.singleShot) return base("blocked", "choice_not_single_shot", seen);
    await session.input.key(choice.key);
    // Confirm: the dialog goes away (or another one, with another digest, takes its place).
    // A loaded machine can take seconds to redraw; the answer is typed once either way.
    const typedAt = Date.now();
    const index = dialog.choices.indexOf(choice);
    let confirmed = false;
    const gone = await waitUntil(async () => {
      const now = await look(session, rec);
      // A busy TUI may only move the highlight to the typed option; when the same dialog still shows
      // with exactly our choice highlighted, Enter confirms that choice (once).
      if (now.digest === seen.digest && !confirmed && Date.now() - typedAt > 2000 && now.dialog?.selected === index) {
        await session.input.key("Enter");
        confirmed = true;
      }
      return now;
    }, { timeoutMs: 10_000, intervalMs: 100, until: (now) => now.digest !== seen.digest });
    const now = gone.status === "done" ? gone.value : gone.last!;
    const done = now.digest !== seen.digest;
    return {
      ...base(done ? "submitted" : "submitted_unconfirmed", done ? "choice_submitted" : "dialog_still_shown", seen),
      selected_choice: choice.id,
      typed: true,
      after: stateText(now.state),
    };
  });
}
