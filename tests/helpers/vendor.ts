/**
 * Helpers for tests that run the REAL vendor CLIs (Claude Code, Codex CLI) installed by
 * `scripts/install_vendor_clis.sh` against the loopback fake model servers in tests/fixtures/fake_api/.
 *
 * - `findVendorClis()` looks in the cache only; it never installs.
 * - `vendorHome()` builds a throwaway HOME (and CODEX_HOME) that lets a real CLI start without login,
 *   onboarding or network, pointed at a fake server. `cleanup()` kills every process still running
 *   with that HOME (e.g. Codex's background app-server daemon) by PID and removes the directory.
 */

/** Pinned versions (keep in sync with scripts/install_vendor_clis.sh). */
export const CLAUDE_VERSION = "2.1.328";
export const CODEX_VERSION = "0.169.0";
export const GROK_VERSION = "1.0.41";

/** The API key handed to both CLIs (any value works against the fake servers). */
export const FAKE_API_KEY = "sk-ant-aiterm-fake-key-0123456789abcdefghij";

/** The cache dir the install script uses. */
export function vendorCacheDir(): string {
  const override = Deno.env.get("AITERM_VENDOR_CACHE");
  if (override) return override;
  return `${Deno.env.get("HOME") ?? "/root"}/.cache/aiterm-vendor`;
}

function cpuName(): { npm: string; triple: string } | null {
  if (Deno.build.arch === "x86_64") return { npm: "x64", triple: "x86_64" };
  if (Deno.build.arch === "aarch64") return { npm: "arm64", triple: "aarch64" };
  return null;
}

function isExecutable(path: string): boolean {
  try {
    const st = Deno.statSync(path);
    return st.isFile && ((st.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** Paths of the installed real CLIs, or null for each one that is not in the cache. */
export function findVendorClis(): { claude: string | null; codex: string | null; grok: string | null } {
  const cache = vendorCacheDir();
  const cpu = cpuName();
  if (!cpu || (Deno.build.os !== "linux" && Deno.build.os !== "darwin")) {
    return { claude: null, codex: null, grok: null };
  }
  const os = Deno.build.os;
  const claudeDir = `${cache}/claude-code-${CLAUDE_VERSION}/node_modules/@anthropic-ai`;
  const claudeCandidates = os === "linux"
    ? [`claude-code-linux-${cpu.npm}`, `claude-code-linux-${cpu.npm}-musl`]
    : [`claude-code-darwin-${cpu.npm}`];
  let claude: string | null = null;
  for (const pkg of claudeCandidates) {
    const p = `${claudeDir}/${pkg}/claude`;
    if (isExecutable(p)) {
      claude = p;
      break;
    }
  }
  const triple = os === "linux" ? `${cpu.triple}-unknown-linux-musl` : `${cpu.triple}-apple-darwin`;
  const codexPath =
    `${cache}/codex-${CODEX_VERSION}/node_modules/@openai/codex-${os}-${cpu.npm}/vendor/${triple}/bin/codex`;
  const grokPath = `${cache}/grok-${GROK_VERSION}/bin/grok`;
  return { claude, codex: isExecutable(codexPath) ? codexPath : null, grok: isExecutable(grokPath) ? grokPath : null };
}

/** Options for `vendorHome`. */
export interface VendorHomeOptions {
  /** Base URL of the fake server (`http://127.0.0.1:PORT`, no `/v1`). */
  apiUrl: string;
  /** The project dir the CLI will run in (trust is keyed on its realpath). */
  cwd: string;
  /** Pre-seed the folder trust so no trust dialog appears. */
  trusted: boolean;
}

/** A throwaway home for one real CLI. */
export interface VendorHome extends AsyncDisposable {
  /** Full environment to launch the CLI with (`clearEnv`). */
  env: Record<string, string>;
  home: string;
  /** Claude: `<home>/.claude`; Codex: CODEX_HOME (`<home>/.codex`); Grok: `<home>/.grok`. */
  configDir: string;
  /** Kills leftover processes started with this home (by PID) and removes the directory. */
  cleanup(): Promise<void>;
}

/** Environment variables copied from the test process (everything else is dropped). */
const PASS_ENV = ["PATH", "LANG", "LC_ALL", "TZ", "USER", "LOGNAME", "SHELL"];

function baseEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of PASS_ENV) {
    const v = Deno.env.get(k);
    if (v !== undefined) env[k] = v;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  env.LANG ??= "C.UTF-8";
  Object.assign(env, {
    HOME: home,
    TERM: "xterm-256color",
    XDG_CONFIG_HOME: `${home}/.config`,
    XDG_CACHE_HOME: `${home}/.cache`,
    XDG_DATA_HOME: `${home}/.local/share`,
    XDG_STATE_HOME: `${home}/.local/state`,
    NO_PROXY: "127.0.0.1,localhost",
  });
  return env;
}

function tomlString(s: string): string {
  return JSON.stringify(s);
}

/**
 * Builds a throwaway HOME for a real CLI.
 *
 * Claude: `~/.claude.json` with onboarding done, the key approved and (optionally) the project
 * trusted; env `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`,
 * `DISABLE_AUTOUPDATER=1`.
 * Codex: `CODEX_HOME/config.toml` with a `mock` Responses provider at `<apiUrl>/v1`, the background
 * daemon disabled (`features.daemon_auto_start = false`), update checks and analytics off, and
 * (optionally) the project trusted; env `MOCK_API_KEY`, `CODEX_HOME`.
 * Grok: `~/.grok/config.toml` with a custom model `mock` (`api_backend = "responses"` at `<apiUrl>/v1`,
 * `env_key = "MOCK_API_KEY"`) as the default, and (optionally) the project in `trusted_folders.toml`;
 * env `MOCK_API_KEY`, `XAI_API_KEY` (a fake value, so the CLI never starts a sign-in).
 */
export async function vendorHome(kind: "claude" | "codex" | "grok", opts: VendorHomeOptions): Promise<VendorHome> {
  // Not under /tmp: Codex refuses to create its helper links in a "temporary dir" and says so on
  // stderr; a dir under the cache keeps that noise out of the screens.
  const parent = `${vendorCacheDir()}/homes`;
  await Deno.mkdir(parent, { recursive: true });
  const home = await Deno.makeTempDir({ dir: parent, prefix: `${kind}-` });
  const env = baseEnv(home);
  const cwdReal = await Deno.realPath(opts.cwd);
  let configDir: string;
  if (kind === "claude") {
    configDir = `${home}/.claude`;
    await Deno.mkdir(configDir, { recursive: true });
    const state: Record<string, unknown> = {
      hasCompletedOnboarding: true,
      lastOnboardingVersion: CLAUDE_VERSION,
      theme: "dark",
      numStartups: 1,
      customApiKeyResponses: { approved: [FAKE_API_KEY.slice(-20)], rejected: [] },
      projects: opts.trusted ? { [cwdReal]: { hasTrustDialogAccepted: true, allowedTools: [] } } : {},
    };
    await Deno.writeTextFile(`${home}/.claude.json`, JSON.stringify(state, null, 2));
    Object.assign(env, {
      ANTHROPIC_BASE_URL: opts.apiUrl,
      ANTHROPIC_API_KEY: FAKE_API_KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
    });
  } else if (kind === "grok") {
    configDir = `${home}/.grok`;
    await Deno.mkdir(configDir, { recursive: true });
    const lines = [
      `[models]`,
      `default = "mock"`,
      ``,
      `[model.mock]`,
      `model = "mock-model"`,
      `name = "Mock"`,
      `base_url = ${tomlString(`${opts.apiUrl}/v1`)}`,
      `env_key = "MOCK_API_KEY"`,
      `api_backend = "responses"`,
      `context_window = 128000`,
      ``,
    ];
    await Deno.writeTextFile(`${configDir}/config.toml`, lines.join("\n"));
    if (opts.trusted) {
      await Deno.writeTextFile(
        `${configDir}/trusted_folders.toml`,
        `[folders.${tomlString(cwdReal)}]\ntrusted = true\ndecided_at = ${Math.floor(Date.now() / 1000)}\n`,
      );
    }
    Object.assign(env, { MOCK_API_KEY: "mock-key", XAI_API_KEY: "xai-aiterm-fake-key" });
  } else {
    configDir = `${home}/.codex`;
    await Deno.mkdir(configDir, { recursive: true });
    const lines = [
      `model = "mock-model"`,
      `model_provider = "mock"`,
      `check_for_update_on_startup = false`,
      ``,
      `[features]`,
      `daemon_auto_start = false`,
      ``,
      `[analytics]`,
      `enabled = false`,
      ``,
      `[tui]`,
      `screen_reader_detection_done = true`,
      ``,
      `[model_providers.mock]`,
      `name = "Mock"`,
      `base_url = ${tomlString(`${opts.apiUrl}/v1`)}`,
      `wire_api = "responses"`,
      `env_key = "MOCK_API_KEY"`,
      `request_max_retries = 0`,
      `stream_max_retries = 0`,
      ``,
    ];
    if (opts.trusted) lines.push(`[projects.${tomlString(cwdReal)}]`, `trust_level = "trusted"`, ``);
    await Deno.writeTextFile(`${configDir}/config.toml`, lines.join("\n"));
    Object.assign(env, { CODEX_HOME: configDir, MOCK_API_KEY: "mock-key" });
  }
  const cleanup = async () => {
    await killProcessesUsing(home);
    await Deno.remove(home, { recursive: true }).catch(() => {});
  };
  return { env, home, configDir, cleanup, [Symbol.asyncDispose]: cleanup };
}

/**
 * PIDs of processes (other than this one) whose environment has HOME/CODEX_HOME inside `dir`,
 * or whose command line mentions `dir` (Linux /proc only; empty elsewhere).
 */
export function processesUsing(dir: string): number[] {
  const out: number[] = [];
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e.name)) continue;
    const pid = Number(e.name);
    if (pid === Deno.pid) continue;
    try {
      const cmd = Deno.readTextFileSync(`/proc/${pid}/cmdline`);
      let hit = cmd.includes(dir);
      if (!hit) {
        const environ = Deno.readTextFileSync(`/proc/${pid}/environ`).split("\0");
        hit = environ.some((kv) => (kv.startsWith("HOME=") || kv.startsWith("CODEX_HOME=")) && kv.includes(dir));
      }
      if (hit) out.push(pid);
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

/** Sends SIGTERM, then SIGKILL after a grace period, to every process found by `processesUsing(dir)`. */
export async function killProcessesUsing(dir: string, graceMs = 1500): Promise<number[]> {
  const pids = processesUsing(dir);
  for (const pid of pids) {
    try {
      Deno.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && pids.some(alive)) await new Promise((r) => setTimeout(r, 50));
  for (const pid of pids) {
    if (!alive(pid)) continue;
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** Claude's project slug for a (realpath) cwd: non-alphanumerics become `-`; long ones get a hash. */
export function claudeSlug(cwd: string): string {
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, "-");
  if (slug.length <= 200) return slug;
  let h = 0;
  for (let i = 0; i < cwd.length; i++) h = ((h << 5) - h + cwd.charCodeAt(i)) | 0;
  return `${slug.slice(0, 200)}-${Math.abs(h).toString(36)}`;
}

/** Options for `PrivateTmux.start`. */
export interface TmuxStartOptions {
  /** Full environment of the tmux server, hence of the program (launched with `clearEnv`). */
  env: Record<string, string>;
  cwd: string;
  argv: string[];
  cols?: number;
  rows?: number;
}

const decoder = new TextDecoder();

/**
 * One program running in its own tmux server on a private socket (`-S <path> -f /dev/null`), so the
 * user's default tmux server is never touched. Panes stay after exit (`remain-on-exit`), so the
 * last screen and the exit status can be read. `close()` kills the server and, by PID, the program
 * and the server if they survive.
 */
export class PrivateTmux implements AsyncDisposable {
  #dir: string;
  #socket: string;
  #env: Record<string, string>;
  panePid = 0;
  serverPid = 0;

  private constructor(dir: string, env: Record<string, string>) {
    this.#dir = dir;
    this.#socket = `${dir}/tmux.sock`;
    this.#env = env;
  }

  /** Starts `argv` in a new detached session of a fresh private server. */
  static async start(opts: TmuxStartOptions): Promise<PrivateTmux> {
    const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "aitv-" });
    const t = new PrivateTmux(dir, { ...opts.env, TMUX_TMPDIR: dir });
    const cols = String(opts.cols ?? 160);
    const rows = String(opts.rows ?? 50);
    const r = await t.tmux(
      "start-server",
      ";",
      "set-option",
      "-g",
      "remain-on-exit",
      "on",
      ";",
      "set-option",
      "-g",
      "history-limit",
      "5000",
      ";",
      "new-session",
      "-d",
      "-s",
      "main",
      "-x",
      cols,
      "-y",
      rows,
      "-c",
      opts.cwd,
      "--",
      ...opts.argv,
    );
    if (r.code !== 0) {
      await t.close();
      throw new Error(`tmux new-session failed: ${r.stderr}`);
    }
    const info = await t.tmux("display-message", "-p", "-t", "main", "#{pane_pid} #{pid}");
    const [pane, server] = info.stdout.trim().split(" ");
    t.panePid = Number(pane ?? 0);
    t.serverPid = Number(server ?? 0);
    return t;
  }

  /** Runs a tmux command against the private socket. */
  async tmux(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const out = await new Deno.Command("tmux", {
      args: ["-S", this.#socket, "-f", "/dev/null", ...args],
      env: this.#env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
  }

  /** The visible screen (plus `history` lines of scrollback), trailing blank lines removed. */
  async screen(history = 0): Promise<string> {
    const args = ["capture-pane", "-p", "-t", "main"];
    if (history > 0) args.push("-S", String(-history));
    const r = await this.tmux(...args);
    return r.stdout.replace(/\s+$/, "");
  }

  /** Sends tmux key names (`Enter`, `Down`, `C-c`, …). */
  async keys(...keys: string[]): Promise<void> {
    await this.tmux("send-keys", "-t", "main", ...keys);
  }

  /** Types literal text (no Enter). */
  async type(text: string): Promise<void> {
    await this.tmux("send-keys", "-t", "main", "-l", text);
  }

  /** Pastes text as a bracketed paste (when the program enabled it), without Enter. */
  async paste(text: string): Promise<void> {
    const file = `${this.#dir}/paste.txt`;
    await Deno.writeTextFile(file, text);
    await this.tmux("load-buffer", "-b", "p", file);
    await this.tmux("paste-buffer", "-p", "-d", "-b", "p", "-t", "main");
  }

  /** Paste, pause, Enter: how a prompt is submitted. */
  async submit(text: string, pauseMs = 600): Promise<void> {
    await this.paste(text);
    await new Promise((r) => setTimeout(r, pauseMs));
    await this.keys("Enter");
  }

  /** `{dead, status}` of the pane's program. */
  async paneState(): Promise<{ dead: boolean; status: number | null }> {
    const r = await this.tmux("display-message", "-p", "-t", "main", "#{pane_dead} #{pane_dead_status}");
    const [dead, status] = r.stdout.trim().split(" ");
    return { dead: dead === "1", status: status ? Number(status) : null };
  }

  /** Polls the screen until `pred` holds; throws with the last screen on timeout. */
  async waitFor(pred: string | RegExp | ((screen: string) => boolean), timeoutMs = 20_000, label?: string) {
    const test = typeof pred === "function"
      ? pred
      : typeof pred === "string"
      ? (s: string) => s.includes(pred)
      : (s: string) => pred.test(s);
    const deadline = Date.now() + timeoutMs;
    let last = "";
    for (;;) {
      last = await this.screen(200);
      if (test(last)) return last;
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${label ?? String(pred)}; screen:\n${last}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Kills the server, then the program and the server by PID if still alive, and removes the dir. */
  async close(): Promise<void> {
    await this.tmux("kill-server").catch(() => {});
    for (const pid of [this.panePid, this.serverPid]) {
      if (pid > 0 && alive(pid)) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
    }
    await Deno.remove(this.#dir, { recursive: true }).catch(() => {});
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Reads a JSONL file into objects (missing file → []; a torn last line is skipped). */
export async function readJsonl(path: string): Promise<Record<string, unknown>[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return [];
  }
  const out: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // partial line being written
    }
  }
  return out;
}

/** All files under `dir` whose name matches `re` (recursive; missing dir → []). */
export async function findFiles(dir: string, re: RegExp): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(d));
    } catch {
      return;
    }
    for (const e of entries) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (re.test(e.name)) out.push(p);
    }
  };
  await walk(dir);
  return out.sort();
}

/**
 * Top-level keys of the transcript records an adapter reads, as written by the real Claude Code
 * 2.1.328 (captured by tests/vendor/real_cli_smoke_test.ts, which re-checks them against the real
 * CLI). The fake `claude` must write at least these keys.
 */
export const CLAUDE_RECORD_KEYS = {
  /** `type:"user"` record of a typed prompt (`message.content` is a string). */
  user: [
    "cwd",
    "entrypoint",
    "gitBranch",
    "isSidechain",
    "message",
    "origin",
    "parentUuid",
    "permissionMode",
    "promptId",
    "promptSource",
    "sessionId",
    "timestamp",
    "turnOrigin",
    "turnPosition",
    "type",
    "userType",
    "uuid",
    "version",
  ],
  /** `type:"assistant"` record with a text block. */
  assistant: [
    "cwd",
    "entrypoint",
    "isSidechain",
    "message",
    "parentUuid",
    "sessionId",
    "timestamp",
    "type",
    "uuid",
    "version",
  ],
  /** `type:"system", subtype:"turn_duration"` (end of a successful turn). */
  turnDuration: [
    "cwd",
    "durationMs",
    "isMeta",
    "isSidechain",
    "messageCount",
    "parentUuid",
    "sessionId",
    "subtype",
    "timestamp",
    "type",
    "uuid",
    "version",
  ],
  /** The synthetic assistant record of an API error. */
  apiError: [
    "apiErrorStatus",
    "error",
    "isApiErrorMessage",
    "message",
    "parentUuid",
    "sessionId",
    "timestamp",
    "type",
    "uuid",
  ],
} as const;

/** Same for the real Codex 0.169.0 rollout (`payload` keys, except `envelope`). */
export const CODEX_RECORD_KEYS = {
  envelope: ["ordinal", "payload", "timestamp", "type"],
  sessionMeta: ["cli_version", "cwd", "id", "model_provider", "originator", "session_id", "source", "timestamp"],
  taskStarted: ["started_at", "turn_id", "type"],
  /** `response_item` `type:"message"`. */
  message: ["content", "id", "role", "type"],
  /** `event_msg` `item_completed` (UserMessage / AgentMessage). */
  itemCompleted: ["item", "thread_id", "turn_id", "type"],
  taskComplete: ["completed_at", "duration_ms", "last_agent_message", "started_at", "turn_id", "type"],
  /** `task_complete` of a failed turn (`last_agent_message:null`). */
  taskCompleteError: ["error", "last_agent_message", "turn_id", "type"],
} as const;

/** Keys of `expected` missing from `record` (empty when all present). */
export function missingKeys(record: unknown, expected: readonly string[]): string[] {
  if (!record || typeof record !== "object") return [...expected];
  return expected.filter((k) => !(k in record));
}
