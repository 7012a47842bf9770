/**
 * The ssh side of the remote relay: argv for one destination, the shared ControlMaster, the shell
 * probe and the remote command line. See docs/adr/0010-remote-relay.md.
 *
 * Secrets: a passphrase is held in this process's memory only. It reaches ssh through SSH_ASKPASS:
 * a helper script (no secret in it) prints an environment variable that is set only for that ssh
 * child. Without a passphrase ssh runs with BatchMode=yes and never prompts.
 */
import { runProcess, selfCommand } from "../../platform/mod.ts";
import { dirname, join } from "node:path";
import { CHILD_VARS } from "../../base/config.ts";
import { AppError } from "../../base/errors.ts";
import { replaceFile } from "../../base/atomic.ts";
import { ensurePrivateDir } from "../../state/mod.ts";
import type { RemoteTarget } from "./schema.ts";
import { sshOptionsProblem } from "./ssh_options.ts";

/** The remote login shell family, from the probe. */
export type RemoteShell = "posix" | "cmd" | "powershell";

/** How long an idle shared connection stays up (seconds). */
export const CONTROL_PERSIST_SECONDS = 600;
/** ssh ConnectTimeout (seconds). */
export const CONNECT_TIMEOUT_SECONDS = 10;
/** The env var that carries the passphrase to the askpass helper, set only for the ssh child. */
const SECRET_VAR = CHILD_VARS.sshAskpassSecret;
/** Unix socket paths are limited to ~104 bytes. */
const SOCKET_PATH_MAX = 100;
const PROBE = "echo aiterm-probe %OS% $PSHOME";
const NOT_FOUND_MARK = "aiterm-remote: aiterm-mcp is not on the login PATH";

/** Everything needed to run ssh against one destination. */
export interface SshContext {
  target: RemoteTarget;
  /** Directory of control sockets, askpass helper and ssh logs (owner-only). */
  controlDir: string;
  /** The server's environment. */
  env: Record<string, string>;
  /** The configured ssh_config file (AITERM_SSH_CONFIG; base/config.ts), or null. */
  sshConfig: string | null;
}

/** A prepared destination: argv prefix, child env and the probed shell. */
export interface PreparedRemote {
  host: string;
  /**
   * Names this call's whole destination and credentials (no secret in it): a kept connection or
   * remote session serves only calls with the same value.
   */
  connection: string;
  shell: RemoteShell;
  /** `ssh` argv (without the program) up to and including the host; append the remote command. */
  sshArgs: string[];
  /** Environment for the ssh child (may hold the passphrase; never log or return it). */
  childEnv: Record<string, string>;
}

/**
 * The control directory under the state root. Created 0700 when missing; an existing one must be a
 * real directory owned by this user with mode exactly 0700, else nothing runs: a socket planted in a
 * directory others could write would carry our commands to someone else's connection, and changing
 * the mode afterwards would not remove it.
 * @throws {AppError} REMOTE_CONTROL_DIR_UNSAFE, STATE_ROOT_INVALID
 */
export function controlDirFor(stateRoot: string): string {
  const dir = join(stateRoot, "ssh");
  ensureControlDir(dir);
  if (new TextEncoder().encode(join(dir, "x".repeat(40))).length > SOCKET_PATH_MAX) {
    throw new AppError("REMOTE_CONNECT_FAILED", "Cannot place the ssh control socket: the state path is too long", {
      suggestion: "set AITERM_STATE_DIR to a shorter directory",
    });
  }
  return dir;
}

function ensureControlDir(dir: string): void {
  try {
    Deno.mkdirSync(dir, { mode: 0o700 });
    // Ours and new: set the exact mode (the umask may have removed owner bits).
    Deno.chmodSync(dir, 0o700);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      ensurePrivateDir(dirname(dir));
      return ensureControlDir(dir);
    }
    if (!(err instanceof Deno.errors.AlreadyExists)) {
      throw new AppError(
        "REMOTE_CONTROL_DIR_UNSAFE",
        `Cannot create the ssh control directory: ${(err as Error).message}`,
        {
          data: { path: dir },
          cause: err,
        },
      );
    }
  }
  const problem = controlDirProblem(dir);
  if (problem) {
    throw new AppError("REMOTE_CONTROL_DIR_UNSAFE", `Cannot use the ssh control directory "${dir}": ${problem}`, {
      data: { path: dir },
      suggestion: "remove that directory (aiterm creates it again, owner-only); nothing was run",
    });
  }
}

/** Why `dir` is not a safe control directory, or null when it is. */
export function controlDirProblem(dir: string): string | null {
  let st: Deno.FileInfo;
  try {
    st = Deno.lstatSync(dir);
  } catch (err) {
    return `cannot inspect it (${(err as Error).message})`;
  }
  if (st.isSymlink || !st.isDirectory) return "it is not a real directory";
  if (Deno.build.os === "windows") return null;
  const uid = Deno.uid();
  if (uid !== null && st.uid !== uid) return `it belongs to uid ${st.uid}, not ${uid}`;
  const mode = (st.mode ?? 0) & 0o7777;
  if (mode !== 0o700) return `its mode is ${mode.toString(8).padStart(4, "0")}, not 0700`;
  return null;
}

/** Resolves the passphrase (memory only). @throws {AppError} REMOTE_PASSPHRASE_ENV_MISSING */
function passphraseOf(ctx: SshContext): string | null {
  if (ctx.target.passphrase !== undefined) return ctx.target.passphrase;
  const name = ctx.target.passphrase_env;
  if (name === undefined) return null;
  const value = ctx.env[name];
  if (value === undefined || value === "") {
    throw new AppError("REMOTE_PASSPHRASE_ENV_MISSING", `Cannot read the key passphrase: ${name} is not set`, {
      data: { field: "remote.passphrase_env" },
      suggestion: "set the variable in the server's environment, or omit passphrase_env; nothing was run",
    });
  }
  return value;
}

async function askpassHelper(controlDir: string): Promise<string> {
  const path = join(controlDir, "askpass.sh");
  // The helper holds no secret: it prints a variable that exists only in the ssh child's environment.
  const body = `#!/bin/sh\nprintf '%s\\n' "$${SECRET_VAR}"\n`;
  const current = await Deno.readTextFile(path).catch(() => null);
  if (current !== body) {
    await replaceFile(path, body, { mode: 0o700, sync: false });
  }
  return path;
}

/** Hashes a passphrase for a connection key (see {@link SshConnections.secretHash}). */
export interface SecretHasher {
  secretHash(secret: string): Promise<string>;
}

/**
 * The connection key of one call: every input that decides where ssh goes and how it authenticates
 * (host, user, port, identity file, ssh options, the extra ssh_config file and the passphrase's
 * source with an HMAC of its value). Calls share a ControlMaster and a remote aiterm only when it
 * is equal. Without a passphrase it is the same in every process (so a restarted server finds its
 * connection); with one it is per process.
 */
export async function connectionKey(ctx: SshContext, secret: string | null, hasher: SecretHasher): Promise<string> {
  const t = ctx.target;
  const source = secret === null
    ? null
    : [t.passphrase_env === undefined ? "value" : `env:${t.passphrase_env}`, await hasher.secretHash(secret)];
  const parts = [
    t.host,
    t.user ?? null,
    t.port ?? null,
    t.identity_file ?? null,
    t.ssh_options ?? [],
    ctx.sshConfig || null,
    source,
  ];
  return (await sha256Hex(JSON.stringify(parts))).slice(0, 32);
}

/** ssh argv up to and including the host, the child env and the connection key. @throws {AppError} INVALID_ARGUMENT */
export async function sshInvocation(
  ctx: SshContext,
  hasher: SecretHasher,
): Promise<{ args: string[]; env: Record<string, string>; connection: string }> {
  const t = ctx.target;
  // The schema refuses these already; a target rebuilt from a stored record is checked again here.
  const bad = sshOptionsProblem(t.ssh_options ?? []);
  if (bad) {
    throw new AppError("INVALID_ARGUMENT", `remote.ssh_options.${bad.index}: ${bad.problem}`, {
      data: { field: `remote.ssh_options.${bad.index}` },
      suggestion: "nothing was run",
    });
  }
  const secret = passphraseOf(ctx);
  const connection = await connectionKey(ctx, secret, hasher);
  const env: Record<string, string> = { ...ctx.env };
  delete env[SECRET_VAR];
  delete env.SSH_ASKPASS;
  delete env.SSH_ASKPASS_REQUIRE;
  // ssh keeps the first value it sees for an option: ours come first and win over ssh_options and ssh_config.
  const args: string[] = [];
  const extraConfig = ctx.sshConfig;
  if (extraConfig) args.push("-F", extraConfig);
  if (secret !== null) {
    env[SECRET_VAR] = secret;
    env.SSH_ASKPASS = await askpassHelper(ctx.controlDir);
    env.SSH_ASKPASS_REQUIRE = "force";
    if (!env.DISPLAY) env.DISPLAY = "aiterm:0";
    args.push("-o", "BatchMode=no", "-o", "PasswordAuthentication=no", "-o", "KbdInteractiveAuthentication=no");
  } else {
    args.push("-o", "BatchMode=yes");
  }
  args.push(
    "-o",
    "ControlMaster=auto",
    "-o",
    // Our own name, not ssh's %C (host, port, user only): another key or passphrase never rides this one.
    `ControlPath=${join(ctx.controlDir, `c-${connection}`)}`,
    "-o",
    `ControlPersist=${CONTROL_PERSIST_SECONDS}`,
    "-o",
    `ConnectTimeout=${CONNECT_TIMEOUT_SECONDS}`,
    "-o",
    "ServerAliveInterval=15",
    "-o",
    "ServerAliveCountMax=3",
  );
  if (t.port !== undefined) args.push("-p", String(t.port));
  if (t.user !== undefined) args.push("-l", t.user);
  if (t.identity_file !== undefined) args.push("-i", t.identity_file);
  for (const o of t.ssh_options ?? []) args.push("-o", o);
  args.push("-T", "--", t.host);
  return { args, env, connection };
}

async function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await runProcess("ssh", { args, env, clearEnv: true }).catch((err) => {
    throw new AppError("REMOTE_CONNECT_FAILED", `Cannot run ssh: ${(err as Error).message}`, {
      suggestion: "install an OpenSSH client",
      cause: err,
    });
  });
  return { code: out.code, stdout: out.stdout, stderr: out.stderr };
}

/** The last meaningful line of ssh's stderr, with anything that looks like the secret removed. */
export function lastLine(text: string, secret?: string | null): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "" && !/^debug\d?:/.test(l));
  let line = lines.at(-1) ?? "";
  if (secret) line = line.split(secret).join("***");
  return line.slice(0, 500);
}

function connectFailed(host: string, sshError: string): AppError {
  return new AppError("REMOTE_CONNECT_FAILED", `Cannot connect to ${host} over ssh: ${sshError || "no message"}`, {
    data: { host, ssh_error: sshError },
    suggestion: "check host, user, port and key (ssh runs with BatchMode=yes unless a passphrase is given)",
  });
}

/** Starts (or reuses) the shared connection for this connection key. @throws {AppError} REMOTE_CONNECT_FAILED */
async function ensureMaster(
  ctx: SshContext,
  args: string[],
  env: Record<string, string>,
  connection: string,
): Promise<void> {
  const check = await run([...withoutHost(args), "-O", "check", "--", ctx.target.host], env);
  if (check.code === 0) return;
  const logFile = join(ctx.controlDir, `master-${connection.slice(0, 16)}.log`);
  await Deno.writeTextFile(logFile, "", { mode: 0o600 });
  // -f -N: background after authentication; -E: ssh's messages go to a file, so no pipe stays open.
  const start = await run([...withoutHost(args), "-N", "-f", "-E", logFile, "--", ctx.target.host], env);
  const log = await Deno.readTextFile(logFile).catch(() => "");
  if (start.code !== 0) {
    throw connectFailed(ctx.target.host, lastLine(`${log}\n${start.stderr}`, env[SECRET_VAR]));
  }
}

function withoutHost(args: string[]): string[] {
  return args.slice(0, args.length - 2);
}

async function sha256Hex(s: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))));
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Reads the probe output: cmd expands %OS%, PowerShell expands $PSHOME, POSIX shells neither. */
export function parseProbe(stdout: string): RemoteShell | null {
  const at = stdout.lastIndexOf("aiterm-probe");
  if (at < 0) return null;
  const rest = stdout.slice(at + "aiterm-probe".length).trim().split(/\s+/).filter((x) => x !== "");
  if (rest[0] === "Windows_NT") return "cmd";
  if (rest[0] === "%OS%" && rest.length === 1) return "posix";
  if (rest[0] === "%OS%") return "powershell";
  return null;
}

async function probe(
  ctx: SshContext,
  args: string[],
  env: Record<string, string>,
  key: string,
  shells: Map<string, RemoteShell>,
): Promise<RemoteShell> {
  const known = shells.get(key);
  if (known) return known;
  const out = await run([...args, PROBE], env);
  if (out.code === 255) throw connectFailed(ctx.target.host, lastLine(out.stderr, env[SECRET_VAR]));
  const shell = parseProbe(out.stdout);
  if (!shell) {
    throw new AppError("REMOTE_PROTOCOL_FAILED", `Cannot tell the remote shell of ${ctx.target.host} from the probe`, {
      data: { host: ctx.target.host },
    });
  }
  shells.set(key, shell);
  return shell;
}

/**
 * The ssh state of one process (created by its composition root, lib/app.ts): the random key that
 * hashes passphrases into connection keys (never stored: a hash on disk cannot be brute-forced
 * offline), the ControlMaster starts in flight and the probed shell of each connection key.
 */
export class SshConnections implements SecretHasher {
  #secretKey: Promise<CryptoKey> | null = null;
  readonly #masters = new Map<string, Promise<void>>();
  readonly #shells = new Map<string, RemoteShell>();

  /** An HMAC of `secret` under this object's random key (the same secret: the same hash, in this object). */
  async secretHash(secret: string): Promise<string> {
    this.#secretKey ??= crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]) as Promise<
      CryptoKey
    >;
    const mac = await crypto.subtle.sign("HMAC", await this.#secretKey, new TextEncoder().encode(secret));
    return hex(new Uint8Array(mac));
  }

  /**
   * Connects (the master of this connection key, started once and shared by calls with the same key
   * only), probes the shell once per key, and returns what a relay needs.
   */
  async prepare(ctx: SshContext): Promise<PreparedRemote> {
    const { args, env, connection } = await sshInvocation(ctx, this);
    let pending = this.#masters.get(connection);
    if (!pending) {
      pending = ensureMaster(ctx, args, env, connection).finally(() => this.#masters.delete(connection));
      this.#masters.set(connection, pending);
    }
    await pending;
    const shell = await probe(ctx, args, env, connection, this.#shells);
    return { host: ctx.target.host, connection, shell, sshArgs: args, childEnv: env };
  }
}

const SAFE_ARG = /^[A-Za-z0-9_.:=\/-]+$/;

/**
 * The command the remote login shell runs. POSIX: only PATH is taken from the user's login shell
 * (`$SHELL -lc env`, its output and errors discarded), and aiterm-mcp runs under /bin/sh, so
 * profile output and fish syntax never reach the MCP stream. Windows: aiterm-mcp / aiterm-wait
 * from the user's PATH.
 */
export function remoteCommand(shell: RemoteShell, program: "serve" | "wait", args: string[] = []): string {
  for (const a of args) {
    if (!SAFE_ARG.test(a)) {
      throw new AppError("REMOTE_PROTOCOL_FAILED", "Cannot pass an unexpected argument to the remote aiterm");
    }
  }
  if (shell !== "posix") {
    return [program === "wait" ? "aiterm-wait" : "aiterm-mcp serve", ...args].join(" ");
  }
  const script = [
    'P=$("${SHELL:-/bin/sh}" -lc env </dev/null 2>/dev/null | sed -n "s/^PATH=//p" | tail -n 1)',
    'if [ -n "$P" ]; then PATH=$P; fi',
    "export PATH",
    `command -v aiterm-mcp >/dev/null 2>&1 || { echo "${NOT_FOUND_MARK}" >&2; exit 127; }`,
    `exec aiterm-mcp ${program} ${args.join(" ")}`.trimEnd(),
  ].join("; ");
  return `/bin/sh -c '${script}'`;
}

/** Turns a failed relay start into the right code, from ssh's stderr and exit. */
export function relayStartFailure(host: string, stderr: string, secret?: string | null): AppError {
  if (stderr.includes(NOT_FOUND_MARK) || /is not recognized as|CommandNotFoundException/.test(stderr)) {
    return new AppError("REMOTE_AITERM_NOT_FOUND", `Cannot find aiterm-mcp on the PATH of ${host}`, {
      data: { host },
      suggestion: "install aiterm on the remote host so that its login shell finds aiterm-mcp",
    });
  }
  const line = lastLine(stderr, secret);
  if (/^(ssh:|Permission denied|Connection |Host key|kex_|Could not resolve)/.test(line)) {
    return connectFailed(host, line);
  }
  return new AppError(
    "REMOTE_PROTOCOL_FAILED",
    `Cannot talk MCP to aiterm-mcp on ${host}${line ? `: ${line}` : ""}`,
    { data: { host } },
  );
}

/** The secret in a child env, for redaction only. */
export function secretOf(env: Record<string, string>): string | null {
  return env[SECRET_VAR] ?? null;
}

/**
 * The wait_process of a remote agent turn: ssh to the remote waiter (`aiterm-mcp wait …` there).
 * Wrapped in the local `aiterm-mcp remote-wait`, which starts it again when ssh fails (exit 255) so
 * it re-observes from the same cursor; the remote waiter's own exit codes are final.
 * It never carries a passphrase: it rides the shared connection, or needs a key that BatchMode can use.
 */
export function remoteWaitProcess(
  prepared: PreparedRemote,
  remoteArgs: string[],
): { executable: string; args: string[]; windows_start_process_argument_list: null } {
  const i = remoteArgs.indexOf("--session");
  const waitArgs = i >= 0 ? remoteArgs.slice(i) : remoteArgs;
  const sshArgs = prepared.sshArgs.map((a) => a === "BatchMode=no" ? "BatchMode=yes" : a);
  // A local remote-wait runs the ssh waiter and starts it again when ssh itself fails (exit 255).
  const [executable, ...prefix] = selfCommand("remote-wait");
  return {
    executable: executable!,
    args: [...prefix, "--", "ssh", ...sshArgs, remoteCommand(prepared.shell, "wait", waitArgs)],
    windows_start_process_argument_list: null,
  };
}
