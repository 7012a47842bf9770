/** Resolves a program name through PATH (or accepts an absolute path), like `command -v`. */
import { delimiter, isAbsolute, join } from "node:path";

function isExecutableFile(path: string): boolean {
  try {
    const st = Deno.statSync(path);
    if (!st.isFile) return false;
    if (Deno.build.os === "windows") return true;
    return st.mode !== null && (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The absolute path of `program`, or null. Absolute paths are checked as they are. */
export function findExecutable(program: string, pathEnv: string | undefined): string | null {
  if (program.includes("/") || (Deno.build.os === "windows" && program.includes("\\"))) {
    return isAbsolute(program) && isExecutableFile(program) ? program : null;
  }
  const exts = Deno.build.os === "windows" ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of (pathEnv ?? "").split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = join(dir, program + ext);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return null;
}
