/**
 * What every client's registration shares (harnesses/<vendor>/register.ts): the step contract setup
 * runs (detect, register, read back) and the helpers to run a client's CLI and read its answers.
 */
import { SERVER_NAME } from "../../../base/version.ts";
import { runProcess } from "../../../platform/mod.ts";
import { type BinarySpec, resolveBinary } from "../mod.ts";
import { type ConfigPathKind, SetupFailure } from "./config_file.ts";
import { displayCommand, type ServerCommand } from "./host.ts";

/** The clients setup knows (harnesses/mod.ts CLIENT_IDS lists them in the order setup handles them). */
export type ClientId = "claude" | "codex" | "cursor" | "grok";

/** The name aiterm is registered under in every client. */
export const REGISTRATION_NAME = SERVER_NAME;

/** What every client step gets. */
export interface ClientContext {
  env: Record<string, string>;
  home: string;
  dryRun: boolean;
  server: ServerCommand;
  /**
   * Entries setup adds to the registered server's environment (`setup --legacy-tools`: AITERM_LEGACY_TOOLS=1).
   * Every client's registration must hold them, or it is not the same registration; names are shown, never values.
   */
  serverEnv?: Record<string, string>;
}

/** Whether `env` (a registration's environment: an object, or entries) holds every entry of `want`. */
export function holdsEnv(env: unknown, want: Record<string, string> | undefined): boolean {
  const have = new Map(Array.isArray(env) ? env as [string, string][] : stringEnv(env));
  return Object.entries(want ?? {}).every(([k, v]) => have.get(k) === v);
}

/** ` (server environment: A, B)` for a detail line when setup adds entries, else "". */
export function serverEnvNote(want: Record<string, string> | undefined): string {
  const names = Object.keys(want ?? {});
  return names.length ? ` (server environment: ${names.join(", ")})` : "";
}

/** Whether and how a client was found. */
export interface Detection {
  found: boolean;
  /** The client's CLI, when it resolves. */
  bin: string | null;
  /** How it was found (or where setup looked). */
  how: string;
}

/** Result of registering in one client. */
export interface RegisterReport {
  status: "registered" | "already_registered" | "would_register";
  detail: string;
  config_path?: string;
  config_path_kind?: "file" | "symlink" | "created" | "cli";
  backup_path?: string;
}

/** Result of reading a registration back. */
export interface ReadBackReport {
  detail: string;
  /** Claude only: the CLI's own health check (it starts the server). */
  health?: "connected" | "not_checked";
}

/** One client's integration. Failures are thrown as {@link SetupFailure}. */
export interface ClientIntegration {
  id: ClientId;
  label: string;
  detect(ctx: ClientContext): Promise<Detection>;
  register(ctx: ClientContext, det: Detection): Promise<RegisterReport>;
  readBack(ctx: ClientContext, det: Detection): Promise<ReadBackReport>;
}

const CLI_TIMEOUT_MS = 90_000;

/** What a client CLI printed and how it exited. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(bin: string, args: string[], ctx: ClientContext): Promise<CliResult> {
  const fail = (why: string) =>
    new SetupFailure("cli_failed", `cannot run ${bin} ${args.slice(0, 2).join(" ")}: ${why}`);
  const out = await runProcess(bin, { args, cwd: ctx.home, env: ctx.env, clearEnv: true, timeoutMs: CLI_TIMEOUT_MS })
    .catch((err: Error) => {
      throw fail(err.message);
    });
  if (out.timedOut) throw fail(`timed out after ${CLI_TIMEOUT_MS / 1000}s`);
  return { code: out.code, stdout: out.stdout, stderr: out.stderr };
}

function firstLine(text: string): string {
  return text.split("\n").map((l) => l.trim()).find((l) => l.length > 0)?.slice(0, 300) ?? "";
}

export function cliFailure(bin: string, args: string[], r: CliResult): SetupFailure {
  return new SetupFailure(
    "cli_failed",
    `${bin.split(/[\\/]/).pop()} ${args.slice(0, 3).join(" ")} exited with ${r.code}: ${
      firstLine(r.stderr) || firstLine(r.stdout) || "no output"
    }`,
  );
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

export async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

export function pathKind(kind: ConfigPathKind): "file" | "symlink" | "created" {
  return kind === "missing" ? "created" : kind;
}

export function stringEnv(v: unknown): [string, string][] {
  if (!isObject(v)) return [];
  return Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string");
}

/** A client whose CLI registers MCP servers (`<cli> mcp add … -- <command…>`): Codex, Grok Build. */
export interface CliAddSpec extends Pick<ClientIntegration, "id" | "label" | "readBack"> {
  /** The CLI's name as shown (`codex`). */
  cli: string;
  binary: BinarySpec;
  /** Where detection looked, in its message (`CODEX_BIN, PATH`). */
  lookedIn: string;
  /** The arguments before the server's environment (`mcp add aiterm`). */
  head: string[];
  /** The flag before each `KEY=value` of the server's environment (`--env`). */
  envFlag: string;
  /**
   * What the client holds now: whether it already registers this server, and the server's env entries to keep
   * (setup's own {@link ClientContext.serverEnv} is checked and added by {@link registerWithCli}).
   */
  current(ctx: ClientContext, det: Detection): Promise<{ same: boolean; env: [string, string][] }>;
  /** The detail of `already_registered`. */
  sameDetail: string;
}

/** The integration of a {@link CliAddSpec} client: detected by its CLI, registered with {@link registerWithCli}. */
export function cliClient(spec: CliAddSpec): ClientIntegration {
  return {
    id: spec.id,
    label: spec.label,
    detect: (ctx) => detectCli(spec, ctx),
    register: (ctx, det) => registerWithCli(spec, ctx, det),
    readBack: (ctx, det) => spec.readBack(ctx, det),
  };
}

/** Detects a {@link CliAddSpec} client by its CLI. */
export function detectCli(spec: CliAddSpec, ctx: ClientContext): Promise<Detection> {
  const bin = resolveBinary(spec.binary, ctx.env);
  return Promise.resolve(
    bin
      ? { found: true, bin, how: `${spec.cli} CLI at ${bin}` }
      : { found: false, bin: null, how: `no ${spec.cli} CLI (${spec.lookedIn})` },
  );
}

/**
 * Registers aiterm with the client's own `mcp add` unless it already registers the same server, keeping
 * the server's env entries (values are passed, never shown); a dry run says what it would run.
 * Throws {@link SetupFailure} cli_failed.
 */
export async function registerWithCli(spec: CliAddSpec, ctx: ClientContext, det: Detection): Promise<RegisterReport> {
  const current = await spec.current(ctx, det);
  if (current.same && holdsEnv(current.env, ctx.serverEnv)) {
    return { status: "already_registered", detail: spec.sameDetail, config_path_kind: "cli" };
  }
  const env = new Map([...current.env, ...Object.entries(ctx.serverEnv ?? {})]);
  const command = [ctx.server.command, ...ctx.server.args];
  const args = [...spec.head, ...[...env].flatMap(([k, v]) => [spec.envFlag, `${k}=${v}`]), "--", ...command];
  const shown = displayCommand([[spec.cli, ...spec.head, "--", ...command]]) + serverEnvNote(ctx.serverEnv);
  if (ctx.dryRun) return { status: "would_register", detail: `would run: ${shown}`, config_path_kind: "cli" };
  const r = await runCli(det.bin!, args, ctx);
  if (r.code !== 0) throw cliFailure(det.bin!, args, r);
  return { status: "registered", detail: `ran: ${shown}`, config_path_kind: "cli" };
}
