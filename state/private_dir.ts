/** Owner-only directories: created 0700; an existing one others could have planted files in is refused. */
import { AppError } from "../base/errors.ts";
import { currentUid } from "../platform/mod.ts";

/** Why an existing directory must not be used (STATE_ROOT_UNSAFE), or null when it may be. */
export function privateDirProblem(st: Deno.FileInfo, uid: number | null): string | null {
  if (st.isSymlink) return "it is a symbolic link";
  if (!st.isDirectory) return null;
  if (Deno.build.os === "windows") return null;
  if (uid !== null && st.uid !== null && st.uid !== uid) return `it belongs to uid ${st.uid}, not ${uid}`;
  const mode = (st.mode ?? 0) & 0o7777;
  if ((mode & 0o022) !== 0) {
    return `its mode is ${mode.toString(8).padStart(4, "0")}: group or others can write into it`;
  }
  return null;
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw new AppError("STATE_ROOT_INVALID", `Cannot inspect the state directory: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * Creates `path` (and parents) owner-only, or checks an existing one. A directory that already
 * existed with group/other write bits, as a symlink, or owned by someone else is refused, never
 * chmod-ed and used: whatever was planted in it would stay. Only read/search bits on our own
 * directory are removed (nobody else could have written into it). A directory we just created gets
 * exactly 0700 (the umask may have removed owner bits).
 * @throws {AppError} STATE_ROOT_UNSAFE, STATE_ROOT_INVALID
 */
export function ensurePrivateDir(path: string): void {
  const existed = lstatOrNull(path) !== null;
  try {
    Deno.mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new AppError("STATE_ROOT_INVALID", `Cannot create the state directory: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const st = lstatOrNull(path);
  if (st === null) throw new AppError("STATE_ROOT_INVALID", "Cannot use the state directory: it vanished");
  const problem = privateDirProblem(st, currentUid());
  if (problem) {
    throw new AppError("STATE_ROOT_UNSAFE", `Cannot use the state directory "${path}": ${problem}`, {
      data: { path },
      suggestion: "nothing was run or changed; remove it after checking its content (aiterm creates it again, " +
        "owner-only), or point AITERM_STATE_DIR elsewhere",
    });
  }
  if (!st.isDirectory) {
    throw new AppError("STATE_ROOT_INVALID", "Cannot use the state directory: it is not a directory", {
      suggestion: "remove the file, or point AITERM_STATE_DIR elsewhere",
    });
  }
  if (Deno.build.os === "windows" || st.mode === null) return;
  const mode = st.mode & 0o777;
  if (existed ? (mode & 0o077) !== 0 : mode !== 0o700) Deno.chmodSync(path, 0o700);
}
