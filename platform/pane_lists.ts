/**
 * The `list-panes` formats and their parsers that both backends read: psmux speaks tmux's command
 * language, so a session list or a pane's pipe state reads the same from either (platform/psmux.ts,
 * platform/tmux/tmux.ts).
 */
import type { MuxSession, PipeState } from "./multiplexer.ts";

/** The `-F` format {@link parsePipeStates} reads: session, whether the pane is piped, whether it is dead. */
export const PIPE_FORMAT = "#{session_name}\t#{pane_pipe}\t#{pane_dead}";

/** Parses `list-panes -F PIPE_FORMAT` output: live panes only (first pane of each session wins). */
export function parsePipeStates(stdout: string): PipeState[] {
  const seen = new Map<string, PipeState>();
  for (const line of stdout.split("\n")) {
    const [name, pipe, dead] = line.replace(/\r$/, "").split("\t");
    if (!name || pipe === undefined || seen.has(name)) continue;
    if (dead === "1") continue;
    // A value other than 0/1 (a multiplexer without pane_pipe) is not evidence of a dead writer.
    seen.set(name, { name, piped: pipe !== "0" });
  }
  return [...seen.values()];
}

/** Whether `name`'s pane is piped, from `list-panes -t <name> -F PIPE_FORMAT` output; null when not listed. */
export function pipedOf(stdout: string, name: string): boolean | null {
  const found = parsePipeStates(stdout)[0];
  return found && found.name === name ? found.piped : null;
}

/** The `-F` format {@link parseSessionList} reads: one line per pane, tab-separated. */
export const LIST_FORMAT = [
  "#{session_name}",
  "#{pane_pid}",
  "#{pane_current_command}",
  "#{session_attached}",
  "#{window_width}",
  "#{window_height}",
  "#{session_created}",
  "#{pane_dead}",
  "#{pane_tty}",
  "#{pane_pipe}",
  "#{alternate_on}",
].join("\t");

/** Parses `list-panes -a -F LIST_FORMAT` output (first pane of each session wins). */
export function parseSessionList(stdout: string): MuxSession[] {
  const seen = new Map<string, MuxSession>();
  for (const line of stdout.split("\n")) {
    if (!line) continue;
    const [name, pid, cmd, attached, w, h, created, dead, tty, pipe, alternate] = line.split("\t");
    if (name === undefined || seen.has(name)) continue;
    seen.set(name, {
      name,
      panePid: Number(pid),
      currentCommand: cmd ?? "",
      attachedClients: Number(attached ?? 0),
      width: Number(w ?? 0),
      height: Number(h ?? 0),
      createdAt: Number(created ?? 0),
      paneDead: dead === "1",
      tty: tty ?? "",
      ...(pipe === "0" || pipe === "1" ? { piped: pipe === "1" } : {}),
      ...(alternate === "0" || alternate === "1" ? { alternateOn: alternate === "1" } : {}),
    });
  }
  return [...seen.values()];
}
