/**
 * The one atomic file writer: the new content goes to a temp file beside the target (created new,
 * owner-only unless told otherwise), optionally synced, then renamed over the target. A reader sees the
 * old file or the new one, whole, even when the writer is SIGKILLed midway; a failed write removes its
 * temp file and leaves the target as it was.
 *
 * Errors are the runtime's own (`Deno.errors.*`): each caller says what failed in its own words
 * (state/ turns them into STATE_WRITE_FAILED). Every layer may use it; it needs nothing but Deno.
 */
import { dirname } from "node:path";

const encoder = new TextEncoder();

/** Options for {@link replaceFile} and {@link replaceFileSync}. */
export interface ReplaceOptions {
  /** fsync the temp file before the rename (default true). Skip it for hot, rebuildable files. */
  sync?: boolean;
  /** Permission bits of the new file (default 0o600). Set exactly (past the umask) when given. */
  mode?: number;
  /**
   * fsync the directory after the rename too (default false), so the rename itself survives a power loss
   * (a user's config file). A filesystem that cannot sync a directory is not an error; skipped on Windows.
   */
  syncDir?: boolean;
  /** Names the temp file beside `path` (default {@link atomicTempName}), for a caller that sweeps its own leftovers. */
  tempName?: (path: string) => string;
  /** Runs after the temp file is complete, before the rename (tests use it to stop a write midway). */
  beforeRename?: (tempPath: string) => void | Promise<void>;
}

/** A fresh temp name beside `path`: `<path>.<12 hex>.tmp`. */
export function atomicTempName(path: string): string {
  return `${path}.${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}.tmp`;
}

/**
 * Replaces `path` with `data` atomically (see the module doc).
 * @throws the runtime's error; the temp file is gone and the target unchanged
 */
export async function replaceFile(
  path: string,
  data: string | Uint8Array,
  options: ReplaceOptions = {},
): Promise<void> {
  const tmp = (options.tempName ?? atomicTempName)(path);
  const mode = options.mode ?? 0o600;
  try {
    const file = await Deno.open(tmp, { write: true, createNew: true, mode });
    try {
      const bytes = typeof data === "string" ? encoder.encode(data) : data;
      let off = 0;
      while (off < bytes.length) off += await file.write(bytes.subarray(off));
      if (options.sync !== false) await file.sync();
    } finally {
      file.close();
    }
    // The umask narrowed `mode` at creation; a caller that asked for bits gets exactly them.
    if (options.mode !== undefined && Deno.build.os !== "windows") await Deno.chmod(tmp, mode);
    await options.beforeRename?.(tmp);
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
  if (options.syncDir && Deno.build.os !== "windows") {
    // Best effort: some filesystems cannot sync a directory; the rename is atomic all the same.
    const dir = await Deno.open(dirname(path), { read: true }).catch(() => null);
    if (dir) await dir.sync().catch(() => {}).finally(() => dir.close());
  }
}

/**
 * {@link replaceFile}, synchronously (small local files on a path where a hop to the I/O pool costs more).
 * `beforeRename` must not be async here.
 * @throws the runtime's error; the temp file is gone and the target unchanged
 */
export function replaceFileSync(path: string, data: string | Uint8Array, options: ReplaceOptions = {}): void {
  const tmp = (options.tempName ?? atomicTempName)(path);
  const mode = options.mode ?? 0o600;
  try {
    const file = Deno.openSync(tmp, { write: true, createNew: true, mode });
    try {
      const bytes = typeof data === "string" ? encoder.encode(data) : data;
      let off = 0;
      while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
      if (options.sync !== false) file.syncSync();
    } finally {
      file.close();
    }
    if (options.mode !== undefined && Deno.build.os !== "windows") Deno.chmodSync(tmp, mode);
    void options.beforeRename?.(tmp);
    Deno.renameSync(tmp, path);
  } catch (err) {
    try {
      Deno.removeSync(tmp);
    } catch {
      // not there
    }
    throw err;
  }
  if (options.syncDir) syncDirSync(dirname(path));
}

/** fsyncs a directory (best effort: some filesystems cannot; the rename is atomic all the same). */
function syncDirSync(dir: string): void {
  if (Deno.build.os === "windows") return;
  try {
    const handle = Deno.openSync(dir, { read: true });
    try {
      handle.syncSync();
    } finally {
      handle.close();
    }
  } catch {
    // a directory this filesystem cannot sync
  }
}
