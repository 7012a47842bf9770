/**
 * How aiterm names itself to other processes (waiters, hooks): the compiled binary when compiled,
 * `deno run -A main.ts` from source. Never a file next to the source at run time.
 */
import { dirname, join } from "node:path";

/** True when running as a `deno compile` binary. */
/**
 * V8 flags the server runs with (from source, in tests and in compiled binaries): a small young generation
 * keeps the peak RSS of paging through 200 MB of output under 200 MB (page-sized strings are promoted
 * sooner instead of piling up in a large semi-space); measured with `deno task bench:memory`, no speed cost seen.
 */
export const SERVER_V8_FLAGS = "--v8-flags=--max-semi-space-size=4";

export function isCompiled(): boolean {
  const base = Deno.execPath().split(/[\\/]/).pop() ?? "";
  return !/^deno(\.exe)?$/i.test(base);
}

/** argv prefix that runs `aiterm-mcp <subcommand>`. */
export function selfCommand(subcommand: string): string[] {
  if (isCompiled()) {
    if (subcommand === "wait") {
      // The release ships aiterm-wait beside aiterm-mcp; prefer it (its own small entry point).
      const sibling = join(dirname(Deno.execPath()), Deno.build.os === "windows" ? "aiterm-wait.exe" : "aiterm-wait");
      try {
        if (Deno.statSync(sibling).isFile) return [sibling];
      } catch {
        // fall through to the subcommand
      }
    }
    return [Deno.execPath(), subcommand];
  }
  // The module this process was started from (main.ts, or a bundle of it), never a path next to
  // this source file: a bundle has no lib/ beside it.
  const main = new URL(Deno.mainModule);
  return [Deno.execPath(), "run", "-A", main.protocol === "file:" ? main.pathname : main.href, subcommand];
}

/**
 * One Windows command-line string for argv, quoted by the MSVCRT rules (what PowerShell 7's
 * Start-Process -ArgumentList passes through unchanged as a single string).
 */
export function windowsArgumentList(args: string[]): string {
  return args.map(quoteMsvcrt).join(" ");
}

function quoteMsvcrt(arg: string): string {
  if (arg !== "" && !/[\s"]/.test(arg)) return arg;
  let out = '"';
  let backslashes = 0;
  for (const ch of arg) {
    if (ch === "\\") {
      backslashes++;
      continue;
    }
    if (ch === '"') {
      out += "\\".repeat(backslashes * 2 + 1) + '"';
    } else {
      out += "\\".repeat(backslashes) + ch;
    }
    backslashes = 0;
  }
  return out + "\\".repeat(backslashes * 2) + '"';
}
