/** Clients registered by editing a JSON config file (`mcpServers.aiterm`): Claude Code and Cursor. */
import { readJsonConfig, SetupFailure, updateJsonConfig } from "./config_file.ts";
import { memberOf, setNestedMember } from "./json_edit.ts";
import { sameCommand, type ServerCommand } from "./host.ts";
import {
  type ClientContext,
  holdsEnv,
  isObject,
  pathKind,
  type RegisterReport,
  REGISTRATION_NAME,
  serverEnvNote,
} from "./register.ts";

/** A client whose registration is an `mcpServers` entry in a JSON file. */
export interface JsonClientSpec {
  id: "claude" | "cursor";
  label: string;
  jsonc: boolean;
  path(ctx: ClientContext): string;
  /** The entry to write, keeping the fields of an existing one that still apply. */
  build(existing: unknown, server: ServerCommand): Record<string, unknown>;
  matches(existing: unknown, server: ServerCommand): boolean;
}

export function withoutRemoteFields(existing: unknown): Record<string, unknown> {
  const base = isObject(existing) ? { ...existing } : {};
  delete base.url;
  delete base.headers;
  if (base.type !== undefined && base.type !== "stdio") delete base.type;
  return base;
}

/** A stdio entry (no url) whose command is exactly `server`. */
export function stdioEntryMatches(e: unknown, server: ServerCommand): boolean {
  return isObject(e) && (e.type === undefined || e.type === "stdio") && e.url === undefined &&
    sameCommand(e.command, e.args, server);
}

function registeredEntry(root: Parameters<typeof memberOf>[0]): unknown {
  const servers = memberOf(root, "mcpServers");
  if (!servers || servers.node.kind !== "object") return undefined;
  return memberOf(servers.node, REGISTRATION_NAME)?.node.value;
}

/** `spec.matches`, and the entry's `env` holds setup's own entries ({@link ClientContext.serverEnv}). */
function entryMatches(spec: JsonClientSpec, entry: unknown, ctx: ClientContext): boolean {
  return spec.matches(entry, ctx.server) && holdsEnv(isObject(entry) ? entry.env : undefined, ctx.serverEnv);
}

/** `spec.build`, with setup's own env entries added to the entry's `env` (other entries kept). */
function entryFor(spec: JsonClientSpec, existing: unknown, ctx: ClientContext): Record<string, unknown> {
  const entry = spec.build(existing, ctx.server);
  if (Object.keys(ctx.serverEnv ?? {}).length === 0) return entry;
  return { ...entry, env: { ...(isObject(entry.env) ? entry.env : {}), ...ctx.serverEnv } };
}

export async function registerJson(spec: JsonClientSpec, ctx: ClientContext): Promise<RegisterReport> {
  const path = spec.path(ctx);
  const update = await updateJsonConfig(path, ({ text, root }) => {
    const existing = registeredEntry(root);
    if (entryMatches(spec, existing, ctx)) return text;
    const entry = entryFor(spec, existing, ctx);
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
      detail: `would set mcpServers.${REGISTRATION_NAME} in ${update.target}${serverEnvNote(ctx.serverEnv)}` +
        (update.backup ? ` (previous content kept in ${update.backup})` : ""),
      ...common,
    };
  }
  return {
    status: "registered",
    detail: `set mcpServers.${REGISTRATION_NAME} in ${update.target}${serverEnvNote(ctx.serverEnv)}` +
      (update.backup ? ` (previous content kept in ${update.backup})` : ""),
    ...common,
  };
}

export async function readBackJson(spec: JsonClientSpec, ctx: ClientContext): Promise<string> {
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
  if (!entryMatches(spec, entry, ctx)) {
    throw new SetupFailure(
      "config_readback_failed",
      `${target} does not hold the aiterm entry that was written (another program may have rewritten it)`,
    );
  }
  return `${target} holds mcpServers.${REGISTRATION_NAME}`;
}
