/** Owner-only directories: created 0700, refused when they are links or belong to someone else. */
import { AppError } from "../errors.ts";
import { currentUid } from "../../platform/mod.ts";

/**
 * Creates `path` (and parents) owner-only, or checks an existing one: a real directory (not a
 * symlink), owned by this user, with no group/other bits. Loose bits on our own directory are
 * tightened; anything else is STATE_ROOT_INVALID.
 * @throws {AppError} STATE_ROOT_INVALID
 */
export function ensurePrivateDir(path: string): void {
  try {
    Deno.mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new AppError("STATE_ROOT_INVALID", `Cannot create the state directory: ${(err as Error).message}`, {
      cause: err,
    });
  }
  let st: Deno.FileInfo;
  try {
    st = Deno.lstatSync(path);
  } catch (err) {
    throw new AppError("STATE_ROOT_INVALID", `Cannot inspect the state directory: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (st.isSymlink || !st.isDirectory) {
    throw new AppError("STATE_ROOT_INVALID", "Cannot use the state directory: it is not a real directory", {
      suggestion: "remove the link or file, or point AITERM_STATE_DIR elsewhere",
    });
  }
  if (Deno.build.os === "windows") return;
  const uid = currentUid();
  if (uid !== null && st.uid !== null && st.uid !== uid) {
    throw new AppError("STATE_ROOT_INVALID", `Cannot use the state directory: it belongs to uid ${st.uid}, not ${uid}`);
  }
  if (st.mode !== null && (st.mode & 0o077) !== 0) {
    Deno.chmodSync(path, 0o700);
  }
}
