/**
 * What a send types, decided from facts about the pane: a plain function, no I/O. The send pipeline
 * (./pipeline.ts) gathers the facts (remembered from an earlier send, or asked of the multiplexer and the
 * kernel), calls {@link planSend}, and does what the outcome says: type the plan, or gather more and plan again.
 *
 * The decisions, in order:
 * - remembered facts without the kernel's foreground carry an old current command: ask the multiplexer;
 * - a send for pty_open's shells only (`shellOnly`) to any other session: nothing is planned;
 * - which program reads the text: the session's own shell (the kernel's foreground is the pane process, or, where
 *   the kernel cannot say, the multiplexer's current command is a shell of the session's dialect), or another;
 * - mark or not: a sentinel only where a shell of a known dialect reads the line (./mark_target.ts), which may need
 *   the screen (a prompt host without a named dialect);
 * - script or direct: multi-line text at the session's own shell runs as one script; anything else arrives as
 *   given (the newline rule of README "Driving programs").
 */
import { AppError } from "../../../base/errors.ts";
import { dialectById, dialectForShell } from "../../../platform/mod.ts";
import type { MuxSession } from "../../../platform/mod.ts";
import type { SessionMeta } from "../files/session_meta.ts";
import { markDecision, type MarkDialect } from "./mark_target.ts";

/** What a send knows of a session's pane when it plans. */
export interface PaneFacts {
  /** The session's record; null for a session a person made on aiterm's server. */
  meta: SessionMeta | null;
  /** The pane as the multiplexer reported it (now, or when the facts were remembered). */
  live: MuxSession;
  /**
   * The terminal's foreground process as the kernel says (Linux); null where it cannot tell. `inRead`: one of its
   * threads is in a read call (the send then asks whether it reads a password; planning does not look at it).
   */
  foreground: { pid: number; name: string; inRead?: boolean } | null;
  /** The facts were remembered from an earlier send of this process (not asked of the multiplexer for this one). */
  remembered: boolean;
  /** The pane's screen, when it was read for this send (a mark into a prompt host looks at its prompt). */
  screen?: string | undefined;
}

/** What the caller asked for (see ./pipeline.ts SendInput). */
export interface PlanOptions {
  /** The text after sanitising (raw: as given). */
  text: string;
  raw: boolean;
  enter: boolean;
  mark: boolean | MarkDialect;
  /** Plan only for a session pty_open opened (the caller skipped its own look, remembering it as such). */
  shellOnly?: boolean | undefined;
  /** The sentinel's nonce, used when the send is marked. */
  nonce: string;
}

/** What a send types. */
export interface SendPlan {
  /** The text without trailing newlines (recorded as the last command). */
  body: string;
  /** What is typed. */
  payload: string;
  /** `script`: multi-line text wrapped for the shell; `typed`: as is; `raw`: exact bytes. */
  mode: "script" | "typed" | "raw";
  /** The sentinel's nonce, its dialect and the exact suffix typed; null when not marked. */
  nonce: string | null;
  markDialect: MarkDialect | null;
  suffix: string | null;
  /** The process a marked send is typed into (see LastSend.mark_process); null when unmarked or not known. */
  markPid: number | null;
  /** Typed at the session's own shell (not at a program it runs). */
  atOwnShell: boolean;
}

/** The outcome of {@link planSend}: a plan, or what to do before planning again. */
export type PlanOutcome =
  | { kind: "plan"; plan: SendPlan }
  /** Remembered facts cannot tell the foreground: ask the multiplexer, then plan again. */
  | { kind: "ask_again" }
  /** A mark into a prompt host depends on its prompt: read the screen, then plan again with it. */
  | { kind: "needs_screen" }
  /** `shellOnly`, and the session is not one pty_open opened: nothing is typed. */
  | { kind: "not_shell" };

/**
 * Plans a send from the pane's facts.
 * @throws {AppError} MARK_UNAVAILABLE (the program that reads the text is not a shell that can run a mark)
 */
export function planSend(facts: PaneFacts, options: PlanOptions): PlanOutcome {
  const { meta, live, foreground: fg } = facts;
  if (facts.remembered && !fg) return { kind: "ask_again" };
  if (options.shellOnly && meta?.kind !== "shell") return { kind: "not_shell" };
  const { text, raw, enter, mark } = options;
  const fgName = fg?.name ?? live.currentCommand;
  const atOwnShell = meta?.dialect != null &&
    (fg ? fg.pid === live.panePid : dialectForShell(live.currentCommand)?.id === meta.dialect);
  // The rule for newlines (README "Driving programs"): at the session's own shell the text is a command, so
  // trailing newlines are dropped (Enter submits it) and multi-line text runs as one script; to any other
  // program (a REPL, a nested shell, ssh) the text arrives exactly as given, blank lines included.
  const body = text.replace(/\n+$/, "");
  const plan: SendPlan = {
    body,
    payload: text,
    mode: raw ? "raw" : "typed",
    nonce: null,
    markDialect: null,
    suffix: null,
    markPid: null,
    atOwnShell,
  };
  if (mark !== false) {
    const decision = atOwnShell
      ? { ok: true as const, dialect: meta!.dialect!, how: "shell" as const }
      : markDecision(fgName, mark, facts.screen ?? null);
    if (!decision) return { kind: "needs_screen" };
    if (!decision.ok) {
      throw new AppError("MARK_UNAVAILABLE", `Cannot mark a send to ${fgName}: ${decision.reason}`, {
        data: { field: "mark", foreground: fgName },
        suggestion: decision.suggestion,
      });
    }
    if (atOwnShell && typeof mark === "string" && mark !== decision.dialect) {
      throw new AppError(
        "MARK_UNAVAILABLE",
        `Cannot mark a send to ${fgName}: the session's shell is ${decision.dialect}, not ${mark}`,
        { data: { field: "mark", foreground: fgName }, suggestion: "nothing was typed; use mark:true" },
      );
    }
    const dialect = dialectById(decision.dialect);
    plan.markDialect = decision.dialect;
    plan.nonce = options.nonce;
    plan.suffix = dialect.sentinelSuffix(options.nonce);
    plan.payload = (body.includes("\n") ? dialect.scriptLine(body) : body) + plan.suffix;
    plan.mode = body.includes("\n") ? "script" : "typed";
    plan.markPid = fg?.pid ?? (atOwnShell ? live.panePid : null);
  } else if (!raw && atOwnShell && body.includes("\n")) {
    plan.payload = dialectById(meta!.dialect!).scriptLine(body);
    plan.mode = "script";
  } else if (!raw && atOwnShell && enter && text.endsWith("\n")) {
    plan.payload = body;
  }
  return { kind: "plan", plan };
}
