/**
 * Every `AITERM_*` environment variable aiterm knows, in one place.
 *
 * - {@link KNOBS}: the knobs a user may set. Each program root (aiterm-mcp serve and its other
 *   subcommands, aiterm-wait) calls {@link loadConfig} once and passes the {@link Config} down. A value
 *   a knob does not accept is `CONFIG_INVALID: <variable> …` and the root exits 2 before doing
 *   anything: no knob falls back to its default silently. An empty value counts as unset.
 * - {@link CHILD_VARS}: the variables aiterm sets for the programs it starts (its sessions, ssh's
 *   askpass helper, its own tmux control client). A user does not set them; aiterm reads some back
 *   when it runs inside a session it started (lineage) or looks at another process ({@link childVar}).
 *
 * docs/config.md is generated from KNOBS (`deno run -A scripts/config_doc.ts`). This module and
 * base/ import nothing else of ours; tests/static/config_reads_test.ts keeps every other product file
 * from naming an `AITERM_` variable.
 */
import { AppError } from "./errors.ts";
import { setLogLevel } from "./log.ts";

/** Log levels, lowest first (base/log.ts). */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevelName = typeof LOG_LEVELS[number];

/** The settings a program root reads from the environment once. */
export interface Config {
  /** State root override; null: the OS default (platform/paths.ts). */
  stateDir: string | null;
  log: LogLevelName;
  tmuxBin: string | null;
  tmuxTransport: "control" | "cli";
  psmuxBin: string | null;
  pwshBin: string | null;
  gitBash: string | null;
  shellReadyTimeoutMs: number;
  logSegmentBytes: number;
  logKeepSegments: number;
  agentStartupTimeoutMs: number;
  sshConfig: string | null;
  /** `command:<absolute path>`, or null (no reporter). */
  errorReporter: string | null;
  /** The calling client's cut per tool call, in seconds; null: known from the client (harnesses/clients). */
  callLimitS: number | null;
  /** The largest result the calling client hands its model whole, in JSON bytes; null: known from the client. */
  resultLimitBytes: number | null;
  /** How long pty_send waits for what it typed on a terminal session by default, in seconds (0: not at all). */
  sendWaitS: number;
  /** "1": tools/list also lists, and the server serves, the deprecated tool aliases (ADR 0036). */
  legacyTools: "0" | "1";
}

/** How a knob's value is checked. */
export type KnobType = "path" | "command" | "enum" | "integer" | "reporter";

/** One user knob. */
export interface Knob<K extends keyof Config = keyof Config> {
  /** The environment variable. */
  name: string;
  /** Its field in {@link Config}. */
  key: K;
  type: KnobType;
  /** The value when unset, as the user would write it; null: none (the field is null). */
  default: string | null;
  /** What the default means when it is not a literal (docs). */
  defaultNote?: string;
  /** enum: the accepted values. */
  values?: readonly string[];
  /** integer: the accepted range. */
  min?: number;
  max?: number;
  /** One line: what it changes. */
  meaning: string;
  /** Only read on this OS (docs). */
  os?: "windows" | "posix";
}

const MAX_TIMEOUT_MS = 86_400_000;

/** Every knob a user may set, in the order docs/config.md lists them. */
export const KNOBS: readonly Knob[] = [
  {
    name: "AITERM_STATE_DIR",
    key: "stateDir",
    type: "path",
    default: null,
    defaultNote: "$XDG_STATE_HOME/aiterm-mcp, else ~/.local/state/aiterm-mcp (Windows: %LOCALAPPDATA%\\aiterm-mcp)",
    meaning: "state root: session logs, records, the tmux socket, deliveries, the error aggregate",
  },
  {
    name: "AITERM_LOG",
    key: "log",
    type: "enum",
    default: "info",
    values: LOG_LEVELS,
    meaning: "lowest level of the JSON diagnostics written to stderr",
  },
  {
    name: "AITERM_TMUX_BIN",
    key: "tmuxBin",
    type: "command",
    default: null,
    defaultNote: "tmux on PATH",
    meaning: "the tmux binary (a path, or a name looked up on PATH)",
    os: "posix",
  },
  {
    name: "AITERM_TMUX_TRANSPORT",
    key: "tmuxTransport",
    type: "enum",
    default: "control",
    values: ["control", "cli"],
    meaning: "control: one long-lived `tmux -C` client carries the commands; cli: one tmux process per command",
    os: "posix",
  },
  {
    name: "AITERM_PSMUX_BIN",
    key: "psmuxBin",
    type: "command",
    default: null,
    defaultNote: "psmux on PATH",
    meaning: "the psmux binary",
    os: "windows",
  },
  {
    name: "AITERM_PWSH_BIN",
    key: "pwshBin",
    type: "command",
    default: null,
    defaultNote: "pwsh.exe on PATH, then the standard install folders",
    meaning: "the PowerShell 7 binary; when set it is the only candidate",
    os: "windows",
  },
  {
    name: "AITERM_GIT_BASH",
    key: "gitBash",
    type: "path",
    default: null,
    defaultNote: "Git for Windows' bash.exe in its standard folders",
    meaning: "Git for Windows' bash, for harness internals that need a POSIX shell",
    os: "windows",
  },
  {
    name: "AITERM_SHELL_READY_TIMEOUT_MS",
    key: "shellReadyTimeoutMs",
    type: "integer",
    default: "15000",
    min: 1,
    max: MAX_TIMEOUT_MS,
    meaning: "how long pty_open waits for a new shell's first prompt, in milliseconds",
  },
  {
    name: "AITERM_LOG_SEGMENT_BYTES",
    key: "logSegmentBytes",
    type: "integer",
    default: String(4 * 1024 * 1024),
    min: 1,
    max: 2 ** 40,
    meaning: "size at which a session's output log starts a new segment file, in bytes",
  },
  {
    name: "AITERM_LOG_KEEP_SEGMENTS",
    key: "logKeepSegments",
    type: "integer",
    default: "8",
    min: 1,
    max: 1_000_000,
    meaning: "how many output-log segments each session keeps (older ones are deleted)",
  },
  {
    name: "AITERM_AGENT_STARTUP_TIMEOUT_MS",
    key: "agentStartupTimeoutMs",
    type: "integer",
    default: "60000",
    min: 1,
    max: MAX_TIMEOUT_MS,
    meaning: "how long a launch or a first send waits for an agent CLI to accept input, in milliseconds",
  },
  {
    name: "AITERM_SSH_CONFIG",
    key: "sshConfig",
    type: "path",
    default: null,
    meaning: "the ssh_config file remote connections use instead of ~/.ssh/config (`ssh -F`)",
  },
  {
    name: "AITERM_ERROR_REPORTER",
    key: "errorReporter",
    type: "reporter",
    default: null,
    meaning: "a program handed the runtime-error aggregate on stdin after each new occurrence",
  },
  {
    name: "AITERM_CALL_LIMIT_S",
    key: "callLimitS",
    type: "integer",
    default: null,
    defaultNote:
      "from the calling client: 120 for Claude Code (its background move), Codex's tool_timeout_sec (300), else 60",
    min: 5,
    max: 86_400,
    meaning:
      "the calling client's limit on one tool call, in seconds (set it when you changed MCP_TOOL_TIMEOUT or pass -c to Codex); waits stop safely under it",
  },
  {
    name: "AITERM_RESULT_LIMIT_BYTES",
    key: "resultLimitBytes",
    type: "integer",
    default: null,
    defaultNote: "from the calling client: about 65,000 for Claude Code, 32768 for Codex, else 1048576",
    min: 16_384,
    max: 1_048_576,
    meaning: "the largest result, in JSON bytes, a read returns before it pages (has_more, next_cursor)",
  },
  {
    name: "AITERM_SEND_WAIT_S",
    key: "sendWaitS",
    type: "integer",
    default: "30",
    min: 0,
    max: 86_400,
    meaning:
      "how long pty_send waits for the command it typed on a terminal session when the call names no timeout (0: return at once)",
  },
  {
    name: "AITERM_LEGACY_TOOLS",
    key: "legacyTools",
    type: "enum",
    default: "0",
    values: ["0", "1"],
    meaning: "1: also list and serve the deprecated aliases claude_agent, codex_agent, grok_agent and " +
      "claude_approval (setup writes it into each client's registration with --legacy-tools)",
  },
];

/**
 * Variables aiterm sets for the programs it starts, by role. Not user settings: KNOBS does not list
 * them and loadConfig ignores them.
 */
export const CHILD_VARS = {
  /** Every session aiterm opens: its session id. Read back as the parent of a launch made inside it. */
  sessionId: "AITERM_SESSION_ID",
  /** Agent sessions: the lineage of delegations (read back to extend it). */
  delegationDepth: "AITERM_DELEGATION_DEPTH",
  lineage: "AITERM_LINEAGE",
  parentSessionId: "AITERM_PARENT_SESSION_ID",
  agentRole: "AITERM_AGENT_ROLE",
  delegationAllowed: "AITERM_DELEGATION_ALLOWED",
  launchId: "AITERM_LAUNCH_ID",
  /** aiterm's own `tmux -C` client: `<pid> <start identity>` of the server that owns it. */
  controlOwner: "AITERM_CONTROL_OWNER",
  /** ssh's askpass helper: the passphrase (never written to disk). */
  sshAskpassSecret: "AITERM_SSH_ASKPASS_SECRET",
  /** The zsh integration: the user's own ZDOTDIR, and the mark of the session's top-level shell. */
  userZdotdir: "AITERM_USER_ZDOTDIR",
  shellTop: "AITERM_SHELL_TOP",
} as const;

/** A role of {@link CHILD_VARS}. */
export type ChildVar = keyof typeof CHILD_VARS;

/** One line per child variable: who gets it and what it holds (docs/config.md). */
export const CHILD_VAR_MEANINGS: Record<ChildVar, string> = {
  sessionId: "every session aiterm opens: its session id (a launch made inside it names it as the parent)",
  delegationDepth: "agent sessions: how many launches deep this agent is (1 for a top-level launch)",
  lineage: "agent sessions: the session ids from the first launch down to this one, joined with /",
  parentSessionId: "agent sessions: the session the launch was made from (empty at the top)",
  agentRole: "agent sessions: `subagent`",
  delegationAllowed: "agent sessions: `true` (the agent may hand work to further agents)",
  launchId: "agent sessions: the id of the launch that started the agent",
  controlOwner: "aiterm's own `tmux -C` client: `<pid> <start identity>` of the aiterm process that owns it",
  sshAskpassSecret: "ssh's askpass helper only: the key passphrase (memory only, never written to disk)",
  userZdotdir: "zsh sessions: the user's own ZDOTDIR, which aiterm's integration files load",
  shellTop: "zsh sessions: marks the session's own top-level shell (the shell unsets it as it starts)",
};

/** The prefix every aiterm variable starts with (a child that must not inherit them drops these). */
export const VAR_PREFIX = "AITERM_";

/** The value of child variable `role` in `env`, or undefined (an empty value is a value here). */
export function childVar(env: Record<string, string | undefined>, role: ChildVar): string | undefined {
  return env[CHILD_VARS[role]];
}

/** The knob for `key`. */
export function knob(key: keyof Config): Knob {
  return KNOBS.find((k) => k.key === key)!;
}

function refuse(k: Knob, value: string, why: string): AppError {
  return new AppError("CONFIG_INVALID", `${k.name}=${JSON.stringify(value)} is refused: ${why}`, {
    suggestion: `fix or unset ${k.name} (docs/config.md lists every knob)`,
    data: { variable: k.name },
  });
}

function isAbsolutePath(p: string): boolean {
  return p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith("\\\\");
}

function parseKnob(k: Knob, value: string): string | number {
  switch (k.type) {
    case "enum":
      if (!k.values!.includes(value)) throw refuse(k, value, `expected one of ${k.values!.join(", ")}`);
      return value;
    case "integer": {
      if (!/^[0-9]{1,16}$/.test(value)) throw refuse(k, value, "expected a whole number");
      const n = Number(value);
      if (n < k.min! || n > k.max!) throw refuse(k, value, `expected ${k.min} to ${k.max}`);
      return n;
    }
    case "reporter": {
      const path = value.startsWith("command:") ? value.slice("command:".length) : null;
      if (path === null || !isAbsolutePath(path)) throw refuse(k, value, "expected command:<absolute path>");
      return value;
    }
    case "path":
    case "command":
      if (value.includes("\0")) throw refuse(k, value, "contains a NUL character");
      return value;
  }
}

/**
 * Reads every knob of {@link KNOBS} from `env` (unset or empty: its default).
 * @throws {AppError} CONFIG_INVALID naming the first refused variable (data.variable)
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const out: Record<string, unknown> = {};
  for (const k of KNOBS) out[k.key] = knobFrom(env, k.key);
  return out as unknown as Config;
}

/**
 * One knob read from `env` (unset or empty: its default). For leaf functions that are handed an
 * environment rather than a Config (the Windows backends, whose tests give them a made-up one); a
 * program root has already refused a bad value through loadConfig.
 * @throws {AppError} CONFIG_INVALID
 */
export function knobFrom<K extends keyof Config>(env: Record<string, string | undefined>, key: K): Config[K] {
  const k = knob(key);
  const raw = env[k.name];
  const value = raw === undefined || raw === "" ? k.default : raw;
  return (value === null ? null : parseKnob(k, value)) as Config[K];
}

/**
 * What a program root does first: reads the config from `env` and sets the log level; on a refused
 * value it writes `<program>: CONFIG_INVALID: …` to stderr and exits 2 before doing anything else.
 */
export function rootConfig(env: Record<string, string | undefined>, program: string): Config {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    const text = err instanceof AppError ? err.toText() : String(err);
    Deno.stderr.writeSync(new TextEncoder().encode(`${program}: ${text}\n`));
    Deno.exit(2);
  }
  setLogLevel(config.log);
  return config;
}

/** The configuration with every knob at its default (tests, and code that runs with no environment). */
export function defaultConfig(): Config {
  return loadConfig({});
}

/** `env` with the knobs of `config` that differ from their defaults written back (for a child aiterm). */
export function knobEnv(overrides: Partial<Config>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(overrides)) {
    if (value === null || value === undefined) continue;
    out[knob(key as keyof Config).name] = String(value);
  }
  return out;
}
