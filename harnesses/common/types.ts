/**
 * The contract every harness module implements. Core code (lib/agent/) asks the harness; it never
 * matches a vendor's screen text or reads a vendor's file format itself. Everything here is pure
 * (no I/O) except where a member says it reads files or runs the CLI.
 */

/** Harness ids, the public `harness` enum. */
export const HARNESS_IDS = ["claude-code", "codex-cli", "grok-cli", "cursor-cli"] as const;
/** One of {@link HARNESS_IDS}. */
export type HarnessId = typeof HARNESS_IDS[number];

/** Where a harness's CLI binary is looked for, in order. */
export interface BinarySpec {
  /** Environment variable that overrides everything (e.g. `CLAUDE_BIN`). */
  envOverride: string;
  /** Vendor standard install locations, relative to HOME (`~/…`) or absolute. */
  standardPaths: string[];
  /** Names looked up on PATH. */
  pathNames: string[];
}

/** Why a harness cannot take input right now. */
export type BlockedReason =
  | "trust_required" // the workspace-trust dialog (answered only with trust_project)
  | "hooks_review_required" // Codex "Hooks need review" (answered only with trust_project)
  | "theme_picker" // Claude's first-run theme picker (confirmed with its selected default)
  | "vendor_onboarding_required" // a sign-in / login-method screen: the user must finish onboarding
  | "login_required" // the CLI says it is not authenticated
  | "api_key_approval" // Claude asks whether to use ANTHROPIC_API_KEY
  | "approval_required" // a tool/command permission prompt inside a turn
  | "service_unreachable" // the CLI printed that it cannot reach its service and exited or will exit
  | "rate_limited" // a usage-limit card or message
  | "unknown_dialog"; // something modal we do not recognise

/** What the visible screen says about the harness. */
export type ScreenState =
  | { kind: "starting" } // nothing recognisable yet (banner drawing, loading)
  | { kind: "ready" } // idle composer that accepts input
  | { kind: "busy" } // a turn is running (the vendor's in-progress display)
  | { kind: "blocked"; reason: BlockedReason; detail: string | null }
  | { kind: "exited"; detail: string | null }; // the CLI has exited (shell prompt or exit text after the TUI)

/**
 * A key step typed into the TUI: literal text, a named key (tmux key name), a pause, or a wait on the
 * screen: `shownMs` waits until the composer shows the text typed just before it (the prompt's paste, or
 * the last text step) — at most that many ms, then the steps go on — so the key after it is pressed once
 * the text has arrived, not after a guessed pause.
 */
export type KeyStep = { text: string } | { key: string } | { pauseMs: number } | { shownMs: number };

/** Inputs of {@link HarnessAdapter.buildLaunch}. */
export interface LaunchOptions {
  /** Absolute path of the CLI binary (resolved by the registry). */
  bin: string;
  /** Real path of the working directory. */
  cwd: string;
  model: string | null;
  reasoningEffort: string | null;
  /** `"read-only"` or a free-form declaration; null when not given. */
  writeScope: string | null;
  /** Fast mode requested (`true`) or explicitly refused (`false`); null = not specified. */
  fast: boolean | null;
  /** Image paths attached to the first prompt (absolute, validated). */
  images: string[];
  /** A fresh UUID the harness may pin as its session id (Claude `--session-id`, Grok `-s`). */
  sessionUuid: string;
  /**
   * The sub-agent notice (who launched this agent, lineage, delegation), for a harness that has a
   * system-prompt channel on its command line; null when there is none to give.
   */
  notice: string | null;
}

/** What {@link HarnessAdapter.buildLaunch} produces. */
export interface LaunchSpec {
  argv: string[];
  /** Extra environment for the CLI (on top of the user's environment and aiterm's lineage variables). */
  env: Record<string, string>;
  /** How write_scope is enforced; null when write_scope was not given. */
  writeScopeEnforcement: "enforced_read_only" | "declaration_only_unsupported" | null;
  /** The session id the CLI will use, when the launch pins one. */
  pinnedSessionId: string | null;
  /**
   * The system-prompt channel that carries `notice` (`append_system_prompt`, `developer_instructions`,
   * `rules`); null when the harness has none, and the notice is typed before the first prompt instead.
   */
  noticeChannel: string | null;
  /**
   * How `fast` is carried: a launch option whose effect the ready screen confirms (`launch_option`,
   * see {@link HarnessAdapter.fastShown}), the model's fast variant id (`model_variant`); null when
   * `fast` is not true or the harness has no fast mode.
   */
  fastBy: "launch_option" | "model_variant" | null;
}

/** One turn as recorded in the harness's own transcript. */
export interface TranscriptTurn {
  /** The vendor's turn id (Codex turn_id, Claude promptId, Grok prompt index). */
  turnId: string;
  /** 0-based ordinal of the turn within the transcript (the event cursor counts these). */
  index: number;
  /** The prompt text as recorded, when available. */
  prompt: string | null;
  /** `running` until the vendor's end-of-turn record. */
  status: "running" | "done" | "error" | "interrupted";
  /** The final answer text of the turn (done only). */
  answer: string | null;
  /** The vendor's error text (error only). */
  error: string | null;
  /**
   * Steers the transcript shows joined into this turn (Grok "send now" seams merged into it); absent when
   * the vendor's records do not say. Dispatch confirms a steer by this count growing.
   */
  steers?: number;
}

/** Where a harness writes its transcript, and how to read turns from it. */
export interface TranscriptRules {
  /**
   * Candidate transcript files for a launch, newest first (reads directories only).
   * `since` (ms epoch) excludes files last written before the launch started.
   */
  locate(ctx: TranscriptContext): Promise<string[]>;
  /** Parses a whole transcript (JSONL text) into turns, in order. Pure; tolerant of a torn last line. */
  parseTurns(text: string): TranscriptTurn[];
  /**
   * A fresh incremental parser: the records of the transcript pushed in file order give, after any
   * push, the turns `parseTurns` gives for the text so far. It keeps its state between pushes, so a
   * reader that reads only new bytes (lib/agent/transcript_reader.ts) never parses a record twice.
   */
  parser(): TurnParser;
}

/** An incremental transcript parser (see {@link TranscriptRules.parser}). Pure. */
export interface TurnParser {
  /** Takes the next JSON object record of the transcript (one parsed JSONL line). */
  push(record: Record<string, unknown>): void;
  /** The turns so far. Later pushes may change these objects: copy them to keep a view. */
  turns(): TranscriptTurn[];
}

/** Facts a transcript locator may use. */
export interface TranscriptContext {
  cwd: string;
  env: Record<string, string | undefined>;
  since: number;
  pinnedSessionId: string | null;
}

/** One model of a harness's live catalog. */
export interface CatalogModel {
  id: string;
  displayName: string | null;
  efforts: string[];
  defaultEffort: string | null;
  hidden: boolean;
  /** The model has a fast tier. */
  fast: boolean;
  /** The full model id an alias stands for (Claude `opus` → `claude-opus-5-5`), when the CLI says. */
  resolvedModel?: string | null;
}

/** A harness's live model catalog. */
export interface ModelCatalog {
  source: string;
  defaultModel: string | null;
  models: CatalogModel[];
}

/** A harness adapter. One module per harness under harnesses/. */
export interface HarnessAdapter {
  id: HarnessId;
  /** The vendor name used in the legacy `provider` field. */
  provider: "claude" | "codex" | "grok" | "cursor";
  binary: BinarySpec;
  /** Reasoning efforts the CLI accepts on its command line; null when they depend on the model catalog. */
  efforts: readonly string[] | null;
  /** Whether the CLI has a read-only mode aiterm can enforce write_scope "read-only" with. */
  readOnlyMode: boolean;
  /** reasoning_effort is only accepted together with an explicit model (Cursor). */
  effortRequiresModel?: boolean;
  /** A prompt-less launch with session_name may carry launch_operation_id and be replayed (lib/agent/launch_replay.ts). */
  launchReplay?: boolean;
  /** Builds the launch argv and environment. Pure. */
  buildLaunch(options: LaunchOptions): LaunchSpec;
  /** Classifies a captured screen (tmux capture-pane text, no escapes). Pure. */
  classifyScreen(screen: string): ScreenState;
  /**
   * Keys that answer a start-up dialog aiterm may answer: the trust dialogs when `trustProject`, the
   * theme picker always. Null when the screen shows nothing aiterm may answer. Pure.
   */
  answerStartupDialog(screen: string, trustProject: boolean): KeyStep[] | null;
  /**
   * How a prompt is submitted: paste as one bracketed paste, then these steps (e.g. a wait until the
   * composer shows the text, then Enter).
   */
  submitSteps: KeyStep[];
  /**
   * Steps pressed after a steer's paste and submit so the text joins the running turn instead of
   * waiting in a queue (Grok "send now", Cursor "enter steer"); absent when submit already steers.
   */
  steerSteps?: KeyStep[];
  /** True when the composer still holds (a prefix of) `text` after submitting (submit residue). Pure. */
  composerHolds(screen: string, text: string): boolean;
  /** Reads the live model catalog by running the CLI (no turn is sent). */
  modelCatalog?(bin: string, env: Record<string, string>): Promise<ModelCatalog>;
  /**
   * Whether a ready screen shows the seat in fast mode (true), at normal speed (false), or does not say
   * (null). Present for harnesses whose fast mode is a launch option ({@link LaunchSpec.fastBy}). Pure.
   */
  fastShown?(screen: string): boolean | null;
  // ── Steering checks, the usage-limit card and the sandbox refusal (Grok, Cursor) ──
  /**
   * Where a steer's `text` is after its submit (adapters with `steerSteps`): still in the composer, waiting
   * first in line in the CLI's queue / follow-ups (so `steerSteps` move it into the running turn), queued
   * behind other text, already joined to the running turn, or not seen anywhere. Pure.
   */
  steerPlace?(screen: string, text: string): "composer" | "queued" | "queued_behind" | "joined" | "unseen";
  /** The CLI's usage-limit card, which a normal dispatch may dismiss once after a turn that ended in error. */
  rateLimitCard?: {
    /** Keys that dismiss the card when it is the current bottom of the screen; null when it is not shown. Pure. */
    dismiss(screen: string): KeyStep[] | null;
    /** The pane_input_recovery entry reported after dismissing it. */
    recovery: "grok_rate_limit_dialog_dismissed";
    blockedCode: "GROK_RATE_LIMIT_RECOVERY_BLOCKED";
    failedCode: "GROK_RATE_LIMIT_RECOVERY_FAILED";
  };
  /** The CLI refused to start its sandbox (write_scope read-only): the cause it printed, or null. Pure. */
  sandboxRefusal?: { code: "GROK_SANDBOX_STARTUP_FAILED"; cause(screen: string): string | null };
  // ── end ──
  // ── Approval dialogs and in-place model/effort changes (agent_approval, agent_configure) ──
  /** The tool/command approval dialog that is the live bottom of the screen, or null (scrollback never counts). Pure. */
  parseApproval?(screen: string): ApprovalDialog | null;
  /** The live composer's text ("" when empty), or null when no composer is visible. Pure. */
  composerText?(screen: string): string | null;
  /** How the CLI changes model and effort inside a running session; absent when it has no command for it. */
  configure?: ConfigureRules;
  // ── end (approval/configure) ──
  transcript: TranscriptRules;
}

// ── Approval dialogs and in-place configuration (agent_approval, agent_configure) ──

/** What an approval dialog asks about. */
export type ApprovalKind = "command" | "mcp_tool" | "file_edit" | "unknown";

/**
 * One choice of an approval dialog. `id` is `approve_once`, `approve_session`, `approve_always`, `deny`, or
 * `other_<n>` for a label the harness does not know. Only `singleShot` choices (this one request, nothing
 * remembered) may ever be typed by aiterm.
 */
export interface ApprovalChoice {
  id: string;
  /** The label as shown, without its number and key hint. */
  label: string;
  singleShot: boolean;
  /** The tmux key that picks it directly (the option's digit). */
  key: string;
}

/** An approval dialog read from the screen. */
export interface ApprovalDialog {
  kind: ApprovalKind;
  /** The dialog's text lines (title, question, command or tool call), trimmed, blank lines dropped. */
  text: string[];
  choices: ApprovalChoice[];
  /** Index into `choices` of the option the selection marker is on; null when none is marked. */
  selected: number | null;
}

/** What agent_configure asks a harness to apply. */
export interface ConfigureGoal {
  /** Catalog id of the new model; null keeps the current one. */
  model: string | null;
  /** The model's display name in the catalog (pickers that list names, not ids); null when unknown. */
  modelLabel: string | null;
  /** The effort to apply; null keeps what the CLI selects. */
  effort: string | null;
  /** The effort in use as aiterm recorded it (a picker that always picks one keeps it when offered). */
  currentEffort: string | null;
}

/** A stage's reading of the screen after its keys. */
export type ConfigureVerdict =
  | { kind: "wait" } // the keys are being handled: look again, press nothing
  | { kind: "again" } // the same view still needs keys: call keys(screen) once more
  | {
    kind: "done";
    /** Model and effort now in use: absent when this stage does not say, null for the CLI's default. */
    model?: string | null;
    effort?: string | null;
    /** The CLI also saved the choice as the user's default (true), said it is for this session only (false). */
    persistedDefault: boolean | null;
    /** The CLI's confirmation line. */
    message: string;
  }
  | { kind: "next" } // this stage is over without a confirmation of its own; go on with the next one
  | { kind: "failed"; message: string }; // the CLI refused; message is its own text

/**
 * One step of an in-place change: keys for the current screen, then what the screen must show. Screens
 * given to a stage include some scrollback above the visible part.
 */
export interface ConfigureStage {
  name: string;
  /** Keys to press on `screen`; null when the screen is not what this stage expects. Pure. */
  keys(screen: string): KeyStep[] | null;
  /** Reads the screen after the keys; `before` is the screen just before the stage's first keys. Pure. */
  check(screen: string, before: string): ConfigureVerdict;
}

/** How a harness changes model and effort in a running session. */
export interface ConfigureRules {
  /** Effort in place: supported, only together with a model (Cursor), or not at all. */
  effort: "supported" | "requires_model" | "unsupported";
  /** Model in place. */
  model: boolean;
  /** The stages that apply `goal`, in order. Pure. */
  stages(goal: ConfigureGoal): ConfigureStage[];
  /** Keys that back out of a picker or confirmation this flow opened; null when none is open. Pure. */
  leave(screen: string): KeyStep[] | null;
}
