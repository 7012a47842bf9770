/**
 * Safe updates of a user's JSON config file. A symlinked config is followed and its target is
 * updated. A file that cannot be parsed, or that is read-only, is reported and left untouched. The
 * previous content is kept in `<target>.aiterm-backup` before the change, and the new content
 * replaces the target atomically (temp file beside it, fsync, rename), so no reader, and no crash,
 * ever sees half a file.
 */
import { basename, dirname, join } from "node:path";
import { replaceFile } from "../../../base/atomic.ts";
import { fileModeFor, isReadOnlyFile } from "./host.ts";
import { type JsonNode, JsonShapeError, JsonSyntaxError, parseJsonSpans } from "./json_edit.ts";

const BOM = "\uFEFF";

/** A failure with a reason code for the setup result. */
export class SetupFailure extends Error {
  override readonly name = "SetupFailure";
  constructor(readonly reasonCode: string, message: string) {
    super(message);
  }
}

/** How the config path was found. */
export type ConfigPathKind = "file" | "symlink" | "missing";

/** What an edit of a config file did (or would do). */
export interface ConfigUpdate {
  outcome: "unchanged" | "written" | "would_write";
  kind: ConfigPathKind;
  /** The file that was (or would be) written: the symlink's target for a symlink. */
  target: string;
  /** Where the previous content was saved (absent when the file did not exist or nothing changed). */
  backup?: string;
}

/** The parsed current content handed to an edit. */
export interface ConfigContent {
  /** Text without a BOM (empty when the file does not exist). */
  text: string;
  /** Span tree of `text` (an empty object when the file does not exist or is blank). */
  root: JsonNode;
}

/** Test hooks (fault injection); production passes none. */
export interface WriteHooks {
  /** Called after the temp file is written and synced, before it is renamed over the target. */
  beforeRename?: (tempPath: string) => void | Promise<void>;
}

/** Options for {@link updateJsonConfig}. */
export interface UpdateOptions {
  /** Accept comments and trailing commas. */
  jsonc: boolean;
  dryRun: boolean;
  /** Mode of a newly created file (default 0600). */
  createMode?: number;
  hooks?: WriteHooks;
}

const BACKUP_SUFFIX = ".aiterm-backup";
const TEMP_RE = /\.aiterm-[0-9a-f]{12}\.tmp$/;

/** Where `path`'s content is backed up. */
export function backupPathFor(target: string): string {
  return target + BACKUP_SUFFIX;
}

function tempPathFor(target: string): string {
  return `${target}.aiterm-${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}.tmp`;
}

/** Resolves a config path: a symlink to its final target. Throws config_invalid for a dangling link. */
async function resolveTarget(path: string): Promise<{ kind: ConfigPathKind; target: string }> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { kind: "missing", target: path };
    throw new SetupFailure("config_unreadable", `cannot inspect ${path}: ${(err as Error).message}`);
  }
  if (!info.isSymlink) return { kind: "file", target: path };
  try {
    return { kind: "symlink", target: await Deno.realPath(path) };
  } catch {
    throw new SetupFailure("config_invalid", `${path} is a symlink to a file that does not exist`);
  }
}

/** Reads and parses a config file (BOM tolerated). Missing or blank files read as `{}`. */
export async function readJsonConfig(
  target: string,
  jsonc: boolean,
): Promise<ConfigContent & { bom: boolean; bytes: Uint8Array | null; info: Deno.FileInfo | null }> {
  let bytes: Uint8Array;
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(target);
    if (!info.isFile) throw new SetupFailure("config_invalid", `${target} is not a regular file`);
    bytes = await Deno.readFile(target);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      return { text: "", root: parseJsonSpans("{}", { jsonc }), bom: false, bytes: null, info: null };
    }
    if (err instanceof SetupFailure) throw err;
    throw new SetupFailure("config_unreadable", `cannot read ${target}: ${(err as Error).message}`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new SetupFailure("config_invalid", `${target} is not valid UTF-8`);
  }
  const bom = text.startsWith(BOM);
  if (bom) text = text.slice(1);
  if (text.trim() === "") return { text, root: parseJsonSpans("{}", { jsonc }), bom, bytes, info };
  try {
    return { text, root: parseJsonSpans(text, { jsonc }), bom, bytes, info };
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      throw new SetupFailure(
        "config_invalid",
        `${target} is not valid ${jsonc ? "JSON/JSONC" : "JSON"}: ${err.message}`,
      );
    }
    throw err;
  }
}

/**
 * Writes `data` to `target` atomically with permission bits `mode` (base/atomic.ts's replaceFile): a
 * temp file in the same directory named as {@link removeStaleTemps} knows it, fsync, rename over the
 * target, fsync of the directory. The temp file is removed on failure.
 */
export async function writeFileAtomically(
  target: string,
  data: Uint8Array,
  mode: number,
  hooks: WriteHooks = {},
): Promise<void> {
  await replaceFile(target, data, {
    mode,
    syncDir: true,
    tempName: tempPathFor,
    ...(hooks.beforeRename ? { beforeRename: hooks.beforeRename } : {}),
  });
}

/** Removes temp files an interrupted earlier run left beside `target` (only our own naming pattern). */
async function removeStaleTemps(target: string): Promise<void> {
  const base = basename(target);
  try {
    for await (const e of Deno.readDir(dirname(target))) {
      if (e.isFile && e.name.startsWith(base + ".aiterm-") && TEMP_RE.test(e.name)) {
        await Deno.remove(join(dirname(target), e.name)).catch(() => {});
      }
    }
  } catch {
    // best effort
  }
}

function writeFailure(target: string, err: unknown): SetupFailure {
  if (err instanceof Deno.errors.PermissionDenied) {
    return new SetupFailure("config_readonly", `cannot write ${target}: permission denied; nothing was changed`);
  }
  return new SetupFailure(
    "config_write_failed",
    `cannot write ${target}: ${(err as Error).message}; nothing was changed`,
  );
}

/**
 * Applies `edit` to the JSON config at `path`. `edit` returns the new text (without BOM), or the
 * same text when nothing needs to change. Throws {@link SetupFailure}: config_invalid (unparsable,
 * wrong shape, dangling symlink), config_readonly, config_unreadable, config_write_failed.
 */
export async function updateJsonConfig(
  path: string,
  edit: (content: ConfigContent) => string,
  options: UpdateOptions,
): Promise<ConfigUpdate> {
  const { kind, target } = await resolveTarget(path);
  const current = await readJsonConfig(target, options.jsonc);
  let next: string;
  try {
    next = edit({ text: current.text, root: current.root });
  } catch (err) {
    if (err instanceof JsonShapeError) throw new SetupFailure("config_invalid", `${target}: ${err.message}`);
    throw err;
  }
  if (next === current.text) return { outcome: "unchanged", kind, target };
  if (current.info && isReadOnlyFile(current.info)) {
    throw new SetupFailure("config_readonly", `${target} is read-only; nothing was changed`);
  }
  const backup = current.bytes ? backupPathFor(target) : undefined;
  if (options.dryRun) return { outcome: "would_write", kind, target, ...(backup ? { backup } : {}) };

  const mode = current.info ? fileModeFor(current.info) : options.createMode ?? 0o600;
  await removeStaleTemps(target);
  try {
    await Deno.mkdir(dirname(target), { recursive: true, mode: 0o700 });
    if (current.bytes && backup) await writeFileAtomically(backup, current.bytes, mode);
    await writeFileAtomically(target, new TextEncoder().encode((current.bom ? BOM : "") + next), mode, options.hooks);
  } catch (err) {
    throw writeFailure(target, err);
  }
  return { outcome: "written", kind, target, ...(backup ? { backup } : {}) };
}
