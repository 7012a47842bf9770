/**
 * Each AI client's registration format, in one place: how the client is detected, how aiterm is
 * registered in it, and how the registration is read back.
 *
 * - Claude Code: `mcpServers.aiterm` in `~/.claude.json` (user scope; `$CLAUDE_CONFIG_DIR/.claude.json`
 *   when set), edited here, then read back from the file and with `claude mcp get aiterm`, which
 *   starts the server and health-checks it.
 * - Cursor: `mcpServers.aiterm` in `~/.cursor/mcp.json` (JSONC tolerated), edited and read back here.
 * - Codex: `codex mcp add aiterm -- <command…>`, read back with `codex mcp get aiterm --json`.
 * - Grok Build: `grok mcp add --scope user aiterm -- <command…>`, read back with `grok mcp list --json`.
 */
import { parse as parseToml } from "smol-toml";
import { claudeBinary } from "../harnesses/claude/mod.ts";
import { codexBinary } from "../harnesses/codex/mod.ts";
import { cursorBinary } from "../harnesses/cursor/mod.ts";
import { grokBinary } from "../harnesses/grok/mod.ts";
import { resolveBinary } from "../harnesses/mod.ts";
import { SERVER_NAME } from "../base/version.ts";
import { type ConfigPathKind, readJsonConfig, SetupFailure, updateJsonConfig } from "./config_file.ts";
import { memberOf, setNestedMember } from "./json_edit.ts";
import { clientConfigPaths, displayCommand } from "./platform_deps.ts";
import { sameCommand, type ServerCommand } from "./server_command.ts";

/** The clients setup knows, in the order it handles them. */
export const CLIENT_IDS = ["claude", "codex", "cursor", "grok"] as const;
/** One of {@link CLIENT_IDS}. */
export type ClientId = typeof CLIENT_IDS[number];

/** The name aiterm is registered under in every client. */
export const REGISTRATION_NAME = SERVER_NAME;

/** What every client step gets. */
export interface ClientContext {
  env: Record<string, string>;
  home: string;
  dryRun: boolean;
  server: ServerCommand;
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

const decoder = new TextDecoder();
const CLI_TIMEOUT_MS = 90_000;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function runCli(bin: string, args: string[], ctx: ClientContext): Promise<CliResult> {
  try {
    const out = await new Deno.Command(bin, {
      args,
      cwd: ctx.home,
      env: ctx.env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(CLI_TIMEOUT_MS),
    }).output();
    return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
  } catch (err) {
    const why = (err as Error).name === "AbortError" || (err as Error).name === "TimeoutError"
      ? `timed out after ${CLI_TIMEOUT_MS / 1000}s`
      : (err as Error).message;
    throw new SetupFailure("cli_failed", `cannot run ${bin} ${args.slice(0, 2).join(" ")}: ${why}`);
  }
}

function firstLine(text: string): string {
  return text.split("\n").map((l) => l.trim()).find((l) => l.length > 0)?.slice(0, 300) ?? "";
}

function cliFailure(bin: string, args: string[], r: CliResult): SetupFailure {
  return new SetupFailure(
    "cli_failed",
    `${bin.split(/[\\/]/).pop()} ${args.slice(0, 3).join(" ")} exited with ${r.code}: ${
      firstLine(r.stderr) || firstLine(r.stdout) || "no output"
    }`,
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

function pathKind(kind: ConfigPathKind): "file" | "symlink" | "created" {
  return kind === "missing" ? "created" : kind;
}

function stringEnv(v: unknown): [string, string][] {
  if (!isObject(v)) return [];
  return Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string");
}

// ---------------------------------------------------------------------------------------------
// JSON-file clients (Claude Code, Cursor)

interface JsonClientSpec {
  id: "claude" | "cursor";
  label: string;
  jsonc: boolean;
  path(ctx: ClientContext): string;
  /** The entry to write, keeping the fields of an existing one that still apply. */
  build(existing: unknown, server: ServerCommand): Record<string, unknown>;
  matches(existing: unknown, server: ServerCommand): boolean;
}

function withoutRemoteFields(existing: unknown): Record<string, unknown> {
  const base = isObject(existing) ? { ...existing } : {};
  delete base.url;
  delete base.headers;
  if (base.type !== undefined && base.type !== "stdio") delete base.type;
  return base;
}

const CLAUDE_SPEC: JsonClientSpec = {
  id: "claude",
  label: "Claude Code",
  jsonc: false,
  path: (ctx) => clientConfigPaths(ctx.env, ctx.home).claude,
  // The shape `claude mcp add -s user` writes: {type, command, args, env}.
  build: (existing, server) => {
    const base = withoutRemoteFields(existing);
    return {
      ...base,
      type: "stdio",
      command: server.command,
      args: server.args,
      env: isObject(base.env) ? base.env : {},
    };
  },
  matches: (e, server) =>
    isObject(e) && (e.type === undefined || e.type === "stdio") && e.url === undefined &&
    sameCommand(e.command, e.args, server),
};

const CURSOR_SPEC: JsonClientSpec = {
  id: "cursor",
  label: "Cursor",
  jsonc: true,
  path: (ctx) => clientConfigPaths(ctx.env, ctx.home).cursor,
  // Cursor's documented stdio shape: {command, args, env?}.
  build: (existing, server) => ({ ...withoutRemoteFields(existing), command: server.command, args: server.args }),
  matches: (e, server) =>
    isObject(e) && (e.type === undefined || e.type === "stdio") && e.url === undefined &&
    sameCommand(e.command, e.args, server),
};

function registeredEntry(root: Parameters<typeof memberOf>[0]): unknown {
  const servers = memberOf(root, "mcpServers");
  if (!servers || servers.node.kind !== "object") return undefined;
  return memberOf(servers.node, REGISTRATION_NAME)?.node.value;
}

async function registerJson(spec: JsonClientSpec, ctx: ClientContext): Promise<RegisterReport> {
  const path = spec.path(ctx);
  const update = await updateJsonConfig(path, ({ text, root }) => {
    const existing = registeredEntry(root);
    if (spec.matches(existing, ctx.server)) return text;
    const entry = spec.build(existing, ctx.server);
    // A new (or blank) file is written whole, in the two-space layout the clients use themselves.
    if (text.trim() === "") return JSON.stringify({ mcpServers: { [REGISTRATION_NAME]: entry } }, null, 2) + "\n";
    return setNestedMember(text, root, "mcpServers", REGISTRATION_NAME, entry);
  }, { jsonc: spec.jsonc, dryRun: ctx.dryRun, createMode: 0o600 });
  const common = {
    config_path: path,
    config_path_kind: pathKind(update.kind),
    ...(update.backup ? { backup_path: update.backup } : {}),
  };
  if (update.outcome === "unchanged") {
    return { status: "already_registered", detail: `${update.target} already registers aiterm`, ...common };
  }
  if (update.outcome === "would_write") {
    return {
      status: "would_register",
      detail: `would set mcpServers.${REGISTRATION_NAME} in ${update.target}` +
        (update.backup ? ` (previous content kept in ${update.backup})` : ""),
      ...common,
    };
  }
  return {
    status: "registered",
    detail: `set mcpServers.${REGISTRATION_NAME} in ${update.target}` +
      (update.backup ? ` (previous content kept in ${update.backup})` : ""),
    ...common,
  };
}

async function readBackJson(spec: JsonClientSpec, ctx: ClientContext): Promise<string> {
  const path = spec.path(ctx);
  let target = path;
  try {
    target = await Deno.realPath(path);
  } catch {
    throw new SetupFailure("config_readback_failed", `${path} does not exist after registration`);
  }
  let entry: unknown;
  try {
    entry = registeredEntry((await readJsonConfig(target, spec.jsonc)).root);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new SetupFailure("config_readback_failed", `cannot read ${target} back: ${why}`);
  }
  if (!spec.matches(entry, ctx.server)) {
    throw new SetupFailure(
      "config_readback_failed",
      `${target} does not hold the aiterm entry that was written (another program may have rewritten it)`,
    );
  }
  return `${target} holds mcpServers.${REGISTRATION_NAME}`;
}

/** Parses `claude mcp get <name>` output: its Scope, Status, Issue and Command lines. */
export function parseClaudeMcpGet(text: string): { scope?: string; status?: string; issue?: string; command?: string } {
  const field = (name: string) => new RegExp(`^\\s*${name}:[ \\t]*(.*)$`, "m").exec(text)?.[1]?.trim();
  const out: { scope?: string; status?: string; issue?: string; command?: string } = {};
  const scope = field("Scope");
  const status = field("Status");
  const issue = field("Issue");
  const command = field("Command");
  if (scope !== undefined) out.scope = scope;
  if (status !== undefined) out.status = status;
  if (issue !== undefined) out.issue = issue;
  if (command !== undefined) out.command = command;
  return out;
}

const claude: ClientIntegration = {
  id: "claude",
  label: "Claude Code",
  async detect(ctx) {
    const bin = resolveBinary(claudeBinary, ctx.env);
    const path = CLAUDE_SPEC.path(ctx);
    const config = await exists(path);
    if (bin) return { found: true, bin, how: `claude CLI at ${bin}` };
    if (config) return { found: true, bin: null, how: `${path} exists (claude CLI not found)` };
    return { found: false, bin: null, how: `no claude CLI (CLAUDE_BIN, ~/.claude/local, PATH) and no ${path}` };
  },
  register: (ctx) => registerJson(CLAUDE_SPEC, ctx),
  async readBack(ctx, det) {
    const fromFile = await readBackJson(CLAUDE_SPEC, ctx);
    if (!det.bin) return { detail: `${fromFile}; claude CLI not found, so no health check`, health: "not_checked" };
    const args = ["mcp", "get", REGISTRATION_NAME];
    const r = await runCli(det.bin, args, ctx);
    if (r.code !== 0) throw cliFailure(det.bin, args, r);
    const got = parseClaudeMcpGet(r.stdout);
    if (!got.scope || !/user/i.test(got.scope)) {
      throw new SetupFailure(
        "shadowed_by_other_scope",
        `claude mcp get aiterm resolves to the "${got.scope ?? "unknown"}" entry, not the user config; ` +
          `remove that one with: claude mcp remove aiterm`,
      );
    }
    if (got.command !== ctx.server.command) {
      throw new SetupFailure("config_readback_failed", "claude mcp get aiterm shows a different command");
    }
    if (!got.status || !/connected/i.test(got.status) || /fail/i.test(got.status)) {
      throw new SetupFailure(
        "health_check_failed",
        `claude mcp get aiterm: ${got.status ?? "no status"}${got.issue ? ` (${got.issue})` : ""}`,
      );
    }
    return { detail: `${fromFile}; claude mcp get aiterm: ${got.status}`, health: "connected" };
  },
};

const cursor: ClientIntegration = {
  id: "cursor",
  label: "Cursor",
  async detect(ctx) {
    const dir = clientConfigPaths(ctx.env, ctx.home).cursorDir;
    const bin = resolveBinary(cursorBinary, ctx.env);
    if (await isDir(dir)) return { found: true, bin, how: `${dir} exists` };
    if (bin) return { found: true, bin, how: `cursor-agent at ${bin}` };
    return { found: false, bin: null, how: `no ${dir} and no cursor-agent (CURSOR_AGENT_BIN, ~/.local/bin, PATH)` };
  },
  register: (ctx) => registerJson(CURSOR_SPEC, ctx),
  async readBack(ctx) {
    return { detail: await readBackJson(CURSOR_SPEC, ctx) };
  },
};

// ---------------------------------------------------------------------------------------------
// CLI clients (Codex, Grok)

/** The stdio transport of a `codex mcp get --json` entry, or null for another shape. */
export function codexTransport(entry: unknown): { command: unknown; args: unknown; env: unknown } | null {
  if (!isObject(entry)) return null;
  const t = entry.transport;
  if (!isObject(t) || t.type !== "stdio") return null;
  return { command: t.command, args: t.args, env: t.env };
}

async function codexGet(bin: string, ctx: ClientContext): Promise<Record<string, unknown> | null> {
  const args = ["mcp", "get", REGISTRATION_NAME, "--json"];
  const r = await runCli(bin, args, ctx);
  if (r.code !== 0) {
    if (/no mcp server named/i.test(r.stderr + r.stdout)) return null;
    throw cliFailure(bin, args, r);
  }
  try {
    const v = JSON.parse(r.stdout);
    if (isObject(v)) return v;
  } catch {
    // reported below
  }
  throw new SetupFailure("cli_failed", "codex mcp get aiterm --json did not print a JSON object");
}

function codexMatches(
  entry: Record<string, unknown> | null,
  server: ServerCommand,
  env: Record<string, string | undefined>,
): boolean {
  const t = codexTransport(entry);
  const home = env.CODEX_HOME;
  // Codex starts MCP servers with a cleared environment: a non-default CODEX_HOME must be registered
  // with the server, or parent delivery would look for the parent's thread in ~/.codex.
  const homeOk = !home || new Map(stringEnv(t?.env)).get("CODEX_HOME") === home;
  return t !== null && entry?.enabled !== false && sameCommand(t.command, t.args, server) && homeOk;
}

/** The server's env entries for Codex: the user's own, plus CODEX_HOME when it is set here. */
function codexServerEnv(
  existing: Record<string, unknown> | null,
  env: Record<string, string | undefined>,
): [string, string][] {
  const entries = new Map(stringEnv(codexTransport(existing)?.env));
  if (env.CODEX_HOME) entries.set("CODEX_HOME", env.CODEX_HOME);
  return [...entries];
}

const codex: ClientIntegration = {
  id: "codex",
  label: "Codex CLI",
  detect(ctx) {
    const bin = resolveBinary(codexBinary, ctx.env);
    return Promise.resolve(
      bin
        ? { found: true, bin, how: `codex CLI at ${bin}` }
        : { found: false, bin: null, how: "no codex CLI (CODEX_BIN, PATH)" },
    );
  },
  async register(ctx, det) {
    const bin = det.bin!;
    const existing = await codexGet(bin, ctx);
    if (codexMatches(existing, ctx.server, ctx.env)) {
      return {
        status: "already_registered",
        detail: "codex mcp get aiterm shows the same command",
        config_path_kind: "cli",
      };
    }
    // Keep the user's environment entries for the server (values are passed, never printed).
    const env = codexServerEnv(existing, ctx.env).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
    const args = ["mcp", "add", REGISTRATION_NAME, ...env, "--", ctx.server.command, ...ctx.server.args];
    const shown = displayCommand([[
      "codex",
      "mcp",
      "add",
      REGISTRATION_NAME,
      "--",
      ctx.server.command,
      ...ctx.server.args,
    ]]);
    if (ctx.dryRun) return { status: "would_register", detail: `would run: ${shown}`, config_path_kind: "cli" };
    const r = await runCli(bin, args, ctx);
    if (r.code !== 0) throw cliFailure(bin, args.slice(0, 3), r);
    return { status: "registered", detail: `ran: ${shown}`, config_path_kind: "cli" };
  },
  async readBack(ctx, det) {
    const entry = await codexGet(det.bin!, ctx);
    if (!entry) {
      throw new SetupFailure("config_readback_failed", "codex mcp get aiterm finds no server after adding it");
    }
    if (!codexMatches(entry, ctx.server, ctx.env)) {
      throw new SetupFailure("config_readback_failed", "codex mcp get aiterm shows a different or disabled server");
    }
    return { detail: "codex mcp get aiterm --json shows the aiterm command, enabled" };
  },
};

/** Finds the entry called `name` in `grok mcp list --json` output, whatever its container shape. */
export function findGrokEntry(value: unknown, name: string, depth = 0): Record<string, unknown> | null {
  if (depth > 3) return null;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (isObject(item) && item.name === name) return item;
    }
    for (const item of value) {
      const hit = findGrokEntry(item, name, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  if (!isObject(value)) return null;
  if (value.name === name) return value;
  const direct = value[name];
  if (isObject(direct)) return { name, ...direct };
  for (const key of ["servers", "mcp_servers", "mcpServers", "user"]) {
    const hit = findGrokEntry(value[key], name, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/** `{command, args}` of a grok list entry (flat, or under transport/config), or null when not shown. */
export function grokCommand(entry: Record<string, unknown>): { command: unknown; args: unknown } | null {
  for (const holder of [entry, entry.transport, entry.config]) {
    if (isObject(holder) && typeof holder.command === "string") return { command: holder.command, args: holder.args };
  }
  return null;
}

async function grokConfigEntry(ctx: ClientContext): Promise<Record<string, unknown> | null> {
  const path = clientConfigPaths(ctx.env, ctx.home).grok;
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return null;
  }
  try {
    const doc = parseToml(text) as Record<string, unknown>;
    const servers = doc.mcp_servers;
    const entry = isObject(servers) ? servers[REGISTRATION_NAME] : undefined;
    return isObject(entry) ? entry : null;
  } catch {
    return null;
  }
}

const grok: ClientIntegration = {
  id: "grok",
  label: "Grok Build",
  detect(ctx) {
    const bin = resolveBinary(grokBinary, ctx.env);
    return Promise.resolve(
      bin
        ? { found: true, bin, how: `grok CLI at ${bin}` }
        : { found: false, bin: null, how: "no grok CLI (GROK_BIN, ~/.grok/bin, PATH)" },
    );
  },
  async register(ctx, det) {
    // Grok's own user config decides whether anything needs to change (its list also shows servers
    // it borrows from ~/.claude.json and ~/.cursor/mcp.json, which must not count as Grok's own).
    const existing = await grokConfigEntry(ctx);
    if (
      existing && existing.enabled !== false && existing.url === undefined &&
      sameCommand(existing.command, existing.args, ctx.server)
    ) {
      return {
        status: "already_registered",
        detail: "grok's user config already registers aiterm",
        config_path_kind: "cli",
      };
    }
    const env = stringEnv(existing?.env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
    const head = ["mcp", "add", "--scope", "user", REGISTRATION_NAME];
    const args = [...head, ...env, "--", ctx.server.command, ...ctx.server.args];
    const shown = displayCommand([["grok", ...head, "--", ctx.server.command, ...ctx.server.args]]);
    if (ctx.dryRun) return { status: "would_register", detail: `would run: ${shown}`, config_path_kind: "cli" };
    const r = await runCli(det.bin!, args, ctx);
    if (r.code !== 0) throw cliFailure(det.bin!, head, r);
    return { status: "registered", detail: `ran: ${shown}`, config_path_kind: "cli" };
  },
  async readBack(ctx, det) {
    const args = ["mcp", "list", "--json"];
    const r = await runCli(det.bin!, args, ctx);
    if (r.code !== 0) throw cliFailure(det.bin!, args, r);
    let listed: unknown;
    try {
      listed = JSON.parse(r.stdout);
    } catch {
      throw new SetupFailure("config_readback_failed", "grok mcp list --json did not print JSON");
    }
    const entry = findGrokEntry(listed, REGISTRATION_NAME);
    if (!entry) throw new SetupFailure("config_readback_failed", "grok mcp list --json does not list aiterm");
    if (entry.enabled === false) {
      throw new SetupFailure(
        "client_disabled",
        "grok lists aiterm as disabled; enable it with: grok mcp enable aiterm",
      );
    }
    const cmd = grokCommand(entry);
    if (cmd && !sameCommand(cmd.command, cmd.args, ctx.server)) {
      throw new SetupFailure("config_readback_failed", "grok mcp list --json shows a different command for aiterm");
    }
    return { detail: `grok mcp list --json lists aiterm${cmd ? " with the same command" : ""}` };
  },
};

/** Every client integration, in {@link CLIENT_IDS} order. */
export const CLIENTS: Record<ClientId, ClientIntegration> = { claude, codex, cursor, grok };
