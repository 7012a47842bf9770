/** The `wait_process` of a receipt: how a parent starts a waiter without blocking its own turn. */
import { selfCommand, windowsArgumentList } from "../../platform/mod.ts";

/** A process to start in the background; it exits when the turn ends (0 done, 3 timeout, 4 closed, 5 blocked, 6 not found, 7 error). */
export interface WaitProcess {
  executable: string;
  args: string[];
  /** For PowerShell 7 Start-Process -ArgumentList, as one string (Windows only; null elsewhere). */
  windows_start_process_argument_list: string | null;
}

/** The waiter for turn `cursor` of session `sessionId`. */
export function waitProcessFor(sessionId: string, cursor: number, generation: string | null): WaitProcess {
  const [executable, ...prefix] = selfCommand("wait");
  const args = [...prefix, "--session", sessionId, "--cursor", String(cursor)];
  if (generation) args.push("--generation", generation);
  return {
    executable: executable!,
    args,
    windows_start_process_argument_list: Deno.build.os === "windows" ? windowsArgumentList(args) : null,
  };
}
