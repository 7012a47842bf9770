/** The Codex processes of this user, for Codex steer's restart_required state. */
import { basename } from "node:path";
import type { ProcessRef } from "../../../state/mod.ts";
import { processStartIdentity, runProcessSync } from "../../../platform/mod.ts";
import { currentOs, type SetupOs } from "../../common/client/mod.ts";

/** Codex processes of this user (`codex`, `codex.exe`), with their start identity. */
export function codexProcesses(os: SetupOs = currentOs()): ProcessRef[] {
  const pids: number[] = [];
  try {
    if (os === "windows") {
      const out = runProcessSync("tasklist", {
        args: ["/FO", "CSV", "/NH", "/FI", "IMAGENAME eq codex.exe"],
        stderr: "null",
      });
      for (const line of out.stdout.split(/\r?\n/)) {
        const m = /^"codex\.exe","(\d+)"/i.exec(line);
        if (m) pids.push(Number(m[1]));
      }
    } else {
      const out = runProcessSync("ps", { args: ["-A", "-o", "pid=,uid=,comm="], stderr: "null" });
      const uid = Deno.uid();
      for (const line of out.stdout.split("\n")) {
        const m = /^\s*(\d+)\s+(\d+)\s+(.+?)\s*$/.exec(line);
        if (m && (uid === null || Number(m[2]) === uid) && basename(m[3]!) === "codex") pids.push(Number(m[1]));
      }
    }
  } catch {
    // no process table tool: nothing known to restart
  }
  return pids.filter((p) => p !== Deno.pid).map((pid) => ({ pid, start: processStartIdentity(pid) }));
}
