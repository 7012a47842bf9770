/**
 * What the parent-hook files of the vendor folders share (harnesses/claude/hook_files.ts,
 * harnesses/cursor/hook_files.ts): the status of aiterm's entries in a client's hook file, and the
 * atomic edit that installs or removes them. The hook command is the server command setup registers
 * with `hook <name>` appended: the compiled `aiterm-mcp`, or `deno run -A main.ts` from source.
 */
import { isAbsolute } from "node:path";
import { findExecutable } from "../../../platform/mod.ts";
import type { HookStatus } from "./parent.ts";
import { type ConfigPathKind, SetupFailure, updateJsonConfig } from "./config_file.ts";
import { JsonSyntaxError, parseJsonSpans } from "./json_edit.ts";

/** An environment as the hook readers take it. */
export type Env = Record<string, string | undefined>;

/** Whether aiterm's parent hooks for one client are in place and usable. */
export interface ParentHookStatus {
  /** Every entry present in the installed form, its program exists, and hooks are not disabled. */
  ready: boolean;
  /** Why not ready (a sentence), or null. */
  reason: string | null;
  /**
   * Why not ready, as a code: parent_hooks_missing, parent_hooks_outdated (present, different form),
   * parent_hook_command_missing (the program is gone), claude_hooks_disabled (disableAllHooks),
   * config_invalid (the file cannot be parsed), config_unreadable, or null.
   */
  reason_code: string | null;
  /** The events whose aiterm entry is absent or not usable. */
  missing: string[];
  /** The file that was inspected. */
  config_path: string;
}

const PRIORITY = ["parent_hooks_missing", "parent_hooks_outdated", "parent_hook_command_missing"] as const;
/** What is wrong with one event's entries, worst first. */
export type Problem = typeof PRIORITY[number];

/** True when argv's program resolves to an executable and every absolute path in it exists. */
function runnable(argv: unknown[], env: Env): boolean {
  const [program, ...rest] = argv;
  if (typeof program !== "string" || findExecutable(program, env.PATH) === null) return false;
  for (const a of rest) {
    if (typeof a !== "string" || !isAbsolute(a)) continue;
    try {
      Deno.statSync(a);
    } catch {
      return false;
    }
  }
  return true;
}

/** Reads a config as a plain value: undefined when missing; throws SetupFailure config_invalid / config_unreadable. */
function readConfig(path: string, jsonc: boolean): unknown {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new SetupFailure("config_unreadable", `cannot read ${path}: ${(err as Error).message}`);
  }
  text = text.replace(/^\uFEFF/, "");
  if (text.trim() === "") return {};
  try {
    return parseJsonSpans(text, { jsonc }).value;
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new SetupFailure("config_invalid", `${path}: ${err.message}`);
    throw err;
  }
}

/** The problem with one event's aiterm entries (the best of them counts), or null when one is usable. */
function problemOf(found: { argv: unknown[]; wellFormed: boolean }[], env: Env): Problem | null {
  if (found.length === 0) return "parent_hooks_missing";
  const wellFormed = found.filter((f) => f.wellFormed);
  if (wellFormed.length === 0) return "parent_hooks_outdated";
  return wellFormed.some((f) => runnable(f.argv, env)) ? null : "parent_hook_command_missing";
}

function summarize(
  path: string,
  problems: Map<string, Problem>,
  extra: { code: string; reason: string } | null,
): ParentHookStatus {
  const missing = [...problems.keys()];
  for (const code of PRIORITY) {
    const events = missing.filter((e) => problems.get(e) === code);
    if (events.length === 0) continue;
    const what = code === "parent_hooks_missing"
      ? "no aiterm entry"
      : code === "parent_hooks_outdated"
      ? "an aiterm entry in another form than this version installs"
      : "an aiterm entry whose program does not exist";
    return {
      ready: false,
      reason: `${path} has ${what} for ${events.join(", ")}; run aiterm-mcp setup`,
      reason_code: code,
      missing,
      config_path: path,
    };
  }
  if (extra) return { ready: false, reason: extra.reason, reason_code: extra.code, missing, config_path: path };
  return { ready: true, reason: null, reason_code: null, missing, config_path: path };
}

function failedStatus(path: string, err: unknown, events: readonly string[]): ParentHookStatus {
  const code = err instanceof SetupFailure ? err.reasonCode : "config_invalid";
  return { ready: false, reason: (err as Error).message, reason_code: code, missing: [...events], config_path: path };
}

/** How one client's hook file is read for {@link hookFileStatus}. */
export interface HookFileReader {
  path: string;
  jsonc: boolean;
  /** The events aiterm installs an entry for (one entry each). */
  events: readonly string[];
  /** Throws SetupFailure when the document is not one this client writes (beyond "not an object"). */
  check?(doc: Record<string, unknown>): void;
  /** aiterm's entries under `event`: each with its program argv and whether it is in the installed form. */
  entries(doc: Record<string, unknown>, event: string): { argv: unknown[]; wellFormed: boolean }[];
  /** Why the hooks cannot run although they may be in place (`doc` as read: undefined for no file). */
  blocker?(doc: unknown, problems: ReadonlyMap<string, Problem>): { code: string; reason: string } | null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The state of aiterm's entries in one hook file (read-only; never throws). */
export function hookFileStatus(reader: HookFileReader, env: Env): ParentHookStatus {
  let doc: unknown;
  try {
    doc = readConfig(reader.path, reader.jsonc);
    if (doc !== undefined && !isObject(doc)) {
      throw new SetupFailure("config_invalid", `${reader.path} is not a JSON object`);
    }
    if (isObject(doc)) reader.check?.(doc);
  } catch (err) {
    return failedStatus(reader.path, err, reader.events);
  }
  const root = isObject(doc) ? doc : {};
  const problems = new Map<string, Problem>();
  for (const event of reader.events) {
    const problem = problemOf(reader.entries(root, event), env);
    if (problem) problems.set(event, problem);
  }
  return summarize(reader.path, problems, reader.blocker?.(doc, problems) ?? null);
}

/** What an install or removal did to one file. */
export interface HookFileChange {
  outcome: "unchanged" | "written" | "would_write";
  config_path: string;
  /** What `config_path` was before the change. */
  config_path_kind: ConfigPathKind;
  /** The file actually written (a symlink's target). */
  target: string;
  backup_path?: string;
  /** Removal only: how many aiterm entries were (or would be) removed. */
  removed?: number;
}

/** Options for the install and remove functions. */
export interface HookFileOptions {
  env: Env;
  home: string;
  dryRun: boolean;
}

/** Edits one hook file through `fn` (atomic, backup kept) and says what changed. */
export async function editHookFile(
  path: string,
  jsonc: boolean,
  dryRun: boolean,
  fn: (text: string) => { text: string; removed?: number },
): Promise<HookFileChange> {
  let removed: number | undefined;
  const update = await updateJsonConfig(path, ({ text }) => {
    const r = fn(text);
    removed = r.removed;
    return r.text;
  }, { jsonc, dryRun, createMode: 0o600 });
  return {
    outcome: update.outcome,
    config_path: path,
    config_path_kind: update.kind,
    target: update.target,
    ...(update.backup && update.outcome !== "unchanged" ? { backup_path: update.backup } : {}),
    ...(removed !== undefined ? { removed } : {}),
  };
}

/** A hook status as the delivery core reads it: no paths (diagnostics never shows paths), the reason code and the fix. */
export function hookStatusOf(s: { ready: boolean; reason_code: string | null }): HookStatus {
  if (s.ready) return { ready: true, reason: null };
  const fix = s.reason_code === "claude_hooks_disabled"
    ? "disableAllHooks is set in Claude Code's settings"
    : "run aiterm-mcp setup";
  return { ready: false, reason: `${s.reason_code ?? "parent_hooks_missing"}: ${fix}` };
}
