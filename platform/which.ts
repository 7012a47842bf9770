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

/** The first bytes of a program the kernel runs itself: ELF, Mach-O (thin, either byte order) and universal. */
const BINARY_MAGICS: readonly (readonly number[])[] = [
  [0x7f, 0x45, 0x4c, 0x46],
  [0xfe, 0xed, 0xfa, 0xce],
  [0xfe, 0xed, 0xfa, 0xcf],
  [0xce, 0xfa, 0xed, 0xfe],
  [0xcf, 0xfa, 0xed, 0xfe],
  [0xca, 0xfe, 0xba, 0xbe],
];

/** Up to `n` first bytes of a file; null when it cannot be read (an execute-only binary: no way to tell). */
function headOf(path: string, n: number): Uint8Array | null {
  let file: Deno.FsFile | null = null;
  try {
    file = Deno.openSync(path, { read: true });
    const buf = new Uint8Array(n);
    let got = 0;
    while (got < n) {
      const r = file.readSync(buf.subarray(got));
      if (r === null || r === 0) break;
      got += r;
    }
    return buf.subarray(0, got);
  } catch {
    return null;
  } finally {
    file?.close();
  }
}

/**
 * Why the file at absolute `path` cannot be started as a program, or null when it can (as far as the file
 * says). POSIX: it must exist, be a regular file with an execute bit, and start with a binary header or a
 * `#!` line whose interpreter is itself an executable file. A headerless text file with an execute bit
 * would be handed to /bin/sh by execvp and run as a script (then end): that is not a program either.
 * Windows: existence and a regular file only (what runs is decided by the extension).
 */
export function programProblem(path: string): string | null {
  let st: Deno.FileInfo;
  try {
    st = Deno.statSync(path);
  } catch {
    return "does not exist";
  }
  if (st.isDirectory) return "is a directory";
  if (!st.isFile) return "is not a regular file";
  if (Deno.build.os === "windows") return null;
  if (st.mode === null || (st.mode & 0o111) === 0) {
    return `is not executable (mode ${((st.mode ?? 0) & 0o777).toString(8).padStart(3, "0")})`;
  }
  const head = headOf(path, 256);
  if (head === null) return null;
  if (BINARY_MAGICS.some((m) => m.every((b, i) => head[i] === b))) return null;
  if (head[0] === 0x23 && head[1] === 0x21) {
    const line = new TextDecoder().decode(head.subarray(2)).split("\n")[0]!.trim();
    const interpreter = line.split(/[ \t]+/)[0] ?? "";
    if (!interpreter) return "has a #! line that names no interpreter";
    if (!isAbsolute(interpreter) || !isExecutableFile(interpreter)) {
      return `names an interpreter that is not an executable file (#!${interpreter})`;
    }
    return null;
  }
  return "is not a program: neither a binary nor a #! script";
}

/**
 * `program` (a name looked up on PATH, or an absolute path) resolved to the file that would run, or why it
 * cannot run ({@link programProblem}): what a caller reports before starting anything.
 */
export function resolveProgram(program: string, pathEnv: string | undefined): { path: string } | { problem: string } {
  const isPath = program.includes("/") || (Deno.build.os === "windows" && program.includes("\\"));
  if (isPath && !isAbsolute(program)) return { problem: "is not an absolute path" };
  const path = isPath ? program : findExecutable(program, pathEnv);
  if (path === null) return { problem: "is not an executable on PATH" };
  const problem = programProblem(path);
  return problem === null ? { path } : { problem };
}
