/**
 * The one interface between aiterm and a terminal multiplexer. tmux implements it on POSIX
 * (platform/tmux/tmux.ts); psmux will implement it on Windows. Nothing above platform/ builds a
 * multiplexer argv or knows which one is in use, except through `kind`.
 */

/** One live session as the multiplexer reports it. */
export interface MuxSession {
  /** The session name (our session id, or whatever a human named it). */
  name: string;
  /** PID of the pane's first process (the shell we started). */
  panePid: number;
  /** Name of the pane's foreground process as the multiplexer sees it. */
  currentCommand: string;
  /** Number of human clients attached. */
  attachedClients: number;
  width: number;
  height: number;
  /** Creation time, seconds since the epoch. */
  createdAt: number;
  /** The pane's process has exited but the pane is kept (remain-on-exit). */
  paneDead: boolean;
  /** The pane's tty device, e.g. /dev/pts/3. */
  tty: string;
  /** Whether the pane's output is piped into its sink (absent when the multiplexer does not say). */
  piped?: boolean;
  /**
   * The pane shows its alternate screen (a full-screen program: vim, less, man; tmux `#{alternate_on}`);
   * absent when the multiplexer does not say.
   */
  alternateOn?: boolean;
}

/** What `newSession` starts. */
export interface NewSessionSpec {
  name: string;
  cwd: string;
  /** argv of the program to run in the pane (the shell). */
  argv: string[];
  /**
   * The environment of the process that opens the session: the pane's program starts from it, not from the
   * environment the multiplexer's server inherited from whichever process started it (ADR 0033). The
   * backend keeps its own variables (TERM, TMUX, TMUX_PANE, …) and skips names a shell cannot export.
   * psmux: not applied yet (its panes start from the psmux server's environment; see platform/psmux.ts).
   */
  baseEnv: Record<string, string>;
  /**
   * Variables set for the pane's program on top of `baseEnv` (aiterm's own and the caller's `env_vars`).
   * The backend decides how they reach it; no value may appear in any process's argv (ADR 0014).
   */
  env: Record<string, string>;
  /** An owner-only directory (the session's) where the backend may write the session's launch files. */
  privateDir: string;
  width: number;
  height: number;
  /** A shell command line (POSIX sh) that receives the pane's output on stdin from the first byte. */
  outputSink: string;
  /** Keep the pane (dead, with its last screen) after the program exits, until the session is killed. */
  keepOnExit?: boolean;
}

/** What {@link Multiplexer.newSession} observed of the new pane. */
export interface NewSessionResult {
  /**
   * The directory the pane's program started in, read from the pane itself (tmux: the launcher's `pwd -P`
   * after it entered `cwd`, so symbolic links are resolved); null when the backend cannot read it (psmux).
   */
  cwd: string | null;
}

/** How text reaches the pane. */
export interface PasteOptions {
  /** Deliver bytes exactly (no LF→CR translation). */
  exact?: boolean;
  /** Wrap in bracketed-paste markers when the program asked for them (one paste, not chunks). */
  bracketed?: boolean;
  /** Keys pressed right after the text, in the same multiplexer round trip (e.g. `Enter`). */
  keysAfter?: string[];
}

/** What {@link Multiplexer.pasteText} types: text (as UTF-8), or exact bytes. */
export type PasteData = string | Uint8Array;

/** Whether one live pane's output is piped into its sink (the log writer is attached). */
export interface PipeState {
  name: string;
  piped: boolean;
}

/** The multiplexer backend. Every method targets a session by exact name. */
/** What {@link Multiplexer.pasteIfReady} did. */
export type PasteIfReady = "typed" | "not_ready" | "unavailable";

export interface Multiplexer {
  readonly kind: "tmux" | "psmux";
  /** Checks the binary exists and is new enough; throws TMUX_NOT_FOUND / TMUX_TOO_OLD. */
  ensureAvailable(): Promise<{ version: string }>;
  /** The binary's version, or null when it is missing. Never throws. */
  probeVersion(): Promise<string | null>;
  /**
   * Creates the session and returns once its program is starting in `spec.cwd`.
   * @throws {AppError} CWD_UNUSABLE (the directory could not be entered: nothing is left open), TMUX_*
   */
  newSession(spec: NewSessionSpec): Promise<NewSessionResult>;
  hasSession(name: string): Promise<boolean>;
  /** Kills the session; false when it did not exist. */
  killSession(name: string): Promise<boolean>;
  /** All sessions on our private server; an empty list when the server is not running. */
  listSessions(): Promise<MuxSession[]>;
  /**
   * Whether the private server answers (after re-creating a deleted socket of a live server of ours).
   * @throws {AppError} STATE_ROOT_UNSAFE when the socket is not ours
   */
  serverRunning(): Promise<boolean>;
  /** One session's pane facts in a single round trip; null when it does not exist. */
  paneInfo(name: string): Promise<MuxSession | null>;
  /**
   * Whether the session's pane output is piped into a sink right now; null when the session is missing or its pane is
   * dead. A sink that died stays "piped" until the multiplexer next writes to it (then it is closed).
   */
  pipeActive(name: string): Promise<boolean | null>;
  /** {@link pipeActive} for every live pane on the private server in one round trip; empty when no server runs. */
  pipeStates(): Promise<PipeState[]>;
  /** Pipes the pane's output into `sink` (the {@link NewSessionSpec.outputSink} form), closing any pipe it had. */
  attachOutputSink(name: string, sink: string): Promise<void>;
  /**
   * Types `text` (a string is typed as UTF-8; bytes exactly as given), whole and in order, then `keysAfter`.
   * The backend picks the round trips: tmux loads it all as one buffer in one invocation; psmux cuts it into
   * pieces that never split a character and pastes them one by one. Scratch files never outlive the call.
   */
  pasteText(name: string, text: PasteData, options?: PasteOptions): Promise<void>;
  /**
   * {@link pasteText} in the same round trip as the check a send makes first: the text is typed only when
   * the session's pane is alive and its output pipe (the log writer) is attached, else nothing is typed
   * (`not_ready`: ask {@link paneInfo} and decide again). `unavailable`: nothing was tried (this transport
   * cannot do it in one round trip; use paneInfo and pasteText). Optional: backends without it never answer.
   */
  pasteIfReady?(name: string, text: PasteData, options?: PasteOptions): Promise<PasteIfReady>;
  /** Sends named keys (multiplexer key names such as `C-c`, `Enter`). */
  sendKeys(name: string, keys: string[]): Promise<void>;
  /**
   * {@link sendKeys} in the same round trip as the check a key press makes first: the keys are sent only when the
   * session's pane exists and is alive, else nothing is sent (`not_ready`: ask {@link paneInfo} for why).
   * `unavailable`: nothing was tried (as for {@link pasteIfReady}). Optional, like pasteIfReady.
   */
  sendKeysIfAlive?(name: string, keys: string[]): Promise<PasteIfReady>;
  /** The rendered screen, plus `scrollback` lines above it. */
  capture(name: string, options?: { scrollback?: number; escapes?: boolean }): Promise<string>;
  /** argv a human runs to attach to the session and watch it. */
  attachCommand(name: string): string[];
  /** Kills the whole private server (tests and explicit teardown only). */
  killServer(): Promise<void>;
}
