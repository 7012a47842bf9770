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

/** A key step typed into the TUI: literal text, a named key (tmux key name), or a pause. */
export type KeyStep = { text: string } | { key: string } | { pauseMs: number };

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
  /** Builds the launch argv and environment. Pure. */
  buildLaunch(options: LaunchOptions): LaunchSpec;
  /** Classifies a captured screen (tmux capture-pane text, no escapes). Pure. */
  classifyScreen(screen: string): ScreenState;
  /**
   * Keys that answer a start-up dialog aiterm may answer: the trust dialogs when `trustProject`, the
   * theme picker always. Null when the screen shows nothing aiterm may answer. Pure.
   */
  answerStartupDialog(screen: string, trustProject: boolean): KeyStep[] | null;
  /** How a prompt is submitted: paste as one bracketed paste, then these steps (e.g. a pause and Enter). */
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
  transcript: TranscriptRules;
}
