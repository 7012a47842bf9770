/**
 * How aiterm names itself to other processes (waiters, hooks): the compiled binary when compiled,
 * `deno run -A main.ts` from source. Never a file next to the source at run time.
 */
import { dirname, join } from "node:path";

/**
 * V8 flags the server runs with (from source, in tests and in compiled binaries): a small young generation, and V8's
 * heap sized for memory rather than speed (it collects before the heap grows). Streaming 200 MB of output through an
 * `until` wait and paging it back peaked at 225–236 MB with the young generation alone and at 110–125 MB with both
 * (`bench:stress` section 4, `bench:memory`); `pty_send`/`pty_read` latency was the same within noise in an A/B.
 */
export const SERVER_V8_FLAGS = "--v8-flags=--max-semi-space-size=4,--optimize-for-size";

/** True when running as a `deno compile` binary. */
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
